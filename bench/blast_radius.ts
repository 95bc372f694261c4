/**
 * Blast radius: one client sends the worst bodies, slow bodies and idle sockets; another sends valid event
 * batches and questions. Prints the valid client's p50/p99 per kind, without and with the attacker, for the
 * app behind the self-hosted connection guard on 127.0.0.1. Bounded in count and time.
 *   deno run -A bench/blast_radius.ts [--requests 300] [--idle 100] [--slow 20]
 */
import { fuzzWorld } from "../tests/helpers/fuzz.ts";
import { event } from "../tests/helpers/events.ts";
import { serveGuarded } from "../lib/server/connection_guard.ts";

const arg = (name: string, d: number) => {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Number(Deno.args[i + 1]) : d;
};
const REQUESTS = arg("requests", 300);
const IDLE = arg("idle", 100);
const SLOW = arg("slow", 20);

const w = await fuzzWorld();
// attacker and valid client share 127.0.0.1 here: the cap is raised above both (in production each has its own)
const server = serveGuarded({ hostname: "127.0.0.1", port: 0 }, w.app.fetch, {
  bodyMs: 10_000,
  headerMs: 10_000,
  idleMs: 30_000,
  perAddress: IDLE + SLOW + 64,
});
const base = `http://127.0.0.1:${server.addr.port}`;

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))] : NaN;
};

async function validClient(): Promise<{ ingest: number[]; read: number[]; errors: number }> {
  const ingest: number[] = [], read: number[] = [];
  let errors = 0;
  for (let i = 0; i < REQUESTS; i++) {
    const t0 = performance.now();
    const res = i % 2 === 0
      ? await fetch(`${base}/v1/behavior/events`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: `https://${w.t.domain}` },
        body: JSON.stringify({
          api_key: w.t.publicKey,
          batch: Array.from({ length: 10 }, (_, k) => event({ sequence_no: i * 10 + k })),
        }),
      })
      : await fetch(`${base}/v1/read/behavior_overview`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${w.t.readKey}` },
        body: '{"period":"last_7_days"}',
      });
    await res.body?.cancel();
    (i % 2 === 0 ? ingest : read).push(performance.now() - t0);
    if (res.status >= 300) errors++;
  }
  return { ingest, read, errors };
}

/** The attacker: idle sockets, slow bodies and a loop of the worst bodies, until `stop` is set. */
function attacker(stop: { done: boolean }) {
  const held: Deno.Conn[] = [];
  const enc = new TextEncoder();
  const idle = (async () => {
    for (let i = 0; i < IDLE; i++) {
      held.push(await Deno.connect({ hostname: "127.0.0.1", port: server.addr.port }));
    }
  })();
  const slow = (async () => {
    const conns: Deno.Conn[] = [];
    for (let i = 0; i < SLOW; i++) {
      const c = await Deno.connect({ hostname: "127.0.0.1", port: server.addr.port });
      await c.write(enc.encode(
        "POST /v1/behavior/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
          "Origin: https://evil.test\r\nContent-Length: 100000\r\n\r\n{",
      ));
      conns.push(c);
    }
    while (!stop.done) {
      for (const c of conns) await c.write(enc.encode(" ")).catch(() => {});
      await new Promise((r) => setTimeout(r, 200));
    }
    for (const c of conns) c.close();
  })();
  const worst = [
    ["/v1/behavior/events", "[".repeat(1_000_000)],
    [
      "/v1/behavior/events",
      JSON.stringify({
        api_key: w.t.publicKey,
        batch: [event({ fingerprint: { tag: "a", selector: "a", text: "x".repeat(64_000) } })],
      }),
    ],
    ["/oauth/register", "[".repeat(3_000) + "]".repeat(3_000)],
    ["/v1/read/behavior_overview", '{"a":'.repeat(10_000) + "1" + "}".repeat(10_000)],
    ["/v1/behavior/server-events", '{"events":[' + '{"x":1e400},'.repeat(5_000) + "{}]}"],
  ] as const;
  let sent = 0;
  const loop = (async () => {
    while (!stop.done) {
      const [path, body] = worst[sent++ % worst.length];
      const res = await fetch(`${base}${path}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          origin: `https://${w.t.domain}`,
          authorization: `Bearer ${path.includes("read") ? w.t.readKey : w.t.serverKey}`,
        },
        body,
      }).catch(() => null);
      await res?.body?.cancel();
    }
  })();
  return {
    sent: () => sent,
    async end() {
      stop.done = true;
      await Promise.all([idle, slow, loop]);
      for (const c of held) c.close();
    },
  };
}

await validClient(); // warm-up: compile paths, fill caches
const quiet = await validClient();
const stop = { done: false };
const a = attacker(stop);
await new Promise((r) => setTimeout(r, 500));
const loud = await validClient();
await a.end();
await server.shutdown();
w.deps.kv.close();

const row = (r: { ingest: number[]; read: number[]; errors: number }) => ({
  "ingest p50 ms": pct(r.ingest, 0.5).toFixed(1),
  "ingest p99 ms": pct(r.ingest, 0.99).toFixed(1),
  "read p50 ms": pct(r.read, 0.5).toFixed(1),
  "read p99 ms": pct(r.read, 0.99).toFixed(1),
  "non-2xx": r.errors,
});
console.log(
  `valid client: ${REQUESTS} requests each run; attacker: ${IDLE} idle, ${SLOW} slow, ${a.sent()} worst bodies`,
);
console.table({ "without attacker": row(quiet), "with attacker": row(loud) });
const ratio = pct(loud.ingest, 0.99) / pct(quiet.ingest, 0.99);
console.log(`ingest p99 with/without: ${ratio.toFixed(2)}×`);
