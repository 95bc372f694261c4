/** The read engine's questions as one interface (engine.ts implements it; api.ts opens one). */
import type {
  AggregateOptions,
  AggregateResult,
  CohortExpr,
  HitAggregateOptions,
  HitAggregateResult,
  HitScope,
  Scope,
  ValueSeriesOptions,
  ValueSeriesResult,
} from "./types.ts";
import type { EnvName } from "../store/records.ts";
import type {
  AttributionOptions,
  AttributionResult,
  FunnelOptions,
  FunnelResult,
  PathsOptions,
  PathsResult,
  RetentionOptions,
  RetentionResult,
  SessionSeq,
  SessionsOptions,
} from "./sequence_types.ts";

/** The questions the read engine answers (lib/query/engine.ts implements it; open one with api.ts). */
export interface Engine {
  /** Runs a tool call's loads as one question (they share one raw-tail read): Source.question. */
  question<T>(asking: () => Promise<T>): Promise<T>;
  /**
   * What questions hold while they answer, beyond the caches (lib/working_memory.ts): all of them now, the
   * most one question and all together have held, and the most one may hold.
   */
  workingMemory(): { held: number; peakQuestion: number; peakTotal: number; limit: number };
  /** Metrics over web events in scope, optionally broken down by fields and/or a time bucket. */
  aggregate(scope: Scope, opts: AggregateOptions): Promise<AggregateResult>;
  /** Several aggregates over one scope in one pass over the data (an overview asks for ~5). */
  aggregateMany(scope: Scope, opts: AggregateOptions[]): Promise<AggregateResult[]>;
  /**
   * How often each number of a property occurs among the matching rows, split into series by another
   * property, per value of a field and over all (exact percentiles, e.g. web vitals per page and metric).
   */
  valueSeries(scope: Scope, opts: ValueSeriesOptions): Promise<ValueSeriesResult>;
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
  /**
   * Units (visitors or sessions) counted once each under the values of their first event in scope, and
   * pageviews under their own: per field, counts that add up to the total (explaining a change).
   */
  attribution(scope: Scope, opts: AttributionOptions): Promise<AttributionResult>;
  /** Property names seen on events in scope (optionally of one event type) with event and visitor counts. */
  propertyKeys(
    scope: Scope,
    eventType?: string,
  ): Promise<{ key: string; events: number; visitors: number }[]>;
  /**
   * How many visitors of the scope (human events in its period and touchpoint, its filters ignored) are in
   * the cohort: the same exact set a question with `scope.cohort` counts.
   */
  cohortSize(scope: Scope, cohort: CohortExpr): Promise<number>;
  /**
   * The newest receive time folded into an environment's parts of a kind (null: none yet), from the part
   * index the engine keeps while it is unchanged: data freshness when no raw record is left.
   */
  newestPartArrival(org: string, env: EnvName, kind: "ev" | "hit"): Promise<number | null>;
}
