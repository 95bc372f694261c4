/**
 * Blast radius: one client sends the worst bodies, slow bodies and idle sockets; another sends valid event
 * batches and questions. Prints the valid client's p50/p99 per kind, without and with the attacker, for the
 * app behind the self-hosted connection guard with its production defaults. Bounded in count and time.
 * The attacker runs in its own process (this file with --attack), as a client elsewhere would: its own work
 * (making and sending 1 MB bodies) is not the server's; and from its own address, as a client elsewhere
 * would: the guard listens on "::", the valid client comes from 127.0.0.1 and the attacker from ::1, so
 * what the guard does per address (its connection cap, its hold after refusals) sorts them as it would in
 * service. `--runs N` repeats the pair of runs and prints each ratio. The raw tail the valid client writes
 * is compacted before each measured pass (the compaction job does it every minute in service), so every
 * pass asks its questions over the same small tail instead of one growing run after run.
 * A run alternates `--blocks` quiet and loud blocks (a new attacker process for each loud one), so other
 * load on the machine (2 shared cores) falls on both sides alike instead of on one pass; both sides make
 * the same number of requests, `--requests` each (half batches, half questions; p99 of 600 batches is
 * their 6th slowest).
 * The attacker's process runs at the lowest CPU priority (`nice -n 19`; `--nice 0` not): on this 2-core
 * machine its own work would otherwise take the server's core, which an attacker elsewhere cannot. It sends
 * its worst bodies (bench/worst_bodies.ts) one after another as fast as it is answered, and reports how
 * many and what it got. `--worst 0` leaves them out (only idle and slow sockets). The valid client also
 * reports how late a 5 ms timer fires on the server's event loop (its own blocking, beside the machine's load).
 * Each block starts `--settle` ms after the compaction before it (the attacker sending during that wait).
 *   deno run -A bench/blast_radius.ts [--requests 1200] [--blocks 4] [--idle 100] [--slow 20] [--runs 3]
 *     [--worst 1] [--nice 1] [--settle 2000] [--out FILE.json]
 */
import { event } from "../tests/helpers/events.ts";
import { worstBodies } from "./worst_bodies.ts";

const arg = (name: string, d: number) => {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Number(Deno.args[i + 1]) : d;
};
/** the valid client's requests on each side (without and with the attacker), per run */
const REQUESTS = arg("requests", 1200);
const IDLE = arg("idle", 100);
const SLOW = arg("slow", 20);
const RUNS = arg("runs", 1);
const BLOCKS = arg("blocks", 4);
/** 0: the attacker sends no worst bodies (only idle and slow sockets), to tell their costs apart */
const WORST = arg("worst", 1);
/** 0: the attacker's process at the same priority as the server's */
const NICE = arg("nice", 1);
/** ms between the compaction before a block (and the attacker's start) and the block's first request */
const SETTLE_MS = arg("settle", 2_000);
const OUT = Deno.args.includes("--out") ? Deno.args[Deno.args.indexOf("--out") + 1] : "";

if (Deno.args[0] === "--attack") {
  // the attacker's process: base URL and keys as arguments, until stdin closes
  const [, base, domain, publicKey, serverKey, readKey] = Deno.args;
  const a = attacker(base, { domain, publicKey, serverKey, readKey }, { done: false });
  await a.ready; // its sockets open before the valid client is timed
  console.log("attacking");
  await Deno.stdin.readable.pipeTo(new WritableStream());
  console.log(`sent ${JSON.stringify(await a.end())}`);
  Deno.exit(0);
}

// the server's modules only here: the attacker's process loads none of the app (nor its start-up work)
const { fuzzWorld } = await import("../tests/helpers/fuzz.ts");
const { DEFAULT_GUARD, serveGuarded } = await import("../lib/server/connection_guard.ts");
const { compactAll } = await import("../lib/jobs/compact.ts");
const w = await fuzzWorld();
// the production defaults, but the body deadline shorter and the cap above the attacker's sockets (past
// the cap its extra sockets would only be refused, which costs the server less than holding them)
const server = serveGuarded({ hostname: "::", port: 0 }, w.app.fetch, {
  ...DEFAULT_GUARD,
  bodyMs: 10_000,
  perAddress: IDLE + SLOW + 64,
});
/** the valid client's address, and the attacker's */
const base = `http://127.0.0.1:${server.addr.port}`;
const attackerBase = `http://[::1]:${server.addr.port}`;

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))] : NaN;
};

interface Measured {
  ingest: number[];
  read: number[];
  errors: number;
  /** how late a 5 ms timer of the server's event loop fired, per tick: the loop's own blocking */
  lag: number[];
}

/** Runs `f` while sampling how late a 5 ms timer fires on this (the server's) event loop. */
async function withLag<T>(f: () => Promise<T>): Promise<[T, number[]]> {
  const lag: number[] = [];
  let due = performance.now() + 5;
  const timer = setInterval(() => {
    const now = performance.now();
    lag.push(Math.max(0, now - due));
    due = now + 5;
  }, 5);
  try {
    return [await f(), lag];
  } finally {
    clearInterval(timer);
  }
}

let sequence = 0;
async function validClient(requests: number): Promise<Measured> {
  const [r, lag] = await withLag(() => measure(requests));
  return { ...r, lag };
}

async function measure(requests: number): Promise<Omit<Measured, "lag">> {
  const ingest: number[] = [], read: number[] = [];
  let errors = 0;
  for (let k = 0; k < requests; k++) {
    const i = sequence++;
    // the batch is made before the clock starts: the client's own work is not the server's answer time
    const batch = i % 2 === 0
      ? JSON.stringify({
        api_key: w.t.publicKey,
        batch: Array.from({ length: 10 }, (_, k) => event({ sequence_no: i * 10 + k })),
      })
      : "";
    const t0 = performance.now();
    const res = i % 2 === 0
      ? await fetch(`${base}/v1/behavior/events`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: `https://${w.t.domain}` },
        body: batch,
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

interface Keys {
  domain: string;
  publicKey: string;
  serverKey: string;
  readKey: string;
}

/** The attacker: idle sockets, slow bodies and a loop of the worst bodies, until `stop` is set. */
function attacker(base: string, t: Keys, stop: { done: boolean }) {
  const url = new URL(base);
  const [hostname, port] = [url.hostname.replace(/^\[|\]$/g, ""), Number(url.port)];
  const held: Deno.Conn[] = [];
  const enc = new TextEncoder();
  const idle = (async () => {
    for (let i = 0; i < IDLE; i++) {
      held.push(await Deno.connect({ hostname, port }));
    }
  })();
  let opened: () => void = () => {};
  const slowOpen = new Promise<void>((r) => opened = r);
  const slow = (async () => {
    const conns: Deno.Conn[] = [];
    for (let i = 0; i < SLOW; i++) {
      const c = await Deno.connect({ hostname, port });
      await c.write(enc.encode(
        "POST /v1/behavior/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
          "Origin: https://evil.test\r\nContent-Length: 100000\r\n\r\n{",
      ));
      conns.push(c);
    }
    opened();
    while (!stop.done) {
      for (const c of conns) await c.write(enc.encode(" ")).catch(() => {});
      await new Promise((r) => setTimeout(r, 200));
    }
    for (const c of conns) c.close();
  })();
  const worst = worstBodies(t);
  let sent = 0;
  const statuses = new Map<number, number>();
  const loop = (async () => {
    while (!stop.done && WORST) {
      const { path, headers, body } = worst[sent++ % worst.length];
      const res = await fetch(`${base}${path}`, { method: "POST", headers, body }).catch(() => null);
      await res?.body?.cancel();
      statuses.set(res?.status ?? 0, (statuses.get(res?.status ?? 0) ?? 0) + 1);
    }
  })();
  return {
    ready: Promise.all([idle, slowOpen]),
    sent: () => sent,
    async end() {
      stop.done = true;
      await Promise.all([idle, slow, loop]);
      for (const c of held) c.close();
      return { sent, statuses: Object.fromEntries(statuses) };
    },
  };
}

interface Sent {
  sent: number;
  /** how many of each status the attacker's worst bodies got (0: no answer) */
  statuses: Record<string, number>;
}

/** The attacker's process, attacking until `end`; resolves once its sockets are open and it is sending. */
async function attackerProcess() {
  // at the lowest priority: its own CPU (building and sending 1 MB bodies) would be another machine's, and
  // on 2 shared cores it would otherwise take the server's core; what it costs the server stays measured
  const child = new Deno.Command(NICE ? "nice" : Deno.execPath(), {
    args: [
      ...(NICE ? ["-n", "19", Deno.execPath()] : []),
      "run",
      "-A",
      new URL(import.meta.url).pathname,
      "--attack",
      attackerBase,
      w.t.domain,
      w.t.publicKey,
      w.t.serverKey,
      w.t.readKey,
      "--idle",
      String(IDLE),
      "--slow",
      String(SLOW),
      "--worst",
      String(WORST),
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const out = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let said = "";
  while (!said.includes("attacking")) {
    const { value, done } = await out.read();
    if (done) throw new Error(`attacker ended: ${said}`);
    said += value;
  }
  return {
    async end() {
      await child.stdin.close();
      while (!/sent \{.*\}\n/.test(said)) {
        const { value, done } = await out.read();
        if (done) break;
        said += value;
      }
      await child.status;
      const line = said.match(/sent (\{.*\})\n/)?.[1];
      return line ? JSON.parse(line) as Sent : { sent: 0, statuses: {} };
    },
  };
}

const row = (r: Measured) => ({
  "ingest p50 ms": pct(r.ingest, 0.5).toFixed(1),
  "ingest p99 ms": pct(r.ingest, 0.99).toFixed(1),
  "read p50 ms": pct(r.read, 0.5).toFixed(1),
  "read p99 ms": pct(r.read, 0.99).toFixed(1),
  "non-2xx": r.errors,
  "loop lag p99 ms": pct(r.lag, 0.99).toFixed(1),
});

/** The wait between a compaction (and the attacker's start) and a block. */
const settle = () => new Promise((r) => setTimeout(r, SETTLE_MS));

/** Requests the guard held after their address's refusals so far (a guard without holds: 0). */
const held = () => (server as { held?: () => number }).held?.() ?? 0;

/** Folds the raw tail into parts: the test clock stands still, so it moves past the tail's receive time. */
async function compactTail() {
  w.deps.clock.advance(1);
  await compactAll(w.deps, { graceMs: 0 });
}

await validClient(Math.min(REQUESTS, 200)); // warm-up: compile paths, fill caches
const ratios: string[] = [];
const results: Record<string, unknown>[] = [];
const join = (rs: Measured[]): Measured => ({
  ingest: rs.flatMap((r) => r.ingest),
  read: rs.flatMap((r) => r.read),
  errors: rs.reduce((n, r) => n + r.errors, 0),
  lag: rs.flatMap((r) => r.lag),
});
for (let run = 1; run <= RUNS; run++) {
  // quiet and loud blocks alternate, so the machine's other load (2 shared cores) falls on both alike
  const quiet: Measured[] = [], loud: Measured[] = [];
  let sent = 0, loudMs = 0;
  const got: Record<string, number> = {};
  const heldBefore = held();
  const per = 2 * Math.ceil(REQUESTS / BLOCKS / 2); // even: each block half batches, half questions
  for (let b = 0; b < BLOCKS; b++) {
    // both sides measured the same time after a compaction (its after-work and garbage settle alike): with
    // the attacker's start-up between compaction and the loud block only, the quiet block had run slower
    await compactTail();
    await settle();
    quiet.push(await validClient(per));
    const starting = attackerProcess(); // its start-up beside the compaction, not in the loud block's wait
    await compactTail();
    const a = await starting;
    const t0 = performance.now();
    await settle();
    loud.push(await validClient(per));
    const ended = await a.end();
    loudMs += performance.now() - t0;
    sent += ended.sent;
    for (const [s, n] of Object.entries(ended.statuses)) got[s] = (got[s] ?? 0) + n;
  }
  const [q, l] = [join(quiet), join(loud)];
  console.log(
    `run ${run}: valid client ${per * BLOCKS} requests each way in ${BLOCKS} alternating blocks; attacker: ` +
      `${IDLE} idle, ${SLOW} slow, ${sent} worst bodies (${(sent / loudMs * 1000).toFixed(1)} a second; ` +
      `statuses ${JSON.stringify(got)}; ${held() - heldBefore} held by the guard); load average ${
        Deno.loadavg().map((x) => x.toFixed(2)).join(" ")
      }`,
  );
  console.table({ "without attacker": row(q), "with attacker": row(l) });
  const ratio = pct(l.ingest, 0.99) / pct(q.ingest, 0.99);
  console.log(`ingest p99 with/without: ${ratio.toFixed(2)}×`);
  ratios.push(ratio.toFixed(2));
  results.push({
    run,
    load_average: Deno.loadavg(),
    blocks: BLOCKS,
    attacker: {
      idle: IDLE,
      slow: SLOW,
      worst_bodies: sent,
      worst_bodies_a_second: Number((sent / loudMs * 1000).toFixed(1)),
      statuses: got,
      held_by_guard: held() - heldBefore,
      niced: NICE === 1,
    },
    without: row(q),
    with: row(l),
    ingest_p99_ratio: Number(ratio.toFixed(2)),
  });
}
await server.shutdown();
w.deps.kv.close();
if (RUNS > 1) console.log(`ingest p99 ratios: ${ratios.join(", ")}`);
if (OUT) {
  await Deno.writeTextFile(
    OUT,
    JSON.stringify({ date: new Date().toISOString(), requests: REQUESTS, runs: results }, null, 2) + "\n",
  );
}
