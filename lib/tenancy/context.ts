import type { Deps } from "../deps.ts";
import { type Directory, directoryOf } from "./directory.ts";
import { RateLimiter } from "../limits/rate.ts";
import { OAuthState } from "../oauth/state.ts";

/**
 * What route handlers and read tools share: the outside world (deps) plus per-process caches built on it.
 * lib/ functions take Deps; routes hand them `ctx.deps`.
 */
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
    directory: directoryOf(deps),
    rates: new RateLimiter(deps.kv, deps.clock),
    oauth: new OAuthState(deps),
  };
}
