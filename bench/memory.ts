/**
 * Where a read tool's memory goes: one tool (or a few) asked cold, then warm, on a fresh engine in this
 * process, over the kept bench site (bench/site.ts), with the process's memory sampled while it runs.
 *   deno run -A [--v8-flags=--expose-gc,--max-old-space-size=N] bench/memory.ts --kv site.sqlite3
 *     --events 10000000 --visitors 1000000 --only behavior_overview [--warm 3] [--json out.json] [--label x]
 *     [--part-cache-mb N] [--cohort] [--cohort-only]
 * Prints one line a tool: cold and warm time, the peak resident set (VmHWM, since the site was opened; each
 * tool's own too, with the resident set it started from), the peaks sampled every few milliseconds of
 * anonymous memory (RssAnon: the heap, array buffers, native allocations) and file pages (RssFile: the binary, KV's SQLite file mapped), V8's heap used and external
 * bytes (array buffers live there), and, with --expose-gc, the heap and external bytes left after a full
 * collection at the end (what is live, not garbage not yet collected). With --allocs, each tool's cold and
 * warm asks also list the call sites that made the most array buffer bytes (bench/alloc_sites.ts). With
 * --gc-between (and --expose-gc), each tool's row says what it left live and what it left dead. With --cohort,
 * the overview and pages are also asked under bench/tools.ts's saved cohort (the site must have it: run
 * bench/tools.ts on it once without --no-cohort); --cohort-only asks only those. With --answers DIR, every
 * answer's body is written to DIR, one file an ask in the order asked (to compare two trees' answers).
 */
import { createApp } from "../app.ts";
import { kvArgument, openBenchSite } from "./site.ts";
import { Budget } from "../lib/query/columns/budget.ts";
import { Lru } from "../lib/lru.ts";
import { Source } from "../lib/query/columns/source.ts";
import type { Interner } from "../lib/query/columns/intern.ts";
import { RollupSource } from "../lib/query/rollup/source.ts";
import { VitalsSource } from "../lib/query/vitals/source.ts";
import { HitRollups } from "../lib/query/hit_rollup/source.ts";
import { PropRollups } from "../lib/query/prop_rollup/planner.ts";
import { FeatureRollups } from "../lib/query/feature_rollup/planner.ts";
import { allocSites, installAllocSites, startAllocSites } from "./alloc_sites.ts";

const arg = (name: string, d: number) => {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Number(Deno.args[i + 1]) : d;
};
const text = (name: string) => {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Deno.args[i + 1] : null;
};
const EVENTS = arg("events", 1_000_000), VISITORS = arg("visitors", 100_000), WARM = arg("warm", 3);
const MB = 1048576;
const mb = (b: number) => Math.round(b / MB);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The questions bench/tools.ts asks (its list; the cohort ones with --cohort). */
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
  ...(Deno.args.includes("--cohort")
    ? [
      ["behavior_overview", { period: "last_30_days", cohort: "bench ~10% of visitors" }],
      ["behavior_pages", { period: "last_30_days", cohort: "bench ~10% of visitors" }],
    ] as [string, Record<string, unknown>][]
    : []),
];

interface Status {
  rss: number;
  hwm: number;
  anon: number;
  file: number;
}
function status(): Status {
  const s = Deno.readTextFileSync("/proc/self/status");
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(s)?.[1] ?? 0) * 1024;
  return { rss: kb("VmRSS"), hwm: kb("VmHWM"), anon: kb("RssAnon"), file: kb("RssFile") };
}

/** Peaks seen by sampling every few milliseconds (the event loop turns while a scan runs: every ~20 ms). */
const peak = { anon: 0, file: 0, heapUsed: 0, heapTotal: 0, external: 0 };
let toolPeak: { anon: number; external: number; heapTotal: number } | null = null;
const sample = () => {
  const s = status(), m = Deno.memoryUsage();
  if (toolPeak) {
    toolPeak.anon = Math.max(toolPeak.anon, s.anon);
    toolPeak.external = Math.max(toolPeak.external, m.external);
    toolPeak.heapTotal = Math.max(toolPeak.heapTotal, m.heapTotal);
  }
  peak.anon = Math.max(peak.anon, s.anon);
  peak.file = Math.max(peak.file, s.file);
  peak.heapUsed = Math.max(peak.heapUsed, m.heapUsed);
  peak.heapTotal = Math.max(peak.heapTotal, m.heapTotal);
  peak.external = Math.max(peak.external, m.external);
};

/**
 * What the engine's caches say they hold, and what its interners hold (not in any cache): every Budget,
 * Lru and Interner made while the tools run is seen through a hook on its prototype (bench only).
 */
/** A set that does not keep what it holds alive (with --fresh the engines asked before must be collectable). */
class Held<T extends object> {
  #refs = new Set<WeakRef<T>>();
  #seen = new WeakSet<T>();
  add(x: T): void {
    if (!this.#seen.has(x)) (this.#seen.add(x), this.#refs.add(new WeakRef(x)));
  }
  *[Symbol.iterator](): Generator<T> {
    for (const r of this.#refs) {
      const x = r.deref();
      if (x) yield x;
    }
  }
}
const budgets = new Held<Budget>(),
  lrus = new Held<Lru<unknown, unknown>>(),
  interners = new Held<Interner>();
const hook = <T extends object>(proto: T, name: keyof T, seen: (self: T, out: unknown) => void) => {
  const f = proto[name] as (...a: unknown[]) => unknown;
  (proto as Record<keyof T, unknown>)[name] = function (this: T, ...a: unknown[]) {
    const out = f.apply(this, a);
    seen(this, out);
    return out;
  };
};
hook(Budget.prototype, "setPart", (b) => budgets.add(b));
hook(Budget.prototype, "setKept", (b) => budgets.add(b));
hook(Lru.prototype as Lru<unknown, unknown>, "set", (l) => lrus.add(l));
hook(Source.prototype, "interner", (_s, i) => interners.add(i as Interner));

/** The engine's sources, seen when any of their methods runs: their array buffers are counted below. */
const roots = new Map<string, Held<object>>();
for (
  const [name, cls] of Object.entries({
    Source,
    RollupSource,
    VitalsSource,
    HitRollups,
    PropRollups,
    FeatureRollups,
  })
) {
  const proto = cls.prototype as unknown as Record<string, unknown>;
  for (const [m, d] of Object.entries(Object.getOwnPropertyDescriptors(proto))) {
    if (m === "constructor" || typeof d.value !== "function") continue;
    hook(proto, m, (self) => {
      if (!roots.has(name)) roots.set(name, new Held());
      roots.get(name)!.add(self);
    });
  }
}
/** What each Lru was given, by key (WeakRefs: what the cache let go and the collector took is not counted). */
const lruValues = new WeakMap<object, Map<unknown, WeakRef<object>>>();
{
  const set = Lru.prototype.set;
  Lru.prototype.set = function (this: Lru<unknown, unknown>, key: unknown, value: unknown, w?: number) {
    let m = lruValues.get(this);
    if (!m) lruValues.set(this, m = new Map());
    if (value && typeof value === "object") m.set(key, new WeakRef(value));
    return set.call(this, key as never, value as never, w);
  } as typeof set;
}

/**
 * Bytes of array buffers reachable from `root` through own data properties, Maps, Sets and arrays (not
 * through closures, promises, getters or #private fields), each buffer counted once over all walks.
 */
function reachable(
  root: unknown,
  seen: WeakSet<object>,
  buffers: WeakSet<ArrayBuffer | SharedArrayBuffer>,
): number {
  let bytes = 0, visited = 0;
  const stack: unknown[] = [root];
  while (stack.length && visited < 5_000_000) {
    const x = stack.pop();
    if (!x || typeof x !== "object") continue;
    if (seen.has(x)) continue;
    seen.add(x);
    visited++;
    if (ArrayBuffer.isView(x)) {
      if (!buffers.has(x.buffer)) {
        buffers.add(x.buffer);
        bytes += x.buffer.byteLength;
      }
      continue;
    }
    if (x instanceof ArrayBuffer) {
      if (!buffers.has(x)) (buffers.add(x), bytes += x.byteLength);
      continue;
    }
    if (x instanceof Map) {
      for (const [k, v] of x) stack.push(k, v);
      const w = lruValues.get(x);
      if (w) { for (const r of w.values()) stack.push(r.deref()); }
    } else if (x instanceof Set) { for (const v of x) stack.push(v); }
    else if (Array.isArray(x)) {
      if (x.length && typeof x[0] !== "object") continue;
      for (const v of x) stack.push(v);
    }
    if (x instanceof Lru) {
      const w = lruValues.get(x);
      if (w) { for (const r of w.values()) stack.push(r.deref()); }
    }
    if (x instanceof WeakRef || x instanceof Promise) continue;
    for (const d of Object.values(Object.getOwnPropertyDescriptors(x))) if ("value" in d) stack.push(d.value);
  }
  return bytes;
}

/** Array buffer bytes each source holds (after a full collection), the first to reach a buffer counting it. */
function retained(): Record<string, number> {
  const seen = new WeakSet<object>(), buffers = new WeakSet<ArrayBuffer | SharedArrayBuffer>();
  const out: Record<string, number> = {};
  // interners first: the Source reaches them too
  out.interners = mb([...interners].reduce((s, i) => s + reachable(i, seen, buffers), 0));
  for (const [name, set] of roots) {
    out[name] = mb([...set].reduce((s, r) => s + reachable(r, seen, buffers), 0));
  }
  return out;
}
function census() {
  const lru = [...lrus].filter((l) => l.used > 1e6 || l.capacity > 1e6);
  return {
    budgets_mb: [...budgets].map((b) => ({
      capacity: mb(b.capacity),
      used: mb(b.used),
      kept: mb(b.keptBytes),
    })),
    lrus_mb: lru.map((l) => ({ capacity: mb(l.capacity), used: mb(l.used), entries: l.size })),
    interners: [...interners].map((i) => {
      const t = i as unknown as { visitorTable: { bytes: number }; sessionTable: { bytes: number } };
      return {
        visitors: i.visitorCount,
        sessions: i.sessionCount,
        mb: mb(t.visitorTable.bytes + t.sessionTable.bytes),
      };
    }),
  };
}

const site = await openBenchSite({
  kv: kvArgument(),
  prefix: "bench-memory-",
  events: EVENTS,
  visitors: VISITORS,
  days: 30,
});
const { clock, t, close } = site;
// --part-cache-mb N: the engine's one budget (PART_CACHE_MB) instead of the default
const PART_CACHE_MB = arg("part-cache-mb", 0);
const makeDeps = () => {
  const d = site.makeDeps();
  return PART_CACHE_MB ? { ...d, config: { ...d.config, partCacheBytes: PART_CACHE_MB * MB } } : d;
};
const gc = (globalThis as { gc?: () => void }).gc;
gc?.();
try {
  await Deno.writeTextFile("/proc/self/clear_refs", "5"); // the peak starts here, not while the site opened
} catch { /* not Linux */ }
const opened = status(), openedHeap = Deno.memoryUsage();
const timer = setInterval(sample, 5);

const ANSWERS = text("answers");
let asked = 0;
async function ask(app: ReturnType<typeof createApp>, tool: string, input: Record<string, unknown>) {
  const t0 = performance.now();
  const res = await app.request(`/v1/read/${tool}`, {
    method: "POST",
    headers: { authorization: `Bearer ${t.readKey}`, "content-type": "application/json" },
    body: JSON.stringify(input),
  });
  const body = await res.text();
  const ms = performance.now() - t0;
  if (!res.ok) throw new Error(`${tool}: ${res.status} ${body}`);
  if (ANSWERS) {
    const name = `${String(++asked).padStart(2, "0")}_${tool}${input.metric ? `_${input.metric}` : ""}.json`;
    await Deno.writeTextFile(`${ANSWERS}/${name}`, body);
  }
  sample();
  return ms;
}

const ALLOCS = Deno.args.includes("--allocs");
const GC_BETWEEN = Deno.args.includes("--gc-between") && !!gc;
/**
 * With --gc-between, a tool's row also says what it left (measured after the collection that follows it):
 * heap and array buffers still live, and the buffers it left dead (at its end, before the collection). A
 * buffer that lives through two young-generation collections (V8 runs them as buffers are made) waits for a
 * full one, which V8 runs as the JS heap grows, not as buffers do: those left dead pile up across questions.
 */
function leftBehind(row: Record<string, unknown>) {
  const m = Deno.memoryUsage();
  row.live_heap_after_gc_mb = mb(m.heapUsed);
  row.live_external_after_gc_mb = mb(m.external);
  row.dead_external_left_mb = (row.external_after_mb as number) - mb(m.external);
}
/**
 * --fresh: as bench/tools.ts asks, a fresh engine per tool (the last one's caches left to the collector) and
 * first the reference question (events over 30 days) on an engine of its own; else one engine for all.
 */
const FRESH = Deno.args.includes("--fresh");
if (FRESH) {
  const { createEngine } = await import("../lib/query/api.ts");
  const engine = createEngine(makeDeps());
  const scope = {
    org: t.org,
    env: "production" as const,
    touchpoint: t.touchpoint,
    from: clock.now() - 30 * 86_400_000,
    to: clock.now(),
    timezone: "UTC",
  };
  for (let i = 0; i <= WARM; i++) await engine.aggregate(scope, { metrics: ["events"] });
}
if (ALLOCS) installAllocSites();
const only = new Set((text("only") ?? QUESTIONS.map(([n]) => n).join()).split(","));
const rows: Record<string, unknown>[] = [];
let highest = 0; // the process's peak over the tools (each tool starts the kernel's peak over)
let app = createApp(makeDeps()); // one fresh engine for the tools asked: an empty part cache
const COHORT_ONLY = Deno.args.includes("--cohort-only");
for (const [tool, input] of QUESTIONS.filter(([name, i]) => only.has(name) && (!COHORT_ONLY || i.cohort))) {
  if (FRESH) app = createApp(makeDeps());
  // --gc-between: the last tool's garbage (its engine too, with --fresh) collected before the next asks;
  // what is left is what the last tool added to live data, the rest it left dead for the collector
  if (GC_BETWEEN) {
    (gc!(), await new Promise((r) => setTimeout(r, 100)), gc!());
    if (rows.length) leftBehind(rows[rows.length - 1]);
  }
  // this tool's own peaks: the resident peak starts over at the current resident set, the sampled ones at 0
  const before = status();
  try {
    await Deno.writeTextFile("/proc/self/clear_refs", "5");
  } catch { /* not Linux */ }
  const own = { anon: 0, external: 0, heapTotal: 0 };
  toolPeak = own;
  if (ALLOCS) startAllocSites();
  const cold = await ask(app, tool, input);
  const coldSites = ALLOCS ? allocSites() : undefined;
  const warm: number[] = [];
  if (ALLOCS) startAllocSites();
  for (let i = 0; i < WARM; i++) warm.push(await ask(app, tool, input));
  // with --fresh, as bench/tools.ts: the overview and pages asked again at a new "now" each time (1 s later)
  if (FRESH && (tool === "behavior_overview" || tool === "behavior_pages")) {
    for (let i = 0; i < WARM; i++) (clock.advance(1_000), await ask(app, tool, input));
  }
  const warmSites = ALLOCS ? allocSites() : undefined;
  if (!FRESH) clock.advance(1_000);
  const end = status(), m = Deno.memoryUsage();
  highest = Math.max(highest, end.hwm);
  rows.push({
    tool: input.metric ? `${tool} (${input.metric})` : input.cohort ? `${tool} (cohort)` : tool,
    cold_ms: Math.round(cold),
    warm_ms: Math.round(median(warm)),
    rss_before_mb: mb(before.rss),
    rss_after_mb: mb(end.rss),
    peak_rss_mb: mb(end.hwm),
    peak_anon_mb: mb(own.anon),
    peak_external_mb: mb(own.external),
    peak_heap_total_mb: mb(own.heapTotal),
    heap_used_after_mb: mb(m.heapUsed),
    external_after_mb: mb(m.external),
    // the most one question had counted as its own working memory so far (lib/working_memory.ts), and what
    // is still counted once the tool answered (0 unless a question failed to let go)
    working_peak_mb: Math.round(app.ctx.engine.workingMemory().peakQuestion / MB * 10) / 10,
    working_held_after: app.ctx.engine.workingMemory().held,
    ...(ALLOCS ? { cold_alloc_sites: coldSites, warm_alloc_sites: warmSites } : {}),
  });
}
clearInterval(timer);
sample();
const end = status();
let live: Record<string, unknown> | null = null;
if (gc) {
  // array buffers a collection finds dead are freed by a sweeper that runs after it: two collections
  // with pauses between, so what is left is live
  for (let i = 0; i < 2; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 200));
  }
  const m = Deno.memoryUsage(), s = status();
  if (GC_BETWEEN && rows.length) leftBehind(rows[rows.length - 1]);
  live = {
    heap_used_mb: mb(m.heapUsed),
    external_mb: mb(m.external),
    rss_mb: mb(s.rss),
    anon_mb: mb(s.anon),
  };
  Object.assign(live, { buffers_mb_by_holder: retained() });
  if (Deno.args.includes("--trim")) {
    // glibc's malloc keeps freed memory for reuse; what trimming gives back was free, not live
    const libc = Deno.dlopen("libc.so.6", { malloc_trim: { parameters: ["usize"], result: "i32" } });
    libc.symbols.malloc_trim(0n);
    libc.close();
    Object.assign(live, { anon_mb_after_malloc_trim: mb(status().anon) });
  }
}
const out = {
  events: EVENTS,
  label: text("label"),
  load: Deno.loadavg(),
  opened: {
    rss_mb: mb(opened.rss),
    anon_mb: mb(opened.anon),
    file_mb: mb(opened.file),
    heap_used_mb: mb(openedHeap.heapUsed),
    external_mb: mb(openedHeap.external),
  },
  peak: {
    rss_mb: mb(Math.max(highest, end.hwm)),
    anon_mb: mb(peak.anon),
    file_mb: mb(peak.file),
    heap_used_mb: mb(peak.heapUsed),
    heap_total_mb: mb(peak.heapTotal),
    external_mb: mb(peak.external),
  },
  live_after_gc: live,
  census: census(),
  tools: rows,
};
console.log(JSON.stringify(out));
const json = text("json");
if (json) await Deno.writeTextFile(json, JSON.stringify(out, null, 2) + "\n");
await close();
