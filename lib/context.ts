import type { Deps } from "./deps.ts";
import { type Directory, directoryOf } from "./tenancy/directory.ts";
import { RateLimiter } from "./limits/rate.ts";
import { OAuthState } from "./oauth/state.ts";
import { PeopleCache } from "./people/cache.ts";
import { accountsForOAuth } from "./people/oauth_people.ts";
import { type Verifier, verifierFor } from "./crawl/verify.ts";
import { createEngine, type Engine } from "./query/api.ts";

/**
 * What route handlers and read tools share: the outside world (deps) plus per-process caches built on it.
 * It sits above the lib/ domain folders because it builds from several of them; nothing in a domain folder
 * imports it: a lib/ function takes Deps or the few parts it uses (`{ deps, rates }`, `{ deps, oauth }`), which
 * an AppContext passed by a route or a tool already satisfies.
 */
export interface AppContext {
  deps: Deps;
  directory: Directory;
  rates: RateLimiter;
  /** Per-process state of assistant sign-in (metadata documents, grant checks). */
  oauth: OAuthState;
  /** User and membership lookups for every app request and grant check (seconds of cache). */
  people: PeopleCache;
  /** Crawler verification: the published IP lists and DNS answers (lib/jobs/verify.ts takes it). */
  verifier: Verifier;
  /** The read engine: decoded parts and rollups within the part cache's budget (the tools ask it). */
  engine: Engine;
}

export function createContext(deps: Deps): AppContext {
  const people = new PeopleCache(deps.kv, deps.clock);
  const oauth = new OAuthState(deps);
  oauth.people = accountsForOAuth(deps.kv, deps.clock, people); // assistants act as the app's accounts
  return {
    deps,
    // the directory and the verifier are still reached by deps too (lib/ingest, lib/jobs): these calls
    // return the one instance per store those reach, until they take them from here
    directory: directoryOf(deps),
    rates: new RateLimiter(deps.kv, deps.clock),
    oauth,
    people,
    verifier: verifierFor(deps),
    engine: createEngine(deps),
  };
}
