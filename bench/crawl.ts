/**
 * Crawler-hit ingest throughput and latency, beside a bare KV write loop measured in the same run.
 *   deno run -A bench/crawl.ts [--hits 50000] [--concurrency 8] [--rounds 5] [--drain-s 15]
 * The endpoint runs in the real server process (loopback, local KV file, verification jobs as main.ts
 * registers them); the reference does `check + set` per hit (dedupe key + raw hit) with the same batching
 * (100) and concurrency on its own KV file. Target: endpoint ≥ 0.8 × bare loop hits/s. The two alternate in
 * rounds (bare, endpoint, bare, …) so a busy machine slows both alike; rates are total hits over total time.
 * p99 is given at full load (CONC requests in flight) and at half the measured throughput, paced.
 * Hits use addresses from the vendors' published lists, so verification needs no DNS.
 */
import { startServer } from "../tests/helpers/server.ts";
import { createTenant } from "../tests/helpers/tenant.ts";

const arg = (name: string, d: number) => {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Number(Deno.args[i + 1]) : d;
};
const TOTAL = arg("hits", 50_000);
const CONC = arg("concurrency", 8);
const ROUNDS = arg("rounds", 5);
const BATCH = 100;

const AGENTS: [string, string][] = [
  [
    "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.3; +https://openai.com/gptbot",
    "20.171.206.",
  ],
  ["Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "66.249.66."],
  [
    "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)",
    "216.73.216.",
  ],
  ["Mozilla/5.0 (compatible; Bytespider; spider-feedback@bytedance.com)", "203.0.113."],
];

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

function makeBatch(i: number) {
  const now = new Date().toISOString();
  return Array.from({ length: BATCH }, (_, j) => {
    const [ua, net] = AGENTS[(i + j) % AGENTS.length];
    return {
      event_type: "$crawl",
      event_id: crypto.randomUUID(),
      timestamp: now,
      host: "acme.test",
      path: j % 20 === 0 ? "/robots.txt" : `/docs/page-${(i * BATCH + j) % 2000}`,
      method: "GET",
      status: 200,
      user_agent: ua,
      ip: net + ((i + j) % 250 + 1),
      referer_host: null,
    };
  });
}

async function bareLoop(kv: Deno.Kv, batches: number): Promise<number> {
  const bodies = Array.from({ length: batches }, (_, i) => makeBatch(i));
  let next = 0;
  const start = performance.now();
  await Promise.all(Array.from({ length: CONC }, async () => {
    while (next < batches) {
      const i = next++;
      const op = kv.atomic();
      for (const h of bodies[i]) {
        op.check({ key: ["dedupe", "org", h.event_id], versionstamp: null })
          .set(["dedupe", "org", h.event_id], 1)
          .set(["raw_hit", "org", "production", Date.now(), h.event_id], h);
      }
      await op.commit();
    }
  }));
  return (performance.now() - start) / 1000;
}

async function endpoint(
  url: string,
  key: string,
  batches: number,
  latencies: number[],
  batchesPerS?: number,
) {
  const bodies = Array.from({ length: batches }, (_, i) => JSON.stringify({ events: makeBatch(i) }));
  let next = 0, failures = 0;
  const start = performance.now();
  await Promise.all(Array.from({ length: CONC }, async () => {
    while (next < batches) {
      const i = next++;
      if (batchesPerS) {
        const wait = start + (i / batchesPerS) * 1000 - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
      const t0 = performance.now();
      const res = await fetch(`${url}/v1/behavior/server-events`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
        body: bodies[i],
      });
      const body = await res.json();
      if (res.status !== 202 || body.accepted !== BATCH) failures++;
      latencies.push(performance.now() - t0);
    }
  }));
  return { secs: (performance.now() - start) / 1000, failures };
}

const perRound = Math.ceil(TOTAL / BATCH / ROUNDS);
const srv = await startServer({ env: { SERVER_KEY_RATE_PER_MINUTE: "100000000" } });
const dir = await Deno.makeTempDir();
const refKv = await Deno.openKv(`${dir}/ref.sqlite3`);
try {
  const t = await createTenant({ request: (p, i) => fetch(srv.url + p, i) }, srv.adminToken);
  await endpoint(srv.url, t.serverKey, 20, []); // warm-up
  await bareLoop(refKv, 20);
  let bareSecs = 0, endpointSecs = 0, failures = 0;
  const latencies: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    bareSecs += await bareLoop(refKv, perRound);
    const e = await endpoint(srv.url, t.serverKey, perRound, latencies);
    endpointSecs += e.secs;
    failures += e.failures;
  }
  const hits = perRound * ROUNDS * BATCH;
  const bare = hits / bareSecs, full = hits / endpointSecs;
  // latency at half the measured throughput, paced, once the server's verification backlog from the
  // full-load rounds has drained (verification runs after the response, on the same KV)
  await new Promise((r) => setTimeout(r, arg("drain-s", 15) * 1000));
  const halfLatencies: number[] = [];
  // as many batches as all full-load rounds together (~10 s): p99 is then the 5th slowest, not the 1st
  const half = await endpoint(srv.url, t.serverKey, perRound * ROUNDS, halfLatencies, full / BATCH / 2);
  failures += half.failures;
  const result = {
    bench: "crawler-hit ingest",
    batch: BATCH,
    concurrency: CONC,
    rounds: ROUNDS,
    hits,
    bare_kv_hits_per_s: Math.round(bare),
    endpoint_hits_per_s: Math.round(full),
    ratio: Number((full / bare).toFixed(3)),
    target_ratio: 0.8,
    p50_ms: Number(pct(latencies, 50).toFixed(2)),
    p99_ms: Number(pct(latencies, 99).toFixed(2)),
    p50_ms_half_load: Number(pct(halfLatencies, 50).toFixed(2)),
    p90_ms_half_load: Number(pct(halfLatencies, 90).toFixed(2)),
    p99_ms_half_load: Number(pct(halfLatencies, 99).toFixed(2)),
    failures,
    load_average: Deno.loadavg()[0],
  };
  console.table(result);
  await Deno.mkdir(new URL("./results/", import.meta.url), { recursive: true });
  await Deno.writeTextFile(
    new URL("./results/crawl.json", import.meta.url),
    JSON.stringify(result, null, 2) + "\n",
  );
} finally {
  refKv.close();
  await Deno.remove(dir, { recursive: true });
  await srv.stop();
}
