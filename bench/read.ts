/**
 * Read engine on a generated site: cold and warm times of the questions the read tools ask, each beside a
 * plain scan of the same raw events from KV (the reference), plus memory and the time to generate and load.
 *   deno run -A bench/read.ts [--events 1000000] [--visitors 100000] [--days 30] [--warm 5] [--kv file]
 * With --kv the generated, scanned and compacted store is kept in that file and reused by later runs
 * (their load figures are the stored ones), so the query side can be measured again in a minute.
 * Targets (DESIGN.md): overview / pages / trends under 150 ms warm and 1.5 s cold; a 4-step funnel, paths
 * and retention under 500 ms warm. Writes bench/results/read.json.
 */
import { defaultConfig } from "../lib/config.ts";
import type { Deps } from "../lib/deps.ts";
import { compact } from "../lib/jobs/compact.ts";
import { createEngine, type Scope } from "../lib/query/api.ts";
import { keys } from "../lib/store/keys.ts";
import { unpackEvent } from "../lib/store/event_codec.ts";
import { generateSite } from "../lib/demo/site.ts";
import { benchDeps } from "./site.ts";
import { benchRun } from "./results.ts";

const arg = (name: string, d: number) => {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Number(Deno.args[i + 1]) : d;
};
const EVENTS = arg("events", 1_000_000),
  VISITORS = arg("visitors", 100_000),
  DAYS = arg("days", 30),
  WARM = arg("warm", 5);
const DAY = 86_400_000;
const run = benchRun();
const mb = (b: number) => Math.round(b / 1048576);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const log = (...a: unknown[]) => console.error(...a);

const kvArg = Deno.args.indexOf("--kv") >= 0 ? Deno.args[Deno.args.indexOf("--kv") + 1] : null;
const dir = kvArg ? null : await Deno.makeTempDir({ prefix: "bench-read-" });
const kv = await Deno.openKv(kvArg ?? `${dir}/kv.sqlite3`);
const end = Date.parse("2026-11-20T00:00:00Z");
const clock = { now: () => end + 3_600_000 };
const baseDeps = () => benchDeps(kv, clock);
const deps = baseDeps();

interface Load {
  gen: { events: number; hits: number; write_ms: number };
  scanMs: number;
  scanned: number;
  compactMs: number;
  parts: number;
  reference: { visitors: number; sessions: number; pageviews: number };
}
const scope: Scope = {
  org: "bench",
  env: "production",
  from: end - DAYS * DAY,
  to: end,
  timezone: "Europe/Berlin",
};
const kept = (await kv.get<Load>(keys.meta("bench_read_load"))).value;
const load: Load = kept ?? await generateScanCompact();
if (!kept && kvArg) await kv.set(keys.meta("bench_read_load"), load);
const { gen, scanMs, scanned, compactMs } = load;

async function generateScanCompact(): Promise<Load> {
  log(`generating ${EVENTS} events, ${VISITORS} visitors, ${DAYS} days`);
  const gen = await generateSite(deps, {
    org: "bench",
    touchpoint: "site",
    host: "bench.example",
    events: EVENTS,
    visitors: VISITORS,
    days: DAYS,
    seed: 1,
    end,
    compact: false,
  });
  log(`written in ${gen.write_ms} ms`, gen);
  // The reference: one plain scan of the raw events from KV, counting the overview's headline figures.
  const s0 = performance.now();
  const visitors = new Set<string>(), sessions = new Set<string>(), pages = new Map<string, number>();
  let pageviews = 0, scanned = 0;
  const prefix = keys.rawEvents("bench", "production");
  for await (
    const e of kv.list({ start: [...prefix, scope.from], end: [...prefix, scope.to] }, {
      batchSize: 1000,
    })
  ) {
    const ev = unpackEvent(e.value);
    scanned++;
    if (ev.traffic !== "human") continue;
    visitors.add(ev.anonymous_id);
    sessions.add(ev.session_id);
    if (ev.event_type === "$pageview") {
      pageviews++;
      pages.set(ev.path, (pages.get(ev.path) ?? 0) + 1);
    }
  }
  const scanMs = Math.round(performance.now() - s0);
  log(
    `reference scan: ${scanned} raw events in ${scanMs} ms (${visitors.size} visitors, ${sessions.size} sessions, ${pageviews} pageviews)`,
  );
  const c0 = performance.now();
  const cev = await compact(deps, "bench", "production", "ev", { graceMs: 0 });
  const chit = await compact(deps, "bench", "production", "hit", { graceMs: 0 });
  const compactMs = Math.round(performance.now() - c0);
  log(`compacted in ${compactMs} ms`, cev, chit);
  const reference = { visitors: visitors.size, sessions: sessions.size, pageviews };
  return { gen, scanMs, scanned, compactMs, parts: cev.parts, reference };
}

const queries: Record<string, (d: Deps) => Promise<unknown>> = {
  overview: (d) =>
    createEngine(d).aggregateMany(scope, [
      {
        metrics: [
          "visitors",
          "engaged_visitors",
          "sessions",
          "pageviews",
          "bounce_rate",
          "session_duration_s",
          "views_per_session",
        ],
      },
      { metrics: ["pageviews", "visitors"], breakdown: ["page"], limit: 25 },
      { metrics: ["visitors"], breakdown: ["source"], limit: 25 },
      { metrics: ["visitors"], breakdown: ["country"], limit: 25 },
      { metrics: ["visitors"], breakdown: ["device_type"], limit: 25 },
    ]),
  daily_trend: (d) =>
    createEngine(d).aggregate(scope, {
      metrics: ["visitors", "pageviews"],
      bucket: "day",
      sort: { by: "key" },
    }),
  funnel_4_steps: (d) =>
    createEngine(d).funnel(scope, {
      steps: [
        { event_type: "$pageview", filters: [{ field: "page", op: "eq", value: "/" }] },
        { event_type: "$pageview", filters: [{ field: "page", op: "eq", value: "/pricing" }] },
        { event_type: "sign_up" },
        { event_type: "purchase" },
      ],
    }),
  next_page_paths: (d) =>
    createEngine(d).paths(scope, {
      anchor: { event_type: "$pageview", filters: [{ field: "page", op: "eq", value: "/pricing" }] },
      direction: "after",
      depth: 3,
    }),
  weekly_retention: (d) => createEngine(d).retention(scope, { period: "week" }),
};
const targets: Record<string, { warm_ms: number; cold_ms?: number }> = {
  overview: { warm_ms: 150, cold_ms: 1500 },
  daily_trend: { warm_ms: 150, cold_ms: 1500 },
  funnel_4_steps: { warm_ms: 500 },
  next_page_paths: { warm_ms: 500 },
  weekly_retention: { warm_ms: 500 },
};

const results: Record<string, unknown> = {};
let sample: unknown = null;
for (const [name, run] of Object.entries(queries)) {
  const cold = baseDeps(); // a new engine: empty part cache
  const t0 = performance.now();
  const answer = await run(cold);
  const coldMs = Math.round(performance.now() - t0);
  const warm: number[] = [];
  for (let i = 0; i < WARM; i++) {
    const t = performance.now();
    await run(cold);
    warm.push(performance.now() - t);
  }
  const warmMs = Math.round(median(warm));
  if (name === "overview") sample = (answer as { totals: unknown }[])[0].totals;
  results[name] = {
    cold_ms: coldMs,
    warm_ms: warmMs,
    reference_scan_ms: scanMs,
    speedup_warm: Math.round(scanMs / Math.max(1, warmMs)),
    target: targets[name],
    meets_target: warmMs <= targets[name].warm_ms &&
      (targets[name].cold_ms === undefined || coldMs <= targets[name].cold_ms!),
  };
  log(name, results[name]);
}

const mem = Deno.memoryUsage();
const out = {
  bench: "read engine",
  events: gen.events,
  hits: gen.hits,
  visitors: VISITORS,
  days: DAYS,
  generate_and_write_ms: gen.write_ms,
  compact_ms: compactMs,
  generate_and_load_ms: gen.write_ms + compactMs,
  parts: load.parts,
  reference_scan_ms: scanMs,
  reference_scan_events: scanned,
  overview_totals: sample,
  reference_totals: load.reference,
  queries: results,
  memory: {
    rss_mb: mb(mem.rss),
    heap_used_mb: mb(mem.heapUsed),
    part_cache_limit_mb: mb(defaultConfig.partCacheBytes),
  },
};
console.log(JSON.stringify(await run.write("read", out), null, 2));
kv.close();
if (dir) await Deno.remove(dir, { recursive: true });
