import type { Deps } from "./deps.ts";
import { Directory } from "./tenancy/directory.ts";
import { RateLimiter } from "./limits/rate.ts";
import { OAuthState } from "./oauth/state.ts";
import { PeopleCache } from "./people/cache.ts";
import { accountsForOAuth } from "./people/oauth_people.ts";
import { createVerifier, type Verifier } from "./crawl/verify.ts";
import { createEngine, type Engine } from "./query/api.ts";
import { type Committer, createCommitter } from "./store/commit_group.ts";
import { VerifyQueue } from "./store/pending_verification.ts";
import { UnknownKeyBlocks } from "./ingest/unknown_keys.ts";
import { SampledMarks } from "./ingest/sampled.ts";
import { ReviewCache } from "./feedback/review_cache.ts";
import { TailWatch } from "./jobs/tail_watch.ts";

/**
 * What route handlers and read tools share: the outside world (deps) plus every long-lived object of the
 * process, built here once and nowhere else (no lib/ module keeps state of its own keyed by deps or a store).
 * It sits above the lib/ domain folders because it builds from several of them; nothing in a domain folder
 * imports it: a lib/ function takes Deps or the few parts it uses (`{ deps, rates }`, `{ deps, verifier }`,
 * `IngestContext`), which an AppContext passed by a route or a tool already satisfies.
 */
export interface AppContext {
  deps: Deps;
  /** Keys, organizations and touchpoints with seconds of cache; this process's writes invalidate it. */
  directory: Directory;
  rates: RateLimiter;
  /** Per-process state of assistant sign-in (metadata documents, grant checks). */
  oauth: OAuthState;
  /** User and membership lookups for every app request and grant check (seconds of cache). */
  people: PeopleCache;
  /** Crawler verification: the published IP lists and DNS answers (ingest and the verification jobs). */
  verifier: Verifier;
  /** The read engine: decoded parts and rollups within the part cache's budget (the tools ask it). */
  engine: Engine;
  /** The group commit every write path stores through, so requests arriving together share commits. */
  committer: Committer;
  /** Whether the store's queue is still asked to hurry verification (not once it refused, or KV_QUEUE=off). */
  verifyQueue: VerifyQueue;
  /** What this instance last read of the blocks on addresses that sent unknown server keys. */
  unknownKeys: UnknownKeyBlocks;
  /** Which days had web events the SDK sampled, as this instance last wrote them (ingest; one KV record). */
  sampled: SampledMarks;
  /** App-store reviews in memory, checked against each app's stamp on every read (the feedback tools). */
  reviews: ReviewCache;
  /** Compaction started by questions that find an old raw tail (the job behind or stopped). */
  tails: TailWatch;
}

export function createContext(deps: Deps): AppContext {
  const people = new PeopleCache(deps.kv, deps.clock);
  const oauth = new OAuthState(deps);
  oauth.people = accountsForOAuth(deps.kv, deps.clock, people); // assistants act as the app's accounts
  const verifyQueue = new VerifyQueue(deps.kv);
  return {
    deps,
    directory: new Directory(deps.kv, deps.clock),
    rates: new RateLimiter(deps.kv, deps.clock),
    oauth,
    people,
    verifier: createVerifier(deps),
    engine: createEngine(deps),
    committer: createCommitter(deps.kv, verifyQueue),
    verifyQueue,
    unknownKeys: new UnknownKeyBlocks(deps),
    sampled: new SampledMarks(deps),
    reviews: new ReviewCache(deps),
    tails: new TailWatch(deps),
  };
}
