/**
 * The generated, compacted site the read benches ask (bench/tools.ts, bench/reports.ts): one generator,
 * seed and clock, so both measure the same data. With `kv` (a file) the site is kept there under one meta
 * key and reused by later runs of either bench; without it a temporary KV file is removed by `close()`.
 * `benchDeps` is how every read bench (bench/read.ts too) builds its deps.
 */
import { createApp } from "../app.ts";
import { defaultConfig } from "../lib/config.ts";
import type { Deps } from "../lib/deps.ts";
import { noGeo } from "../lib/deps.ts";
import { type Clock, FakeClock } from "../lib/clock.ts";
import { consoleLog } from "../lib/log.ts";
import { compact } from "../lib/jobs/compact.ts";
import { backfillRollups } from "../lib/jobs/rollup_backfill.ts";
import { backfillHitRollups } from "../lib/jobs/hit_rollup_backfill.ts";
import { backfillVitals } from "../lib/jobs/vitals_backfill.ts";
import { backfillPropRollups } from "../lib/jobs/prop_rollup_backfill.ts";
import { backfillFeatureTables } from "../lib/jobs/feature_rollup_backfill.ts";
import { backfillStepColumns } from "../lib/jobs/step_column_backfill.ts";
import { generateSite } from "../lib/demo/site.ts";
import { keys } from "../lib/store/keys.ts";
import { createTenant } from "../tests/helpers/tenant.ts";

export type Tenant = Awaited<ReturnType<typeof createTenant>>;

export interface BenchSiteOptions {
  /** A KV file to keep the site in and reuse (`--kv`), or null for a temporary one. */
  kv: string | null;
  /** Prefix of the temporary folder. */
  prefix: string;
  events: number;
  visitors: number;
  days: number;
}

export const ADMIN = "bench-admin-token-0123456789";
const log = (...a: unknown[]) => console.error(...a);

/** Deps over a bench's KV and clock: no geo, DNS or network, errors-only log, no per-minute read limit to speak of.
 * Each call is a new object, so `createEngine` on it is a new engine with an empty part cache (a cold start). */
export const benchDeps = (kv: Deno.Kv, clock: Clock): Deps => ({
  kv,
  clock,
  geo: noGeo,
  dns: {
    reverse: () => Promise.resolve([]),
    forward: () => Promise.resolve([]),
    txt: () => Promise.resolve([]),
  },
  fetch: () => Promise.reject(new Error("offline")),
  config: { ...defaultConfig, adminToken: ADMIN, readKeyRatePerMinute: 1_000_000 },
  log: consoleLog("error"),
});

export async function openBenchSite(o: BenchSiteOptions) {
  const dir = o.kv ? null : await Deno.makeTempDir({ prefix: o.prefix });
  const kv = await Deno.openKv(o.kv ?? `${dir}/kv.sqlite3`);
  const clock = new FakeClock(Date.parse("2026-11-20T12:00:00Z"));
  const makeDeps = () => benchDeps(kv, clock);

  const build = async (): Promise<{ t: Tenant; events: number }> => {
    const t = await createTenant(createApp(makeDeps()), ADMIN, { plan: "enterprise" });
    log(`generating ${o.events} events, ${o.visitors} visitors, ${o.days} days`);
    const gen = await generateSite(makeDeps(), {
      org: t.org,
      touchpoint: t.touchpoint,
      host: t.domain,
      events: o.events,
      visitors: o.visitors,
      days: o.days,
      seed: 1,
      end: clock.now() - 60_000,
      direct: true, // parts written straight, as compaction would leave them (10M events in minutes)
      dedupeKeys: false, // no import follows: KV writes of 10M dedupe keys would dominate
    });
    const c0 = performance.now();
    await compact(makeDeps(), t.org, "production", "ev", { graceMs: 0 });
    await compact(makeDeps(), t.org, "production", "hit", { graceMs: 0 });
    log(`written in ${gen.write_ms} ms, compacted in ${Math.round(performance.now() - c0)} ms`);
    return { t, events: gen.events };
  };

  const kept = (await kv.get<{ t: Tenant; events: number }>(keys.meta("bench_tools_site"))).value;
  const { t, events } = kept ?? await build();
  if (!kept && o.kv) await kv.set(keys.meta("bench_tools_site"), { t, events });
  // a site kept from before rollups (or tables) gets them as a deployment's backfills would give them (all at
  // once here)
  const backfills = [
    ["rollups", backfillRollups],
    ["hit rollups", backfillHitRollups],
    ["Web Vitals tables", backfillVitals],
    ["property rollups", backfillPropRollups],
    ["feature tables", backfillFeatureTables],
    ["step columns", backfillStepColumns],
  ] as const;
  for (const [what, backfill] of backfills) {
    const t0 = performance.now();
    let filled = 0;
    for (;;) {
      const r = await backfill(makeDeps(), t.org, "production", { maxParts: 1_000, budgetMs: 600_000 });
      filled += r.parts;
      if (r.remaining === 0) break;
    }
    if (filled) {
      log(`${what} for ${filled} parts written before them: ${Math.round(performance.now() - t0)} ms`);
    }
  }

  const close = async () => {
    kv.close();
    if (dir) await Deno.remove(dir, { recursive: true });
  };
  return { kv, clock, makeDeps, t, events, close };
}

/** The `--kv` argument of a bench, when given. */
export function kvArgument(): string | null {
  const i = Deno.args.indexOf("--kv");
  return i >= 0 ? Deno.args[i + 1] : null;
}
