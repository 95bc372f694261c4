/**
 * Opens a kept bench site (`--kv FILE --events N --visitors N`) and runs its backfills, nothing else: a copy of a
 * kept site gets a new table version's rows before a timed run.
 */
import { kvArgument, openBenchSite } from "./site.ts";

const arg = (name: string, d: number) => {
  const i = Deno.args.indexOf(name);
  return i >= 0 ? Number(Deno.args[i + 1]) : d;
};
const t0 = performance.now();
const site = await openBenchSite({
  kv: kvArgument(),
  prefix: "open-site-",
  events: arg("--events", 1_000_000),
  visitors: arg("--visitors", 100_000),
  days: 30,
});
console.log(`opened (backfills done) in ${Math.round(performance.now() - t0)} ms`);
site.kv.close();
