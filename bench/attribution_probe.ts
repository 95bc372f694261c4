/**
 * Times the attribution questions (behavior_sources' batch, the referral section's two) on a kept bench site
 * straight against the rollups (`--kv FILE --events N --visitors N`): cold (a new source) and warm, and says
 * whether each was answered from rollups. `--first`: explain-a-change's attribution questions instead (the
 * facts' first events, first_touch.ts): by visitor, by session, by visitor with a goal, each cold then warm,
 * with the KV bytes read.
 */
import process from "node:process";
import { kvArgument, openBenchSite } from "./site.ts";
import { Source } from "../lib/query/columns/source.ts";
import { RollupSource } from "../lib/query/rollup/source.ts";
import { createEngine } from "../lib/query/api.ts";
import type { AggregateOptions, EventField, Metric, Scope } from "../lib/query/api.ts";
import type { AttributionOptions } from "../lib/query/sequence_types.ts";

const arg = (name: string, d: number) => {
  const i = Deno.args.indexOf(name);
  return i >= 0 ? Number(Deno.args[i + 1]) : d;
};
const site = await openBenchSite({
  kv: kvArgument(),
  prefix: "attr-probe-",
  events: arg("--events", 1_000_000),
  visitors: arg("--visitors", 100_000),
  days: 30,
});
const day = 86_400_000;
const to = Math.floor(site.clock.now() / day) * day;
const scope: Scope = {
  org: site.t.org,
  env: "production",
  from: to - 30 * day,
  to,
  timezone: "UTC",
  // as the tools ask: their touchpoint, people
  ...(Deno.args.includes("--engine") || Deno.args.includes("--tp")
    ? { touchpoint: site.t.touchpoint, traffic: ["human"] }
    : {}),
};
const sections: EventField[][] = [["channel"], ["channel", "source"], ["utm_campaign"], ["referrer_host"], [
  "source",
]];
const metrics: Metric[] = ["visitors", "sessions", "conversions", "conversion_rate"];
const batches: [string, Scope, AggregateOptions[]][] = [
  ["sources", scope, sections.map((b) => ({ metrics, breakdown: b, goal: { event_type: "sign_up" } }))],
  [
    "sources previous",
    { ...scope, from: scope.from - 30 * day, to: scope.from },
    sections.map((b) => ({ metrics: ["visitors"], breakdown: b })),
  ],
  ["referral visitors", { ...scope, filters: [{ field: "channel", op: "eq", value: "AI Assistant" }] }, [{
    metrics: ["visitors"],
    breakdown: ["source"],
  }]],
  ["referral entries", {
    ...scope,
    filters: [{ field: "channel", op: "eq", value: "AI Assistant" }, {
      field: "event_type",
      op: "eq",
      value: "$pageview",
    }],
  }, [{ metrics: ["visitors"], breakdown: ["source", "entry_page"] }]],
];
const deps = site.makeDeps();
const rollups = new RollupSource(deps, new Source(deps));
if (Deno.args.includes("--first")) {
  const fields: AttributionOptions["fields"] = [
    "channel",
    "source",
    "page",
    "country",
    "device_type",
    "browser",
  ];
  const asks: [string, AttributionOptions][] = [
    ["by visitor", { fields, unit: "visitor" }],
    ["by session", { fields, unit: "session" }],
    ["by visitor, goal", { fields, unit: "visitor", goal: { event_type: "sign_up" } }],
  ];
  const s: Scope = { ...scope, touchpoint: site.t.touchpoint, traffic: ["human"] };
  for (const [name, o] of asks) {
    for (const round of ["cold", "warm"]) {
      const t0 = performance.now(), read = rollups.bytesRead, cpu = process.cpuUsage();
      const got = await rollups.attribution(s, o);
      const used = process.cpuUsage(cpu);
      console.log(
        `${round} ${name}: ${Math.round(performance.now() - t0)} ms (CPU ${
          Math.round((used.user + used.system) / 1000)
        } ms), ${got ? `${got.units} units` : "scan"}, ` +
          `${((rollups.bytesRead - read) / 1e6).toFixed(1)} MB read`,
      );
    }
  }
  console.log(`peak-ish RSS ${Math.round(Deno.memoryUsage().rss / 1e6)} MB`);
  site.kv.close();
  Deno.exit(0);
}
const engine = Deno.args.includes("--engine") ? createEngine(deps) : null;
for (let round = 0; round < 3; round++) {
  for (const [name, s, os] of batches) {
    const t0 = performance.now(), read = rollups.bytesRead, cpu = process.cpuUsage();
    // --engine: through the engine (its routing and its share of the budget), as a tool asks
    const got = engine ? await engine.aggregateMany(s, os) : await rollups.answer(s, os);
    const used = process.cpuUsage(cpu);
    // (CPU and KV bytes: at load the wall time is mostly waiting; bytes are the rollup source's, not the engine's)
    console.log(
      `${round === 0 ? "cold" : "warm"} ${name}: ${Math.round(performance.now() - t0)} ms (CPU ${
        Math.round((used.user + used.system) / 1000)
      } ms, ${((rollups.bytesRead - read) / 1e6).toFixed(1)} MB read), ${
        got.filter((x) => x !== null).length
      }/${os.length} from rollups; rows ${got.map((x) => x?.total_rows ?? "-").join(",")}`,
    );
  }
}
if (Deno.args.includes("--check")) {
  const scan = createEngine(deps);
  for (const [name, s, os] of batches) {
    const a = await rollups.answer(s, os), b = await Promise.all(os.map((o) => scan.aggregate(s, o)));
    console.log(`${name}: equal to the engine's ${JSON.stringify(a) === JSON.stringify(b)}`);
  }
}
console.log(`peak-ish RSS ${Math.round(Deno.memoryUsage().rss / 1e6)} MB`);
site.kv.close();
