import type { Deps } from "./deps.ts";
import { Directory } from "./tenancy/directory.ts";
import { RateLimiter } from "./limits/rate.ts";

/** What route handlers share: the outside world (deps) plus per-process caches built on it. */
export interface AppContext {
  deps: Deps;
  directory: Directory;
  rates: RateLimiter;
}

export function createContext(deps: Deps): AppContext {
  return { deps, directory: new Directory(deps.kv, deps.clock), rates: new RateLimiter(deps.kv, deps.clock) };
}
