/**
 * Body cost: what each of the blast-radius bench's worst bodies costs the server, beside the valid client's
 * two requests for scale. The app runs behind the self-hosted connection guard on 127.0.0.1, as in the
 * blast-radius bench; a sender in its own process (this file with --send) sends `--n` requests of one kind,
 * one after another, and the server's process reports its own CPU time per request (user + system, so the
 * relay's and Deno.serve's socket work counts) and the longest a 5 ms timer on its event loop waited.
 * A kind that costs far more than a valid batch is one an attacker can spend the server's core with.
 * With `--loop S` the sender instead sends the worst bodies round the list, one after another, for S
 * seconds, as the blast-radius bench's attacker does (but not niced): the server's CPU time a second of
 * that attack, and how many bodies it took, tell what one such client costs the server in all.
 *   deno run -A bench/body_cost.ts [--n 100] [--only NAME-SUBSTRING] [--loop SECONDS]
 */
import process from "node:process";
import { event } from "../tests/helpers/events.ts";
import { worstBodies, type WorstBody, type WorstKeys } from "./worst_bodies.ts";

const arg = (name: string, d: string) => {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Deno.args[i + 1] : d;
};

function kinds(t: WorstKeys): WorstBody[] {
  return [
    {
      name: "valid batch of 10",
      path: "/v1/behavior/events",
      headers: { "content-type": "application/json", origin: `https://${t.domain}` },
      body: JSON.stringify({ api_key: t.publicKey, batch: Array.from({ length: 10 }, () => event({})) }),
    },
    {
      name: "valid overview",
      path: "/v1/read/behavior_overview",
      headers: { "content-type": "application/json", authorization: `Bearer ${t.readKey}` },
      body: '{"period":"last_7_days"}',
    },
    ...worstBodies(t),
  ];
}

if (Deno.args[0] === "--looping") {
  // the looping sender's process: base URL, keys and seconds as arguments; prints what it sent and got
  const [, base, domain, publicKey, serverKey, readKey, seconds] = Deno.args;
  const worst = kinds({ domain, publicKey, serverKey, readKey }).slice(2);
  const statuses = new Map<number, number>();
  const until = performance.now() + Number(seconds) * 1000;
  let sent = 0;
  while (performance.now() < until) {
    const k = worst[sent++ % worst.length];
    const res = await fetch(`${base}${k.path}`, { method: "POST", headers: k.headers, body: k.body })
      .catch(() => null);
    await res?.body?.cancel();
    statuses.set(res?.status ?? 0, (statuses.get(res?.status ?? 0) ?? 0) + 1);
  }
  console.log(JSON.stringify({ statuses: Object.fromEntries(statuses), sent }));
  Deno.exit(0);
}

if (Deno.args[0] === "--send") {
  // the sender's process: base URL, keys, kind index and count as arguments; prints the statuses it got
  const [, base, domain, publicKey, serverKey, readKey, index, n] = Deno.args;
  const k = kinds({ domain, publicKey, serverKey, readKey })[Number(index)];
  const statuses = new Map<number, number>();
  const t0 = performance.now();
  for (let i = 0; i < Number(n); i++) {
    const res = await fetch(`${base}${k.path}`, { method: "POST", headers: k.headers, body: k.body })
      .catch(() => null);
    await res?.body?.cancel();
    const s = res?.status ?? 0;
    statuses.set(s, (statuses.get(s) ?? 0) + 1);
  }
  console.log(
    JSON.stringify({ statuses: Object.fromEntries(statuses), ms: (performance.now() - t0) / Number(n) }),
  );
  Deno.exit(0);
}

// the server's modules only here: the sender's process loads none of the app
const { fuzzWorld } = await import("../tests/helpers/fuzz.ts");
const { serveGuarded } = await import("../lib/server/connection_guard.ts");
const N = Number(arg("n", "100"));
const LOOP = Number(arg("loop", "0"));
const ONLY = arg("only", "");
const w = await fuzzWorld();
const t = { domain: w.t.domain, publicKey: w.t.publicKey, serverKey: w.t.serverKey, readKey: w.t.readKey };
// the guard's defaults (its per-address hold included, where it has one) on "::", the sender on ::1
const { DEFAULT_GUARD } = await import("../lib/server/connection_guard.ts");
const server = serveGuarded({ hostname: "::", port: 0 }, w.app.fetch, {
  ...DEFAULT_GUARD,
  perAddress: 1_000,
});
const base = `http://[::1]:${server.addr.port}`;

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

async function send(index: number, n: number) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      new URL(import.meta.url).pathname,
      "--send",
      base,
      t.domain,
      t.publicKey,
      t.serverKey,
      t.readKey,
      String(index),
      String(n),
    ],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  const said = new TextDecoder().decode(out.stdout).trim();
  try {
    return JSON.parse(said) as { statuses: Record<string, number>; ms: number };
  } catch {
    return { statuses: { [`sender failed: ${said}`]: n }, ms: NaN };
  }
}

if (LOOP > 0) {
  const c0 = cpuMs();
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      new URL(import.meta.url).pathname,
      "--looping",
      `http://[::1]:${server.addr.port}`,
      t.domain,
      t.publicKey,
      t.serverKey,
      t.readKey,
      String(LOOP),
    ],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  const c1 = cpuMs();
  const said = JSON.parse(new TextDecoder().decode(out.stdout).trim());
  const held = (server as { held?: () => number }).held?.() ?? 0;
  console.log(
    `${LOOP} s of worst bodies from one address: ${said.sent} sent (${
      (said.sent / LOOP).toFixed(1)
    } a second), ` +
      `statuses ${JSON.stringify(said.statuses)}, ${held} held by the guard; the server's CPU ` +
      `${((c1 - c0) / LOOP).toFixed(0)} ms a second (includes the sender's start-up wait); load average ${
        Deno.loadavg().map((x) => x.toFixed(2)).join(" ")
      }`,
  );
  await server.shutdown();
  w.deps.kv.close();
  Deno.exit(0);
}

const rows: Record<string, Record<string, string | number>> = {};
const list = kinds(t);
for (let index = 0; index < list.length; index++) {
  if (ONLY && !list[index].name.includes(ONLY)) continue;
  await send(index, 3); // warm-up: compile paths
  let worst = 0, due = performance.now() + 5;
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - due);
    due = now + 5;
  }, 5);
  const c0 = cpuMs();
  const sent = await send(index, N);
  const c1 = cpuMs();
  clearInterval(timer);
  rows[list[index].name] = {
    statuses: JSON.stringify(sent.statuses),
    "server CPU ms/request": ((c1 - c0) / N).toFixed(2),
    "answer ms": sent.ms.toFixed(2),
    "longest loop lag ms": worst.toFixed(1),
  };
}
console.table(rows);
console.log(`load average ${Deno.loadavg().map((x) => x.toFixed(2)).join(" ")}`);
await server.shutdown();
w.deps.kv.close();
