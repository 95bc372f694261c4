/**
 * The read engine's public face. Tools call `openEngine(ctx)` once per request (cheap: the engine and
 * its cache of decoded parts live as long as the deps) and ask it questions in the vocabulary of
 * ./types.ts. Answers are exact; they never carry a visitor, session or person identifier.
 */
import type { AppContext } from "../context.ts";
import type { Deps } from "../deps.ts";
import type {
  AggregateOptions,
  AggregateResult,
  Freshness,
  FunnelOptions,
  FunnelResult,
  HitAggregateOptions,
  HitAggregateResult,
  HitScope,
  PathsOptions,
  PathsResult,
  RetentionOptions,
  RetentionResult,
  Scope,
  SessionSeq,
  SessionsOptions,
} from "./types.ts";
import { createEngine } from "./engine.ts";

export type * from "./types.ts";
export { ENGAGED_MIN_MS, isEngagedSession, PASSIVE_EVENTS } from "./engaged.ts";
export { bucketOf, bucketsBetween, isValidTimezone, startOfLocalDay, zone } from "./time.ts";

export interface Engine {
  /** Metrics over web events in scope, optionally broken down by fields and/or a time bucket. */
  aggregate(scope: Scope, opts: AggregateOptions): Promise<AggregateResult>;
  /** Several aggregates over one scope in one pass over the data (an overview asks for ~5). */
  aggregateMany(scope: Scope, opts: AggregateOptions[]): Promise<AggregateResult[]>;
  /** Metrics over crawler hits (placed at their corrected timestamp), verification outcome joined. */
  hitsAggregate(scope: HitScope, opts: HitAggregateOptions): Promise<HitAggregateResult>;
  /** Ordered per-session sequences, newest session first (`limit` keeps the newest). */
  sessions(scope: Scope, opts?: SessionsOptions): Promise<SessionSeq[]>;
  /** Conversion through ordered steps (2-8). */
  funnel(scope: Scope, opts: FunnelOptions): Promise<FunnelResult>;
  /** Where sessions go after (or came from before) an anchor page or event. */
  paths(scope: Scope, opts: PathsOptions): Promise<PathsResult>;
  /** Return of visitors by day, week or month, cohorts by first activity in scope. */
  retention(scope: Scope, opts: RetentionOptions): Promise<RetentionResult>;
  /** Property names seen on events in scope (optionally of one event type) with event and visitor counts. */
  propertyKeys(
    scope: Scope,
    eventType?: string,
  ): Promise<{ key: string; events: number; visitors: number }[]>;
  /** How fresh the data of an environment is. */
  freshness(org: string, env: Scope["env"]): Promise<Freshness>;
}

const engines = new WeakMap<Deps, Engine>();

/** The engine of these deps (one per process and store; it holds the decoded-part cache). */
export function openEngine(ctx: AppContext | Deps): Engine {
  const deps = "deps" in ctx ? ctx.deps : ctx;
  let e = engines.get(deps);
  if (!e) engines.set(deps, e = createEngine(deps));
  return e;
}
