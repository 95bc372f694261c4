/**
 * The read tools end to end (HTTP read API, in process) on a generated, compacted site: cold time (a fresh
 * engine with an empty part cache) and warm time (median of --warm runs) of each tool.
 *   deno run -A bench/tools.ts [--events 1000000] [--visitors 100000] [--days 30] [--warm 5] [--kv file]
 *     [--only tool,tool]   (ask only these tools; the reference is always measured)
 *     [--no-cohort]        (skip the cohort search and the questions under it: at 10M they scan the period)
 *     [--cpu]              (each tool's cold ask's main-thread CPU time, from /proc/thread-self/schedstat:
 *                           steadier than wall time on a shared machine)
 *     [--heap]             (each tool's peaks of V8's committed and used heap and of array buffers, sampled
 *                           every 5 ms: what set a peak RSS, JS objects or buffers)
 * With --kv the generated, compacted site is kept in that file and reused by later runs.
 * Targets (DESIGN.md): behavior_overview, behavior_pages, behavior_trends under 150 ms warm and 1.5 s cold;
 * behavior_funnel (4 steps), behavior_paths, behavior_retention, behavior_explain_change under 500 ms warm;
 * behavior_features, behavior_performance under 150 ms warm (issue 14); all under 1.5 s cold.
 * Reference, measured in the same run on the same engine: the warm time of the barest question over the
 * period (events counted, one pass over the rows in scope); each tool's warm time is also given as a ratio
 * to it, which says more than milliseconds on a shared machine.
 * behavior_overview and behavior_pages under a saved cohort of ~10% of visitors under 300 ms warm, also when
 * each question ends at a new "now" (the clock moved 1 s), as in production (the cohort is saved here: the
 * definition of those tried nearest 10% of the period's visitors); the same two tools without the cohort are
 * timed at a new "now" as well, to compare with.
 * Writes bench/results/tools.json, and adds this run (each tool's cold and warm time, the process's peak RSS
 * while the tools ran, the load) under its event count and `--label` to bench/results/tools_scale.json, so
 * one file holds the 1M, 3M and 10M figures before and after a change.
 */
import { createApp } from "../app.ts";
import { createEngine } from "../lib/query/api.ts";
import { createContext } from "../lib/context.ts";
import { createSaved, findSaved, updateSaved } from "../lib/saved/store.ts";
import { previewCohort } from "../pipeline/app_runs.ts";
import { checkInsightInput } from "../pipeline/saved_insights.ts";
import { kvArgument, openBenchSite } from "./site.ts";
import { benchRun } from "./results.ts";
import { resetPeak, rss } from "./rss.ts";

const arg = (name: string, d: number) => {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Number(Deno.args[i + 1]) : d;
};
const EVENTS = arg("events", 1_000_000), VISITORS = arg("visitors", 100_000), DAYS = arg("days", 30);
const WARM = arg("warm", 5);
/** (0 with no runs: `--warm 0` asks each tool cold only, e.g. to profile the cold ask alone) */
const median = (xs: number[]) => xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] : 0;
const log = (...a: unknown[]) => console.error(...a);

const TARGETS: Record<string, { warm: number; cold: number }> = {
  behavior_overview: { warm: 150, cold: 1500 },
  behavior_pages: { warm: 150, cold: 1500 },
  behavior_trends: { warm: 150, cold: 1500 },
  behavior_funnel: { warm: 500, cold: 1500 },
  behavior_paths: { warm: 500, cold: 1500 },
  behavior_retention: { warm: 500, cold: 1500 },
  behavior_explain_change: { warm: 500, cold: 1500 },
  behavior_features: { warm: 150, cold: 1500 },
  behavior_performance: { warm: 150, cold: 1500 },
};
const COHORT = "bench ~10% of visitors";
const COHORT_TARGET = { warm: 300, cold: 2000 };
/** Tools also timed at a new "now" without the cohort: the cohort's own part of that time shows beside them. */
const MOVING = new Set(["behavior_overview", "behavior_pages"]);
const QUESTIONS: [string, Record<string, unknown>][] = [
  ["account_overview", {}],
  ["behavior_overview", { period: "last_30_days" }],
  ["behavior_pages", { period: "last_30_days" }],
  ["behavior_trends", { period: "last_30_days" }],
  ["behavior_funnel", {
    period: "last_30_days",
    steps: [{ page: "/" }, { page: "/pricing" }, { event: "sign_up" }, { event: "purchase" }],
  }],
  ["behavior_events", { period: "last_30_days" }],
  ["behavior_event_properties", { period: "last_30_days", event: "purchase" }],
  ["behavior_paths", { period: "last_30_days", page: "/pricing", depth: 3 }],
  ["behavior_sources", { period: "last_30_days", conversion_event: "sign_up" }],
  ["behavior_retention", { period: "last_30_days", interval: "week" }],
  ["behavior_sessions", { period: "last_7_days", limit: 10 }],
  ["behavior_features", { period: "last_30_days" }],
  ["behavior_performance", { period: "last_30_days", by: "page" }],
  ["behavior_explain_change", { period: "last_7_days" }],
  ["behavior_explain_change", {
    period: "last_7_days",
    metric: "conversion_rate",
    conversion_event: "sign_up",
  }],
  ["behavior_crawl_coverage", { period: "last_30_days" }],
  ["behavior_crawler_access", { period: "last_7_days" }],
  ["behavior_overview", { period: "last_30_days", cohort: COHORT }],
  ["behavior_pages", { period: "last_30_days", cohort: COHORT }],
];

const labelAt = Deno.args.indexOf("--label");
const LABEL = labelAt >= 0 ? Deno.args[labelAt + 1] : "current";

const run = benchRun();
const { kv, clock, makeDeps, t, events, close } = await openBenchSite({
  kv: kvArgument(),
  prefix: "bench-tools-",
  events: EVENTS,
  visitors: VISITORS,
  days: DAYS,
});

/** Saves the candidate definition whose cohort is nearest 10% of the period's visitors (exact sizes). */
async function saveCohort(): Promise<{ definition: unknown; share: number }> {
  const old = await findSaved(kv, t.org, COHORT, "cohort");
  const ctxApp = createContext(makeDeps());
  const org = (await ctxApp.directory.org(t.org))!;
  const size = (definition: unknown) => previewCohort(ctxApp, org, t.touchpoint, definition);
  const all = await size({ kind: "event", event: "$pageview" });
  const candidates = [
    { kind: "device", values: ["tablet"] },
    { kind: "event", event: "sign_up" },
    { kind: "first_touch", field: "channel", values: ["Email"] },
    { kind: "first_touch", field: "channel", values: ["Paid Search", "Email"] },
    { kind: "country", values: ["FR", "NL"] },
    { kind: "page", path: "/pricing", min_count: 2 },
  ];
  let best = { definition: candidates[0] as unknown, share: Infinity };
  for (const d of candidates) {
    const share = (await size(d)) / all;
    log(`cohort candidate ${JSON.stringify(d)}: ${(share * 100).toFixed(1)}%`);
    if (Math.abs(share - 0.1) < Math.abs(best.share - 0.1)) best = { definition: d, share };
  }
  const o = {
    kv,
    clock,
    org: t.org,
    editor: { user: "bench", role: "owner" as const },
    touchpoints: [t.touchpoint],
    checkInsight: checkInsightInput,
  };
  const body = { name: COHORT, touchpoint: t.touchpoint, definition: best.definition };
  if (old) await updateSaved(o, "cohort", old.id, body);
  else await createSaved(o, "cohort", body);
  return best;
}
const NO_COHORT = Deno.args.includes("--no-cohort");
const cohort = NO_COHORT ? null : await saveCohort();
await resetPeak();
const loadBeforeTools = Deno.loadavg();
if (cohort) {
  log(
    `cohort: ${JSON.stringify(cohort.definition)}, ${
      (cohort.share * 100).toFixed(1)
    }% of the period's visitors`,
  );
}

/** --cpu: nanoseconds this thread (the JS thread) has run; null where /proc does not say. */
const CPU = Deno.args.includes("--cpu");
function threadCpuMs(): number | null {
  try {
    return Number(Deno.readTextFileSync("/proc/thread-self/schedstat").split(" ")[0]) / 1e6;
  } catch {
    return null;
  }
}

async function ask(app: ReturnType<typeof createApp>, tool: string, input: Record<string, unknown>) {
  const t0 = performance.now();
  const res = await app.request(`/v1/read/${tool}`, {
    method: "POST",
    headers: { authorization: `Bearer ${t.readKey}`, "content-type": "application/json" },
    body: JSON.stringify(input),
  });
  const body = await res.text();
  if (!res.ok) throw new Error(`${tool}: ${res.status} ${body}`);
  return performance.now() - t0;
}

// The reference: events counted over the last 30 days, warm, on an engine of its own.
const reference = await (async () => {
  const engine = createEngine(makeDeps());
  const scope = {
    org: t.org,
    env: "production" as const,
    touchpoint: t.touchpoint,
    from: clock.now() - 30 * 86_400_000,
    to: clock.now(),
    timezone: "UTC",
  };
  await engine.aggregate(scope, { metrics: ["events"] });
  const times: number[] = [];
  for (let i = 0; i < WARM; i++) {
    const t0 = performance.now();
    await engine.aggregate(scope, { metrics: ["events"] });
    times.push(performance.now() - t0);
  }
  return median(times);
})();
console.log(`reference: events over 30 days, warm ${reference.toFixed(1)} ms`);

const onlyArg = Deno.args.indexOf("--only") >= 0 ? Deno.args[Deno.args.indexOf("--only") + 1] : null;
const only = onlyArg ? new Set(onlyArg.split(",")) : null;

const results: {
  tool: string;
  input: Record<string, unknown>;
  cold_ms: number;
  warm_ms: number;
  second_ms?: number;
  ok: boolean | null;
}[] = [];
/** --heap: the highest V8 heap (committed, used) and array buffer bytes seen since the last tool's row. */
const HEAP = Deno.args.includes("--heap");
let heapPeak = { heapTotal: 0, heapUsed: 0, external: 0 };
if (HEAP) {
  const timer = setInterval(() => {
    const m = Deno.memoryUsage();
    heapPeak = {
      heapTotal: Math.max(heapPeak.heapTotal, m.heapTotal),
      heapUsed: Math.max(heapPeak.heapUsed, m.heapUsed),
      external: Math.max(heapPeak.external, m.external),
    };
  }, 5);
  Deno.unrefTimer(timer);
}
for (
  const [tool, input] of QUESTIONS.filter(([name, input]) =>
    (!only || only.has(name)) && (cohort || !input.cohort)
  )
) {
  const app = createApp(makeDeps()); // a fresh engine: an empty part cache
  const cpu0 = CPU ? threadCpuMs() : null;
  const cold = await ask(app, tool, input);
  const cpu1 = CPU ? threadCpuMs() : null;
  const warm: number[] = [];
  for (let i = 0; i < WARM; i++) warm.push(await ask(app, tool, input));
  // in production every question ends at a new "now" (the clock moves 1 s before each): the period's scope
  // is new each time; measured under the cohort and, to compare with, for the same tools without it
  const moving: number[] = [];
  if (input.cohort || MOVING.has(tool)) {
    for (let i = 0; i < WARM; i++) {
      clock.advance(1_000);
      moving.push(await ask(app, tool, input));
    }
  }
  const target = input.cohort ? COHORT_TARGET : TARGETS[tool];
  const row = {
    tool: input.cohort ? `${tool} (cohort)` : tool,
    cold_ms: Math.round(cold),
    ...(cpu0 !== null && cpu1 !== null ? { cold_cpu_ms: Math.round(cpu1 - cpu0) } : {}),
    input,
    warm_ms: Math.round(median(warm)),
    // the first ask after the cold one on its own: where a period's kept list is built (plain_answers.ts
    // keepList: built when the period is asked again), so the median of the warm asks does not show it
    ...(warm.length ? { second_ms: Math.round(warm[0]) } : {}),
    warm_vs_reference: Math.round((median(warm) / reference) * 10) / 10,
    ...(moving.length ? { warm_new_now_ms: Math.round(median(moving)) } : {}),
    target_warm_ms: target?.warm ?? null,
    target_cold_ms: target?.cold ?? null,
    // in production a question's "now" is always new: under a cohort that figure is held to the target too
    rss_after_mb: (await rss())?.now ?? null,
    // the process's peak so far: the tool after which it rose is the one that set it
    peak_rss_so_far_mb: (await rss())?.peak ?? null,
    ...(HEAP
      ? {
        peak_heap_total_mb: Math.round(heapPeak.heapTotal / 1048576),
        peak_heap_used_mb: Math.round(heapPeak.heapUsed / 1048576),
        peak_array_buffers_mb: Math.round(heapPeak.external / 1048576),
      }
      : {}),
    ok: target
      ? median(warm) <= target.warm && cold <= target.cold &&
        (!input.cohort || median(moving) <= target.warm)
      : null,
  };
  results.push(row);
  console.log(
    `${row.tool.padEnd(26)} cold ${String(row.cold_ms).padStart(6)} ms` +
      (row.cold_cpu_ms !== undefined ? ` (CPU ${row.cold_cpu_ms} ms)` : "") +
      `  warm ${String(row.warm_ms).padStart(6)} ms (second ask ${row.second_ms ?? "-"})` +
      `  ${String(row.warm_vs_reference).padStart(5)}x ref` +
      (moving.length ? `  (a new "now" each time: ${Math.round(median(moving))} ms)` : "") +
      (target ? `  (target ${target.warm} / ${target.cold} ms) ${row.ok ? "OK" : "MISSED"}` : ""),
  );
  log(
    `${row.tool}: resident ${row.rss_after_mb} MB, peak so far ${row.peak_rss_so_far_mb} MB` +
      (HEAP
        ? `; this tool's peaks: heap ${row.peak_heap_total_mb} MB committed, ${row.peak_heap_used_mb} used, ` +
          `array buffers ${row.peak_array_buffers_mb}`
        : ""),
  );
  heapPeak = { heapTotal: 0, heapUsed: 0, external: 0 };
}
const memory = await rss();
const written = await run.write("tools", {
  events,
  peak_rss_mb: memory?.peak ?? null,
  // glibc's arenas: the start tasks run the service with 2 (deno.json); more keep freed buffers per thread
  malloc_arena_max: Deno.env.get("MALLOC_ARENA_MAX") ?? null,
  visitors: VISITORS,
  reference: { question: "events over the last 30 days (engine, warm median)", warm_ms: reference },
  cohort: cohort
    ? { definition: cohort.definition, share_of_visitors: Math.round(cohort.share * 1000) / 1000 }
    : null,
  results,
});
console.log(
  `peak RSS while the tools ran: ${memory?.peak} MB (MALLOC_ARENA_MAX ${
    Deno.env.get("MALLOC_ARENA_MAX") ?? "unset: glibc's default, 8 a core"
  })`,
);
await addToScale(written);
await close();

/** bench/results/tools_scale.json: { "<events>": { "<label>": run } }, one entry per size and label. */
async function addToScale(out: Record<string, unknown>) {
  const file = new URL("./results/tools_scale.json", import.meta.url);
  let all: Record<string, Record<string, unknown>> = {};
  try {
    all = JSON.parse(await Deno.readTextFile(file));
  } catch { /* first run */ }
  const size = String(events);
  all[size] = {
    ...all[size],
    [LABEL]: {
      measured_at: out.measured_at,
      load_average_before_tools: loadBeforeTools,
      load_average_at_end: Deno.loadavg(),
      part_cache_mb: Math.round(makeDeps().config.partCacheBytes / 1048576),
      peak_rss_mb: memory?.peak ?? null,
      reference_warm_ms: Math.round(reference * 10) / 10,
      tools: Object.fromEntries(
        results.map((r) => [r.tool + (r.input.metric ? ` (${r.input.metric})` : ""), {
          cold_ms: r.cold_ms,
          warm_ms: r.warm_ms,
          second_ms: r.second_ms ?? null,
          ok: r.ok,
        }]),
      ),
    },
  };
  await Deno.writeTextFile(file, JSON.stringify(all, null, 2) + "\n");
}
