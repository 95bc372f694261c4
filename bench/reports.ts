/**
 * A weekly report of the generated site (1,000,000 events unless --events), end to end: claim, every tool call through the
 * tools pipeline, findings, summary, store. Cold: a fresh app (empty part cache); warm: the median of
 * --warm more runs on the same app (the stored report is deleted between runs, so each run generates).
 *   deno run -A bench/reports.ts [--kv file] [--warm 3] [--events 1000000] [--visitors 100000]
 * The site is bench/tools.ts's (same generator, seed and clock); with --kv a file that bench/tools.ts
 * built with --kv is reused. Target (issue 21): a weekly report in at most 5 s.
 * Reference, same run: behavior_overview for the report's week, cold and warm, through the read API; the
 * report is also given as a ratio to it.
 * Writes bench/results/reports.json.
 */
import { createApp } from "../app.ts";
import { keys } from "../lib/store/keys.ts";
import { getOrg, getTouchpoint } from "../lib/tenancy/admin.ts";
import { generateNow } from "../pipeline/reports_generate.ts";
import { lastClosedPeriod } from "../lib/reports/periods.ts";
import { kvArgument, openBenchSite } from "./site.ts";
import { benchRun } from "./results.ts";

const arg = (name: string, d: number) => {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Number(Deno.args[i + 1]) : d;
};
const WARM = arg("warm", 3);
const TARGET_MS = 5000;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const run = benchRun();
const { kv, clock, makeDeps, t, events, close } = await openBenchSite({
  kv: kvArgument(),
  prefix: "bench-reports-",
  events: arg("events", 1_000_000),
  visitors: arg("visitors", 100_000),
  days: 30,
});

const deps0 = makeDeps();
const org = await getOrg(deps0, t.org);
const touchpoint = await getTouchpoint(deps0, t.org, t.touchpoint);
const period = lastClosedPeriod("weekly", clock.now(), org.timezone);

async function overview(app: ReturnType<typeof createApp>): Promise<number> {
  const t0 = performance.now();
  const res = await app.request("/v1/read/behavior_overview", {
    method: "POST",
    headers: { authorization: `Bearer ${t.readKey}`, "content-type": "application/json" },
    body: JSON.stringify({ period: period.period }),
  });
  await res.text();
  if (!res.ok) throw new Error(`behavior_overview: ${res.status}`);
  return performance.now() - t0;
}

let findings = 0;
async function report(app: ReturnType<typeof createApp>): Promise<number> {
  // a report is stored once: remove it so this run generates again
  for await (const e of kv.list({ prefix: keys.reports(t.org, "production") })) await kv.delete(e.key);
  const t0 = performance.now();
  const g = await generateNow(app.ctx, org, touchpoint, "weekly");
  const ms = performance.now() - t0;
  if (g.state !== "created") throw new Error(`report not generated: ${g.state}`);
  findings = g.report.findings.length;
  return ms;
}

const refApp = createApp(makeDeps());
const refCold = await overview(refApp);
const refWarm: number[] = [];
for (let i = 0; i < WARM; i++) refWarm.push(await overview(refApp));

const app = createApp(makeDeps()); // a fresh engine: an empty part cache
const cold = await report(app);
const warm: number[] = [];
for (let i = 0; i < WARM; i++) warm.push(await report(app));

const row = {
  period: period.period,
  findings,
  cold_ms: Math.round(cold),
  warm_ms: Math.round(median(warm)),
  reference_overview_cold_ms: Math.round(refCold),
  reference_overview_warm_ms: Math.round(median(refWarm)),
  cold_vs_reference_cold: Math.round((cold / refCold) * 10) / 10,
  warm_vs_reference_warm: Math.round((median(warm) / median(refWarm)) * 10) / 10,
  target_ms: TARGET_MS,
  ok: cold <= TARGET_MS,
};
console.log(
  `weekly report ${period.period} (${findings} findings): cold ${row.cold_ms} ms, warm ${row.warm_ms} ms ` +
    `(target ${TARGET_MS} ms) ${
      row.ok ? "OK" : "MISSED"
    }; behavior_overview for the week: cold ${row.reference_overview_cold_ms} ms, ` +
    `warm ${row.reference_overview_warm_ms} ms; ratios ${row.cold_vs_reference_cold}x cold, ${row.warm_vs_reference_warm}x warm`,
);
await run.write("reports", { events, ...row });
await close();
