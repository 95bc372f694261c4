import type { Deps } from "./deps.ts";
import { Directory } from "./tenancy/directory.ts";
import { RateLimiter } from "./limits/rate.ts";
import { OAuthState } from "./oauth/state.ts";

/** What route handlers share: the outside world (deps) plus per-process caches built on it. */
export interface AppContext {
  deps: Deps;
  directory: Directory;
  rates: RateLimiter;
  /** Per-process state of assistant sign-in (metadata documents, grant checks). */
  oauth: OAuthState;
}

export function createContext(deps: Deps): AppContext {
  return {
    deps,
    directory: new Directory(deps.kv, deps.clock),
    rates: new RateLimiter(deps.kv, deps.clock),
    oauth: new OAuthState(deps),
  };
}
