/**
 * The event-properties tool's engine questions (the keys of an event, then each shown key's values with
 * visitors and events) from property rollups (lib/query/prop_rollup/) or by the engine's scan, on a kept
 * bench site (a copy: the backfill writes to it). Run the paths in separate processes, so each one's RSS is
 * its own; each writes its answers to compare.
 *   deno run -A bench/prop_rollup.ts --kv copy.sqlite3 --mode backfill
 *   deno run -A bench/prop_rollup.ts --kv copy.sqlite3 --mode planner|scan [--events N] [--warm 3]
 *     [--cache-mb 16] [--only purchase,sign_up] [--answers out.json]
 * Figures go to stdout as JSON lines (cold: a new engine or planner with empty caches; warm: median).
 */
import type { AggregateOptions, EventField, Scope } from "../lib/query/api.ts";
import { createEngine, startOfLocalDay } from "../lib/query/api.ts";
import { Source } from "../lib/query/columns/source.ts";
import { propAnswers } from "../lib/query/prop_rollup/planner.ts";
import { backfillPropRollups } from "../lib/jobs/prop_rollup_backfill.ts";
import { listParts } from "../lib/parts/store.ts";
import { type PropRollupEntry, propRollupKeys } from "../lib/query/prop_rollup/store.ts";
import { kvArgument, openBenchSite } from "./site.ts";

const opt = (name: string) => {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Deno.args[i + 1] : undefined;
};
const EVENTS = Number(opt("events") ?? 10_000_000), WARM = Number(opt("warm") ?? 3);
const MODE = opt("mode") ?? "planner";
const CACHE = Number(opt("cache-mb") ?? 16) * 1024 * 1024;
const ONLY = (opt("only") ?? "$pageview,$autocapture,purchase,sign_up,$pageleave,$web_vitals").split(",");
const MAX_PROPERTIES = 25; // the tool's

const site = await openBenchSite({
  kv: kvArgument(),
  prefix: "bench-props-",
  events: EVENTS,
  visitors: Math.round(EVENTS / 10),
  days: 30,
});
const { org } = site.t;
const rss = () => Math.round(Deno.memoryUsage().rss / 1e6);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const out = (x: unknown) => console.log(JSON.stringify(x));

if (MODE === "backfill") {
  const t0 = performance.now();
  let parts = 0, bytes = 0;
  for (;;) {
    const r = await backfillPropRollups({ kv: site.kv }, org, "production", {
      maxParts: 16,
      budgetMs: 600_000,
    });
    parts += r.parts;
    bytes += r.bytes;
    console.error(`${parts} parts, ${r.remaining} to go, ${Math.round((performance.now() - t0) / 1000)} s`);
    if (r.remaining === 0) break;
  }
  let stored = 0, rows = 0, tables = 0, events = 0;
  for (const { meta } of await listParts(site.kv, org, "production", "ev")) {
    events += meta.rows;
    const e = (await site.kv.get<PropRollupEntry>(propRollupKeys.entry(meta.id))).value;
    if (!e) continue;
    tables++;
    stored += e.bytes;
    rows += e.rows;
  }
  out({
    mode: MODE,
    parts_written: parts,
    backfill_s: Math.round((performance.now() - t0) / 100) / 10,
    tables,
    rows,
    stored_mb: Math.round(stored / 1e5) / 10,
    bytes_per_event: Math.round((stored / events) * 100) / 100,
    events,
    rss_mb: rss(),
  });
  site.kv.close();
  Deno.exit(0);
}

const now = new Date(site.clock.now());
const today = startOfLocalDay(
  { y: now.getUTCFullYear(), m: now.getUTCMonth() + 1, d: now.getUTCDate() },
  "Europe/Berlin",
);
const scopeOf = (event: string): Scope => ({
  org,
  env: "production",
  touchpoint: site.t.touchpoint,
  from: today - 29 * 86_400_000,
  to: site.clock.now(),
  timezone: "Europe/Berlin",
  traffic: ["human"],
  filters: [{ field: "event_type", op: "eq", value: event }],
});

interface Asker {
  keys(s: Scope, e: string): Promise<{ key: string; events: number; visitors: number }[] | null>;
  aggregate(s: Scope, os: AggregateOptions[]): Promise<unknown[] | null>;
  read?: () => number;
}

function asker(): Asker {
  if (MODE === "scan") {
    const engine = createEngine(site.makeDeps());
    return {
      keys: (s, e) => engine.propertyKeys(s, e),
      aggregate: (s, os) => engine.aggregateMany(s, os),
    };
  }
  const deps = site.makeDeps();
  const p = propAnswers(deps, new Source(deps), CACHE);
  return { keys: (s, e) => p.keys(s, e), aggregate: (s, os) => p.aggregate(s, os), read: () => p.bytesRead };
}

/** The tool's two engine calls for one event; answers them. */
async function toolQuestions(a: Asker, event: string) {
  const s = scopeOf(event);
  const keys = await a.keys(s, event);
  if (!keys) throw new Error(`the planner declined the keys of ${event}`);
  const asks: AggregateOptions[] = keys.slice(0, MAX_PROPERTIES).map((k) => ({
    metrics: ["visitors", "events"],
    breakdown: [`prop:${k.key}` as EventField],
  }));
  const values = asks.length ? await a.aggregate(s, asks) : [];
  if (!values) throw new Error(`the planner declined the values of ${event}`);
  return { keys, values };
}

const answers: Record<string, unknown> = {};
const load = () => Deno.loadavg().map((x) => Math.round(x * 10) / 10).join(" ");
for (const event of ONLY) {
  const a = asker();
  const t0 = performance.now();
  const cold = await toolQuestions(a, event);
  const coldMs = performance.now() - t0;
  const coldRead = a.read?.() ?? null;
  const warm: number[] = [];
  for (let i = 0; i < WARM; i++) {
    const t1 = performance.now();
    await toolQuestions(a, event);
    warm.push(performance.now() - t1);
  }
  answers[event] = cold;
  out({
    mode: MODE,
    events: EVENTS,
    event,
    keys: cold.keys.length,
    cold_ms: Math.round(coldMs),
    warm_ms: Math.round(median(warm)),
    warm_all_ms: warm.map(Math.round),
    kv_read_cold_mb: coldRead === null ? null : Math.round(coldRead / 1e5) / 10,
    rss_mb: rss(),
    load: load(),
  });
}
const file = opt("answers");
if (file) await Deno.writeTextFile(file, JSON.stringify(answers));
site.kv.close();
