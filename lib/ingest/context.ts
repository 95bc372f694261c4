/**
 * What the write paths use beyond Deps: objects of the process, each built once by createContext
 * (lib/context.ts) and handed in. A route passes its AppContext, which has them all; each function names
 * the few it uses (`Pick<IngestContext, …>`).
 */
import type { Deps } from "../deps.ts";
import type { Directory } from "../tenancy/directory.ts";
import type { Committer } from "../store/commit_group.ts";
import type { Verifier } from "../crawl/verify.ts";
import type { UnknownKeyBlocks } from "./unknown_keys.ts";
import type { SampledMarks } from "./sampled.ts";

export interface IngestContext {
  deps: Deps;
  /** keys, organizations and touchpoints, with seconds of cache */
  directory: Directory;
  /** the group commit: records of requests arriving together share commits */
  committer: Committer;
  /** the crawler verifier: a hit's address in its vendor's published list is verified at arrival */
  verifier: Verifier;
  /** what this instance last read of the blocks on addresses that sent unknown server keys */
  unknownKeys: UnknownKeyBlocks;
  /** which days had web events the SDK sampled, as this instance last wrote them */
  sampled: SampledMarks;
}

/** What storing events and hits uses. */
export type WriteContext = Pick<IngestContext, "deps" | "committer" | "verifier" | "sampled">;
