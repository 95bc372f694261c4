/**
 * Web ingest throughput and latency, beside bare KV write loops measured in the same run.
 *   deno run -A bench/ingest.ts [--events 40000] [--concurrency 8] [--rounds 3]
 * The full endpoint runs in the real server process (loopback, local KV file, geo on); the references
 * (see bareLoop) run with the same batching (20) and concurrency on their own KV files. Rounds alternate
 * reference and endpoint so background load hits both alike; the figures are medians over the rounds.
 * Target (DESIGN.md): full pipeline ≥ 0.8 × the bare loop's events/s; p99 < 50 ms at half that load.
 */
import { startServer } from "../tests/helpers/server.ts";
import { createTenant } from "../tests/helpers/tenant.ts";
import { enrichEvent } from "../lib/ingest/enrich_event.ts";
import { packEvent } from "../lib/store/event_codec.ts";
import type { WebTarget } from "../lib/ingest/enrich_event.ts";
import type { BehaviorEventInput } from "../lib/schemas/events.ts";

const arg = (name: string, d: number) => {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Number(Deno.args[i + 1]) : d;
};
const TOTAL = arg("events", 40_000);
const CONC = arg("concurrency", 8);
const ROUNDS = arg("rounds", 3);
const BATCH = 20;

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

function makeBatch(i: number) {
  const now = new Date().toISOString();
  return Array.from({ length: BATCH }, (_, j) => ({
    event_id: crypto.randomUUID(),
    anonymous_id: `anon-${i % 5000}`,
    session_id: `sess-${i % 9000}`,
    sequence_no: j,
    platform: "web",
    event_type: j === 0 ? "$pageview" : "$autocapture",
    screen: `/page/${i % 300}`,
    properties: {
      path: `/page/${i % 300}`,
      url: `https://acme.test/page/${i % 300}?utm_source=news`,
      referrer: "https://www.google.com/",
    },
    context: {
      user_agent:
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
      language: "en",
    },
    fingerprint: j === 0
      ? null
      : { tag: "button", text: "Buy now", selector: "main > button.buy", classes: ["buy"] },
    device_time: now,
  }));
}

type Mode = "design" | "time_ordered" | "same";

/**
 * The references: KV writes alone, no HTTP, validation or enrichment, data made before the clock starts.
 * - "design": DESIGN.md's bare loop, `check` + `set` per event: the event's key is checked absent and the
 *   event (as sent) set under it. This is the simplest store that dedupes; the target is against it.
 * - "time_ordered": the same check, but the event set under a time-ordered key and the checked key never
 *   written, so the check guards nothing. Appending is the fastest KV write there is; no store that
 *   dedupes reaches it, since every dedupe key is a write at a random place in the B-tree (measured:
 *   100 such keys cost more than 100 appended 0.6 KB events). Printed for context.
 * - "same": the writes the endpoint makes for a batch (dedupe key, packed enriched record, one address
 *   record), 20 per commit: what the pipeline costs above its own writes.
 */
async function bareLoop(kv: Deno.Kv, batches: number, mode: Mode): Promise<number> {
  const target = {
    org: { id: "org_bench" },
    touchpoint: { id: "tp_bench" },
    env: "production",
  } as unknown as WebTarget;
  const geo = { country: "DE", city: "Berlin", asn: 3320, as_org: "Deutsche Telekom AG" };
  const data = Array.from({ length: batches }, (_, i) => {
    const evs = makeBatch(i) as BehaviorEventInput[];
    const arrival = { receivedAt: Date.now(), ip: "81.2.69.160", userAgent: null };
    return { evs, stored: evs.map((e) => enrichEvent(e, target, arrival, geo, 0)) };
  });
  let next = 0;
  const start = performance.now();
  await Promise.all(Array.from({ length: CONC }, async () => {
    while (next < batches) {
      const { evs, stored } = data[next++];
      const op = kv.atomic();
      if (mode === "design") {
        for (const ev of evs) {
          const key = ["ev", "org", ev.event_id];
          op.check({ key, versionstamp: null }).set(key, ev);
        }
      } else if (mode === "time_ordered") {
        for (const ev of evs) {
          op.check({ key: ["dedupe", "org", ev.event_id], versionstamp: null })
            .set(["raw_ev", "org", "production", Date.now(), ev.event_id], ev);
        }
      } else {
        for (const ev of stored) {
          op.check({ key: ["dedupe", "org", ev.id], versionstamp: null })
            .set(["dedupe", "org", ev.id], ev.received_at, { expireIn: 35 * 86_400_000 })
            .set(["raw_ev", "org", "production", ev.received_at, ev.id], packEvent(ev));
        }
        const ips = Object.fromEntries(stored.map((e) => [e.id, "81.2.69.160"]));
        op.set(["ip", 1, "org", stored[0].id], { at: Date.now(), ips }, { expireIn: 30 * 86_400_000 });
      }
      await op.commit();
    }
  }));
  const secs = (performance.now() - start) / 1000;
  return (batches * BATCH) / secs;
}

async function endpoint(url: string, key: string, batches: number, ratePerS?: number) {
  const bodies = Array.from(
    { length: batches },
    (_, i) => JSON.stringify({ api_key: key, batch: makeBatch(i) }),
  );
  const latencies: number[] = [];
  let next = 0;
  let failures = 0;
  const start = performance.now();
  await Promise.all(Array.from({ length: CONC }, async () => {
    while (next < batches) {
      const i = next++;
      if (ratePerS) {
        const due = start + (i / ratePerS) * 1000;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
      const t0 = performance.now();
      const res = await fetch(`${url}/v1/behavior/events`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: "https://acme.test" },
        body: bodies[i],
      });
      await res.body?.cancel();
      if (res.status !== 204) failures++;
      latencies.push(performance.now() - t0);
    }
  }));
  const secs = (performance.now() - start) / 1000;
  return { eventsPerS: (batches * BATCH) / secs, p50: pct(latencies, 50), p99: pct(latencies, 99), failures };
}

const batches = Math.ceil(TOTAL / BATCH);
// The full pipeline: geo databases on (the test helper turns them off by default).
const srv = await startServer({
  env: { PUBLIC_KEY_RATE_PER_MINUTE: "100000000", GEO_CITY_MMDB: "", GEO_ASN_CSV: "" },
});
try {
  const t = await createTenant({ request: (p, i) => fetch(srv.url + p, i) }, srv.adminToken);
  await endpoint(srv.url, t.publicKey, 200); // warm-up
  const dir = await Deno.makeTempDir();
  const refs = {
    design: await Deno.openKv(`${dir}/design.sqlite3`),
    time_ordered: await Deno.openKv(`${dir}/time_ordered.sqlite3`),
    same: await Deno.openKv(`${dir}/same.sqlite3`),
  };
  const runs: Record<Mode | "endpoint", number[]> = { design: [], time_ordered: [], same: [], endpoint: [] };
  const latency = { p50: [] as number[], p99: [] as number[], failures: 0 };
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of ["design", "time_ordered", "same"] as const) {
      runs[mode].push(await bareLoop(refs[mode], batches, mode));
    }
    const full = await endpoint(srv.url, t.publicKey, batches);
    runs.endpoint.push(full.eventsPerS);
    latency.p50.push(full.p50);
    latency.p99.push(full.p99);
    latency.failures += full.failures;
  }
  for (const kv of Object.values(refs)) kv.close();
  await Deno.remove(dir, { recursive: true });
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const ep = med(runs.endpoint), design = med(runs.design);
  // as many batches as a full round (twice its length at half the rate): p99 is then the 20th slowest
  const half = await endpoint(srv.url, t.publicKey, batches, ep / BATCH / 2);
  const mem = await (async () => {
    try {
      const status = await Deno.readTextFile(`/proc/${srv.pid}/status`);
      return Number(status.match(/VmRSS:\s+(\d+)/)?.[1] ?? 0) / 1024;
    } catch {
      return null;
    }
  })();
  const result = {
    bench: "web ingest",
    batch: BATCH,
    concurrency: CONC,
    events_per_round: batches * BATCH,
    rounds: ROUNDS,
    load_average: Deno.loadavg()[0],
    endpoint_events_per_s: Math.round(ep),
    reference_events_per_s: Math.round(design),
    ratio: Number((ep / design).toFixed(3)),
    target_ratio: 0.8,
    ratios_per_round: runs.endpoint.map((e, i) => Number((e / runs.design[i]).toFixed(3))),
    time_ordered_no_dedupe_events_per_s: Math.round(med(runs.time_ordered)),
    ratio_to_time_ordered: Number((ep / med(runs.time_ordered)).toFixed(3)),
    same_writes_events_per_s: Math.round(med(runs.same)),
    ratio_to_same_writes: Number((ep / med(runs.same)).toFixed(3)),
    p50_ms_full_load: Number(med(latency.p50).toFixed(2)),
    p99_ms_full_load: Number(med(latency.p99).toFixed(2)),
    p50_ms_half_load: Number(half.p50.toFixed(2)),
    p99_ms_half_load: Number(half.p99.toFixed(2)),
    target_p99_ms_half_load: 50,
    server_rss_mb: mem,
    failures: latency.failures + half.failures,
  };
  console.table(result);
  await Deno.mkdir(new URL("./results/", import.meta.url), { recursive: true });
  await Deno.writeTextFile(
    new URL("./results/ingest.json", import.meta.url),
    JSON.stringify(result, null, 2),
  );
} finally {
  await srv.stop();
}
