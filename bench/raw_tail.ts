/**
 * Reads over a large raw tail (records not compacted yet): each tool's time over N raw events and N raw
 * crawler hits, asked three times in a row, and /healthz latency meanwhile (a probe asks it one request after
 * another while the tools run). The service runs in a child process (this file with --serve) on a local KV
 * file, with no jobs, so nothing compacts the tail during the run.
 *   deno run -A bench/raw_tail.ts [--sizes 10000,40000,65000] [--tools behavior_crawl_coverage,behavior_overview]
 *     [--prof DIR] (the server's CPU profile written there, for `deno run --cpu-prof`'s readers)
 *     [--keep DIR] (the seeded KV files kept there and used again by later runs: a 40k seed takes ~25 s)
 * Hits that a crawler's vendor lets us check are stored `pending` with their outcome under keys.verification,
 * as ingest leaves them before the sweep verifies them.
 */
import { createApp } from "../app.ts";
import { systemClock } from "../lib/clock.ts";
import { defaultConfig } from "../lib/config.ts";
import type { Deps } from "../lib/deps.ts";
import { generateSite } from "../lib/demo/site.ts";
import { memoryLog } from "../lib/log.ts";
import { keys } from "../lib/store/keys.ts";
import type { StoredHit } from "../lib/store/records.ts";
import { FakeDns, fakeGeo } from "../tests/helpers/deps.ts";
import { createTenant } from "../tests/helpers/tenant.ts";

const ADMIN = "bench-admin-token-0123456789";
const opt = (name: string, d: string) => {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Deno.args[i + 1] : d;
};

function depsOn(kv: Deno.Kv): Deps {
  return {
    kv,
    clock: systemClock,
    geo: fakeGeo,
    dns: new FakeDns(),
    fetch: () => Promise.reject(new Error("offline")),
    config: { ...defaultConfig, adminToken: ADMIN, kvPath: "" },
    log: memoryLog(),
  } as Deps;
}

if (Deno.args[0] === "--serve") {
  // the child: the app on the KV file, no cron jobs
  const kv = await Deno.openKv(Deno.args[1]);
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    createApp(depsOn(kv)).fetch,
  );
  Deno.addSignalListener("SIGTERM", () => Deno.exit(0)); // an ordinary exit writes the CPU profile
  console.log(`listening on ${server.addr.port}`);
  await server.finished;
  Deno.exit(0);
}

const SIZES = opt("sizes", "10000,40000,65000").split(",").map(Number);
const TOOLS = opt("tools", "behavior_crawl_coverage,behavior_overview").split(",");
const ASKS = 3;
const PROF = opt("prof", "");
const KEEP = opt("keep", "");

/** An environment with `n` raw events and `n` raw hits, none compacted. */
async function seed(path: string, n: number) {
  const kv = await Deno.openKv(path);
  const deps = depsOn(kv);
  const t = await createTenant(createApp(deps), ADMIN, { domain: "acme.test", plan: "enterprise" });
  await generateSite(deps, {
    org: t.org,
    touchpoint: t.touchpoint,
    host: "acme.test",
    events: n,
    hits: n,
    days: 6,
    seed: 7,
    compact: false,
  });
  // as ingest leaves a checkable hit: pending at arrival, its outcome stored apart once verified
  let pending = 0;
  const op = () => kv.atomic();
  let batch = op(), inBatch = 0;
  for await (const e of kv.list<StoredHit>({ prefix: keys.rawHits(t.org, "production") })) {
    if (e.value.verification !== "verified") continue;
    batch.set(e.key, { ...e.value, verification: "pending" }).set(keys.verification(t.org, e.value.id), {
      outcome: "verified",
      method: "ip_list",
      reason: "bench",
      checked_at: e.value.received_at,
    });
    pending++;
    if (++inBatch >= 200) await batch.commit(), batch = op(), inBatch = 0;
  }
  await batch.commit();
  kv.close();
  return { t, pending };
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))] : NaN;
};
const r = (x: number) => Math.round(x);

const rows: string[] = [];
for (const n of SIZES) {
  const dir = KEEP || await Deno.makeTempDir({ prefix: "raw-tail-" });
  const path = `${dir}/raw${n}.sqlite3`;
  const s0 = performance.now();
  const seeded = KEEP ? await Deno.readTextFile(`${path}.json`).then(JSON.parse).catch(() => null) : null;
  const { t, pending } = seeded ?? await seed(path, n);
  if (KEEP && !seeded) await Deno.writeTextFile(`${path}.json`, JSON.stringify({ t, pending }));
  console.log(
    `${seeded ? "kept" : "seeded"} ${n} events + ${n} hits (${pending} pending) in ${
      r(performance.now() - s0)
    } ms`,
  );
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--unstable-kv",
      ...(PROF ? ["--cpu-prof", `--cpu-prof-dir=${PROF}`] : []),
      new URL(import.meta.url).pathname,
      "--serve",
      path,
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  while (!/listening on \d+/.test(out)) {
    const { value, done } = await lines.read();
    if (done) throw new Error(`server ended: ${out}`);
    out += value;
  }
  const base = `http://127.0.0.1:${out.match(/listening on (\d+)/)![1]}`;
  for (const tool of TOOLS) {
    const times: number[] = [];
    const health: number[] = [];
    let busy = true;
    const probe = (async () => {
      while (busy) {
        const h0 = performance.now();
        await (await fetch(`${base}/healthz`)).body?.cancel();
        health.push(performance.now() - h0);
        await new Promise((res) => setTimeout(res, 20));
      }
    })();
    for (let k = 0; k < ASKS; k++) {
      const q0 = performance.now();
      const res = await fetch(`${base}/v1/read/${tool}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${t.readKey}` },
        body: '{"period":"last_7_days"}',
      });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`${tool}: ${res.status} ${text.slice(0, 300)}`);
      times.push(performance.now() - q0);
    }
    busy = false;
    await probe;
    const line = `${n} raw ${tool}: ${times.map(r).join(" / ")} ms; /healthz meanwhile p50 ${
      r(pct(health, 0.5))
    } p99 ${r(pct(health, 0.99))} max ${r(Math.max(...health))} ms (${health.length} probes)`;
    console.log(line);
    rows.push(line);
  }
  child.kill("SIGTERM");
  await child.status;
  await lines.cancel().catch(() => {});
  if (!KEEP) await Deno.remove(dir, { recursive: true });
}
console.log(`\nload average ${Deno.loadavg().map((x) => x.toFixed(2)).join(" ")}`);
