/** Engine implementation: loads batches (cached parts + raw tail) and runs the columnar passes. */
import type { Deps } from "../deps.ts";
import { aggregateMany } from "./aggregate/aggregate.ts";
import { Source } from "./columns/source.ts";
import { valueSeries } from "./aggregate/value_series.ts";
import { hitAnswers } from "./hits.ts";
import { hitRollupCacheBytes } from "./hit_rollup/source.ts";
import { vitalsBlocker } from "./vitals/answer.ts";
import { propAnswers, propQuestionKey, propRollupCacheBytes } from "./prop_rollup/planner.ts";
import { featureAnswers, featureRollupCacheBytes } from "./feature_rollup/planner.ts";
import { featureQuestion } from "./feature_rollup/answer.ts";
import { vitalsCacheBytes, VitalsSource } from "./vitals/source.ts";
import { ScanContexts } from "./scan/contexts.ts";
import { propertyKeys } from "./sequence/property_keys.ts";
import { turns } from "../turns.ts";
import { retention } from "./sequence/retention.ts";
import { scanAttribution } from "./sequence/attribution_stream.ts";
import { scanFunnel } from "./sequence/funnel_stream.ts";
import { scanPaths } from "./sequence/paths_stream.ts";
import { scanSessions } from "./sequence/sessions_stream.ts";
import type { Scope } from "./types.ts";
import type { Engine } from "./questions.ts";
import { rollupCacheBytes, RollupSource } from "./rollup/source.ts";
import { attributionAsked, rollupBlocker } from "./rollup/answer.ts";
import { firstTouchBlocker } from "./rollup/first_touch.ts";
import { retentionBlocker } from "./rollup/retention.ts";
import type { AggregateOptions, AggregateResult } from "./types.ts";
import type { WorkingMemory } from "../working_memory.ts";

export function createEngine(deps: Deps): Engine {
  // one memory budget (PART_CACHE_MB): decoded rollups take a third of it (hit rollups a fourteenth of the
  // whole, Web Vitals tables, property rollups and feature tables a thirty-second each, out of that third),
  // the scan the rest: at 1M events the scan needs its two thirds (192 MB of 288) to hold the month's parts beside what it
  // keeps; with 18 MB less the overview re-read parts (109 ms warm became 539)
  const rollupBytes = rollupCacheBytes(deps.config.partCacheBytes);
  const hitBytes = hitRollupCacheBytes(deps.config.partCacheBytes);
  const vitalsBytes = vitalsCacheBytes(deps.config.partCacheBytes);
  const source = new Source({
    ...deps,
    config: { ...deps.config, partCacheBytes: deps.config.partCacheBytes - rollupBytes },
  });
  const scans = new ScanContexts(source);
  const hits = hitAnswers(source, deps, hitBytes);
  const propBytes = propRollupCacheBytes(deps.config.partCacheBytes);
  const featureBytes = featureRollupCacheBytes(deps.config.partCacheBytes);
  const rollups = new RollupSource(
    deps,
    source,
    rollupBytes - hitBytes - vitalsBytes - propBytes - featureBytes,
  );
  const props = propAnswers(deps, source, propBytes);
  const features = featureAnswers(deps, source, featureBytes);
  const vitals = new VitalsSource(deps, source, vitalsBytes);
  /**
   * A tool's questions take one path together: all from rollups when rollups can answer every one, else all
   * by one scan. The scan answers a batch in one pass, so a question it answers beside the others costs
   * little more; splitting a batch paid both paths (the overview's lists from rollups, its headline by the
   * scan: 243 ms warm at 1M against 54 ms for the whole batch scanned).
   */
  const aggregate = async (s: Scope, os: AggregateOptions[]): Promise<AggregateResult[]> => {
    // an event's property values (behavior_event_properties): from property rollups at any size (exact, and
    // at 1M events 13 ms warm against 2.8 s scanned for page views)
    if (os.length && os.every((o) => propQuestionKey(s, o) !== null)) {
      const fromProps = await props.aggregate(s, os);
      if (fromProps) return fromProps;
    }
    // behavior_features' questions (clicks, rage clicks, form changes and submits per element and page) from
    // the feature tables on a site whose parts would not fit the cache (at 10M events 7 s scanned)
    if (os.length && os.every((o) => featureQuestion(s, o)) && !(await siteFits(s))) {
      const fromFeatures = await features.aggregate(s, os);
      if (fromFeatures) return fromFeatures;
    }
    // sources by attribution (behavior_sources, the crawl-coverage referral section) from the parts' runs at
    // any size: their answers are kept per period (at 1M events 8 ms warm against 214-228 ms scanned)
    const byRuns = os.some((o) => attributionAsked(s, o));
    if (os.every((o) => rollupBlocker(s, o) === null) && (byRuns || !(await siteFits(s)))) {
      const fromRollups = await rollups.answer(s, os);
      if (fromRollups.every((r) => r !== null)) return fromRollups as AggregateResult[];
    }
    return aggregateMany(await ctxOf(s), os);
  };
  /**
   * Whether the environment's parts, decoded, fill at most half the scan's budget: then the scan answers
   * (warm, it reuses the decoded parts and what it keeps per period); when they fill more, rollups answer:
   * the scan would reload parts each question (the cliff at 3M), and short of that it would hold the month
   * with no room for what questions keep. Half, not all (28 Nov): at 1M events the month's parts filled the
   * 192 MB budget (~120 MB held, 170 estimated), and the rollups had become faster than the scan there
   * (bench/tools.ts at 1M, all tools: overview 283-367 ms cold / 29-48 warm from rollups against 870-1,065 /
   * 52-80 scanned; pages 140-227 / 8-14 against 470-600 / 68-80); one engine answering every tool, cohort
   * questions too, peaked at 444 MB against 564 (bench/memory.ts --cohort). Web Vitals of such a site come
   * from histograms (within 1%, said in the answer). A cohort still takes the scan. The whole environment,
   * not the period: a large site's short period (a tool's previous period, a day) then takes rollups too
   * instead of decoding parts that push the long period's kept data out (the cold overview at 10M events
   * spent ~1.2 s of CPU scanning its previous period).
   */
  const siteFits = async (s: Scope): Promise<boolean> => {
    // the part index only (no raw tail, no columns), kept by the source while the index is unchanged
    let rows = 0;
    for (const meta of await source.indexedParts(s.org, s.env)) rows += meta.rows;
    return source.scanHolds(rows);
  };
  const ctxOf = (s: Scope) => scans.of(s);
  return countedEach({
    question: (asking) => source.question(asking),
    workingMemory: () => {
      const w = source.working;
      return { held: w.total, peakQuestion: w.peakQuestion, peakTotal: w.peakTotal, limit: w.limit };
    },
    aggregate: async (s, o) => (await aggregate(s, [o]))[0],
    aggregateMany: (s, os) => aggregate(s, os),
    // Web Vitals from the parts' histograms (within 1%) on a site whose parts would not all fit the part
    // cache: every period of such a site (the previous period too, often a few parts) gets the same kind of
    // answer; a smaller site's are exact from the scan
    valueSeries: async (s, o) => {
      if (vitalsBlocker(s, o) === null && !(await siteFits(s))) {
        const r = await vitals.answer(s, o);
        if (r) return r;
      }
      return valueSeries(await ctxOf(s), o);
    },
    hitsAggregate: hits,
    // sequences stream part by part when the period's parts would not fit the budget (else scan as one)
    sessions: (s, o) => scanSessions(scans, s, o ?? {}, deps.kv),
    funnel: (s, o) => scanFunnel(scans, s, o, deps.kv),
    paths: (s, o) => scanPaths(scans, s, o, deps.kv),
    // retention from the totals rows' visitor sets when the site's parts would not fit (as aggregates)
    retention: async (s, o) => {
      if (retentionBlocker(s, o) === null && !(await siteFits(s))) {
        const r = await rollups.retention(s, o);
        if (r) return r;
      }
      return retention(await ctxOf(s), o);
    },
    // explain-a-change's units under their first event from the session facts' first events when the site's
    // parts would not fit (at 10M events the scan decoded the period's parts each ask: 2.0 s warm)
    attribution: async (s, o) => {
      if (firstTouchBlocker(s, o) === null && !(await siteFits(s))) {
        const r = await rollups.attribution(s, o);
        if (r) return r;
      }
      return scanAttribution(scans, s, o);
    },
    propertyKeys: async (s, eventType) =>
      (await props.keys(s, eventType)) ?? await propertyKeys(await ctxOf(s), eventType, turns()),
    newestPartArrival: (org, env, kind) => source.newestArrival(org, env, kind),
    cohortSize: async (s, cohort) => {
      // a period that does not fit is counted part by part (scan/contexts.ts)
      const streamed = await scans.cohortSize(s, cohort);
      if (streamed !== null) return streamed;
      const ctx = await ctxOf({ ...s, filters: [], traffic: ["human"], cohort });
      return (await aggregateMany(ctx, [{ metrics: ["visitors"] }]))[0].totals.visitors ?? 0;
    },
  }, source.working);
}

/**
 * Each question the engine answers counts what it holds while it answers as its own (lib/working_memory.ts):
 * the caches make room for it, and a question past the limit is refused instead of growing the process.
 */
function countedEach(engine: Engine, working: WorkingMemory): Engine {
  const counted = (f: (...a: never[]) => Promise<unknown>) => (...a: never[]) => working.run(() => f(...a));
  const out = { ...engine } as Record<string, unknown>;
  for (const [name, f] of Object.entries(engine)) {
    // (a tool call's loads as one question, and a look at the index, hold nothing of their own)
    if (name === "question" || name === "newestPartArrival" || name === "workingMemory") continue;
    out[name] = counted(f as (...a: never[]) => Promise<unknown>);
  }
  return out as unknown as Engine;
}
