/**
 * The same aggregate questions answered from rollups and by the scan, interleaved in one process on one
 * site, so the machine's load (shared) weighs on both alike: cold (a new engine / rollup source) and warm
 * (median of --warm) per question and path, and whether the answers are equal.
 *   deno run -A bench/rollups.ts --kv file [--events N] [--warm 5] [--only <part of a question's name>]
 *     [--no-scan]   (rollups only, at sizes where the scan takes minutes: each answer's totals are printed
 *                    instead, to compare across runs, with the KV bytes a cold answer read)
 * Adds its figures under the site's event count to bench/results/rollups.json.
 */
import { assert } from "node:console";
import { isDeepStrictEqual } from "node:util";
import type { AggregateOptions, Scope } from "../lib/query/api.ts";
import { startOfLocalDay } from "../lib/query/api.ts";
import { Source } from "../lib/query/columns/source.ts";
import { aggregateMany } from "../lib/query/aggregate/aggregate.ts";
import { makeCtx } from "../lib/query/scan/ctx.ts";
import { RollupSource } from "../lib/query/rollup/source.ts";
import { kvArgument, openBenchSite } from "./site.ts";

const arg = (name: string, d: number) => {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Number(Deno.args[i + 1]) : d;
};
const EVENTS = arg("events", 1_000_000), WARM = arg("warm", 5);
const site = await openBenchSite({
  kv: kvArgument(),
  prefix: "bench-rollups-",
  events: EVENTS,
  visitors: Math.round(EVENTS / 10),
  days: 30,
});
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const now = new Date(site.clock.now());
const today = startOfLocalDay(
  { y: now.getUTCFullYear(), m: now.getUTCMonth() + 1, d: now.getUTCDate() },
  "Europe/Berlin",
);
const scope: Scope = {
  org: site.t.org,
  env: "production",
  touchpoint: site.t.touchpoint,
  from: today - 29 * 86_400_000,
  to: site.clock.now(),
  timezone: "Europe/Berlin",
};

/** The overview's lists, the events tool, a daily trend and the bench's reference question. */
const QUESTIONS: [string, AggregateOptions[]][] = [
  ["overview lists (pages, sources, countries, devices)", [
    { metrics: ["pageviews", "viewers"], breakdown: ["page"], limit: 25 },
    { metrics: ["visitors"], breakdown: ["source"], limit: 25 },
    { metrics: ["visitors"], breakdown: ["country"], limit: 25 },
    { metrics: ["visitors"], breakdown: ["device_type"], limit: 25 },
  ]],
  ["events by type", [{ metrics: ["events", "visitors"], breakdown: ["event_type"] }]],
  ["daily trend (events, pageviews, visitors)", [{
    metrics: ["events", "pageviews", "visitors"],
    bucket: "day",
    sort: { by: "key" },
  }]],
  ["visitors of the period", [{ metrics: ["visitors"] }]],
  ["overview headline (session facts)", [{
    metrics: [
      "visitors",
      "engaged_visitors",
      "sessions",
      "pageviews",
      "views_per_session",
      "bounce_rate",
      "session_duration_s",
      "dropped_events",
    ],
  }]],
  ["pages engagement and rage clicks", [{
    metrics: ["pageviews", "engagement_time_s", "scroll_depth_percent", "rage_clicks"],
    breakdown: ["page"],
    limit: 25,
  }]],
];

const deps = site.makeDeps();
const viaRollups = (src: RollupSource, os: AggregateOptions[]) => src.answer(scope, os);
const viaScan = async (src: Source, os: AggregateOptions[]) => {
  const load = await src.events(scope.org, scope.env, scope.from, scope.to);
  const interner = src.interner(scope.org, scope.env);
  const ctx = makeCtx(
    load.batches,
    scope,
    interner.visitorCount,
    interner.sessionCount,
    undefined,
    load.partSpan,
  );
  return aggregateMany(ctx, os);
};

async function time<T>(f: () => Promise<T>): Promise<[number, T]> {
  const t0 = performance.now();
  const out = await f();
  return [performance.now() - t0, out];
}

// --only <text>: the questions whose name holds it
const only = Deno.args.includes("--only") ? Deno.args[Deno.args.indexOf("--only") + 1] : null;
const noScan = Deno.args.includes("--no-scan");
const results = [];
for (const [name, os] of QUESTIONS.filter(([name]) => !only || name.includes(only))) {
  const rollups = new RollupSource(deps, new Source(deps)), scan = new Source(deps);
  const [rCold, rAnswer] = await time(() => viaRollups(rollups, os));
  if (noScan) {
    const coldBytes = rollups.bytesRead;
    const rWarm: number[] = [];
    for (let i = 0; i < WARM; i++) rWarm.push((await time(() => viaRollups(rollups, os)))[0]);
    const row = {
      question: name,
      rollups: { cold_ms: Math.round(rCold), warm_ms: Math.round(median(rWarm)), cold_kv_bytes: coldBytes },
      totals: rAnswer.map((a) => a?.totals ?? null),
    };
    results.push(row);
    console.log(JSON.stringify(row));
    continue;
  }
  const [sCold, sAnswer] = await time(() => viaScan(scan, os));
  assert(rAnswer.every((a) => a !== null), `${name}: not answered from rollups`);
  const rWarm: number[] = [], sWarm: number[] = [];
  for (let i = 0; i < WARM; i++) {
    rWarm.push((await time(() => viaRollups(rollups, os)))[0]);
    sWarm.push((await time(() => viaScan(scan, os)))[0]);
  }
  const row = {
    question: name,
    rollups: { cold_ms: Math.round(rCold), warm_ms: Math.round(median(rWarm)) },
    scan: { cold_ms: Math.round(sCold), warm_ms: Math.round(median(sWarm)) },
    equal: isDeepStrictEqual(rAnswer, sAnswer),
  };
  results.push(row);
  console.log(JSON.stringify(row));
}

const file = new URL("./results/rollups.json", import.meta.url);
let all: Record<string, unknown> = {};
try {
  all = JSON.parse(await Deno.readTextFile(file));
} catch { /* first run */ }
if (!noScan) {
  all[String(site.events)] = { measured_at: new Date().toISOString(), load_average: Deno.loadavg(), results };
}
await Deno.writeTextFile(file, JSON.stringify(all, null, 2) + "\n");
await site.close();
