/**
 * The read engine's public face. Tools call `openEngine(ctx)` once per request (cheap: the engine and
 * its cache of decoded parts live as long as the deps) and ask it questions in the vocabulary of
 * ./types.ts. Answers are exact; they never carry a visitor, session or person identifier.
 */
import type { Deps } from "../deps.ts";
import type { Engine } from "./questions.ts";
import { createEngine } from "./engine.ts";

export type * from "./types.ts";
export type * from "./sequence_types.ts";
export type * from "./questions.ts";
export { ENGAGED_MIN_MS, isEngagedSession, PASSIVE_EVENTS } from "./scan/engaged.ts";
export {
  type Contribution,
  contributions,
  type MetricKind,
  metricOf,
  type Side,
  sumSides,
} from "./contributions.ts";
export { bucketOf, bucketsBetween } from "../time/buckets.ts";
export { startOfLocalDay } from "../time/dates.ts";
export { isValidTimezone, zone } from "../time/zone.ts";

const engines = new WeakMap<Deps, Engine>();

/** The engine of these deps (one per process and store; it holds the decoded-part cache). */
export function openEngine(ctx: { deps: Deps } | Deps): Engine {
  const deps = "deps" in ctx ? ctx.deps : ctx;
  let e = engines.get(deps);
  if (!e) engines.set(deps, e = createEngine(deps));
  return e;
}
