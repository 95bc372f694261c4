/**
 * The rollup path over a large raw tail: a large site's aggregates come from rollups (its parts do not fit the
 * part cache), and each question adds the raw tail's rollup. Asks overview-like questions over a site with
 * `--parts` events in parts (written straight) and `--sizes` raw events (not compacted), three times a size,
 * straight through RollupSource (what the engine calls when the site does not fit), with a 5 ms timer
 * running meanwhile: each ask's time and the longest the timer waited (the event loop held).
 *   deno run -A bench/rollup_tail.ts [--sizes 40000] [--parts 100000] [--asks 3]
 */
import { createApp } from "../app.ts";
import { systemClock } from "../lib/clock.ts";
import { defaultConfig } from "../lib/config.ts";
import type { Deps } from "../lib/deps.ts";
import { generateSite } from "../lib/demo/site.ts";
import { memoryLog } from "../lib/log.ts";
import { Source } from "../lib/query/columns/source.ts";
import { RollupSource } from "../lib/query/rollup/source.ts";
import type { AggregateOptions, Scope } from "../lib/query/types.ts";
import { FakeDns, fakeGeo } from "../tests/helpers/deps.ts";
import { createTenant } from "../tests/helpers/tenant.ts";

const ADMIN = "bench-admin-token-0123456789";
const opt = (name: string, d: string) => {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Deno.args[i + 1] : d;
};
const SIZES = opt("sizes", "40000").split(",").map(Number);
const PARTS = Number(opt("parts", "100000"));
const ASKS = Number(opt("asks", "3"));
const HOUR = 3_600_000;

const questions: AggregateOptions[] = [
  { metrics: ["pageviews", "visitors", "sessions", "bounce_rate"] },
  { metrics: ["pageviews", "visitors"], breakdown: ["page"], limit: 10 },
  { metrics: ["visitors"], breakdown: ["channel"], limit: 10 },
];

for (const n of SIZES) {
  const dir = await Deno.makeTempDir({ prefix: "rollup-tail-" });
  const kv = await Deno.openKv(`${dir}/site.sqlite3`);
  const deps = {
    kv,
    clock: systemClock,
    geo: fakeGeo,
    dns: new FakeDns(),
    fetch: () => Promise.reject(new Error("offline")),
    config: { ...defaultConfig, adminToken: ADMIN, kvPath: "" },
    log: memoryLog(),
  } as Deps;
  const t = await createTenant(createApp(deps), ADMIN, { domain: "acme.test", plan: "enterprise" });
  const end = Math.floor(Date.now() / HOUR) * HOUR;
  const site = { org: t.org, touchpoint: t.touchpoint, host: "acme.test", days: 6, end };
  if (PARTS) {
    await generateSite(deps, {
      ...site,
      events: PARTS,
      hits: 0,
      seed: 3,
      end: end - 7 * 24 * HOUR,
      direct: true,
    });
  }
  await generateSite(deps, { ...site, events: n, hits: 0, seed: 7, compact: false });
  const rollups = new RollupSource(deps, new Source(deps), 80 * 1024 * 1024);
  const s: Scope = { org: t.org, env: "production", from: end - 14 * 24 * HOUR, to: end, timezone: "UTC" };
  for (let a = 0; a < ASKS; a++) {
    let last = performance.now(), held = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      held = Math.max(held, now - last);
      last = now;
    }, 5);
    const t0 = performance.now();
    const got = await rollups.answer(s, questions);
    const ms = performance.now() - t0;
    clearInterval(timer);
    const path = got.every((r) => r !== null) ? "rollups" : "scan (rollups declined)";
    console.log(
      `raw ${n} + parts ${PARTS}: ask ${a + 1} ${Math.round(ms)} ms, timer held up to ${
        Math.round(held)
      } ms, ${path}, tail builds ${
        (rollups as unknown as { tailBuilds?: number }).tailBuilds ?? "(not counted)"
      }`,
    );
  }
  kv.close();
  await Deno.remove(dir, { recursive: true });
}
