/**
 * The read engine's public face. The process builds one engine (`createEngine(deps)`, in createContext: it
 * holds the decoded-part cache) and tools ask it questions in the vocabulary of ./types.ts. Answers are
 * exact; they never carry a visitor, session or person identifier.
 */
export { createEngine } from "./engine.ts";

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
