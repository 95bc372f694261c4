/**
 * The fuzz suite of tests/routes/fuzz_test.ts at scale: hostile bodies against every endpoint through
 * `app.request` (tests/helpers/fuzz.ts), 100,000 cases by default, every check collected rather than
 * stopping at the first. Each round starts a fresh :memory: KV, so memory stays flat.
 * Then Host, method, header and framing mutations over a real loopback socket against every public
 * endpoint behind the connection guard (tests/helpers/fuzz_wire.ts), --wire cases (default 2,000).
 *   deno run -A bench/fuzz.ts [--cases 100000] [--wire 2000] [--seed 1]
 * Reports cases, statuses and 5xx per endpoint, and writes bench/results/fuzz.json.
 */
import { compactAndReadAll, ENDPOINTS, fuzzEndpoint, fuzzWorld } from "../tests/helpers/fuzz.ts";
import { fuzzWire } from "../tests/helpers/fuzz_wire.ts";
import { serveGuarded } from "../lib/server/connection_guard.ts";

const arg = (name: string, d: number) => {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Number(Deno.args[i + 1]) : d;
};
const CASES = arg("cases", 100_000);
const SEED = arg("seed", 1);
/** Share of the cases per endpoint: ingest most, as the public endpoints take the most hostile traffic. */
const SHARE = { events: 0.3, "server-events": 0.25, import: 0.1, read: 0.2, mcp: 0.15 };
const ROUND = 2_500; // cases of one endpoint on one KV

type Row = { cases: number; statuses: Record<string, number>; server_errors: number; failures: number };
const rows = Object.fromEntries(
  ENDPOINTS.map((e) => [e, { cases: 0, statuses: {}, server_errors: 0, failures: 0 } as Row]),
);
const failures: string[] = [];
const started = performance.now();
let round = 0;
for (const endpoint of ENDPOINTS) {
  let left = Math.round(CASES * SHARE[endpoint]);
  while (left > 0) {
    const n = Math.min(ROUND, left);
    const w = await fuzzWorld();
    const found: string[] = [];
    await fuzzEndpoint(w, endpoint, n, { seed: SEED + round++, failures: found });
    await compactAndReadAll(w).catch((e) => found.push(`after compaction: ${e?.message ?? e}`));
    w.deps.kv.close();
    const row = rows[endpoint];
    row.cases += n;
    for (const [status, count] of w.statuses[endpoint]) {
      row.statuses[status] = (row.statuses[status] ?? 0) + count;
      if (status >= 500) row.server_errors += count;
    }
    row.failures += found.length;
    failures.push(...found.slice(0, 5));
    left -= n;
    console.log(`${endpoint}: ${row.cases} cases, ${row.server_errors} 5xx, ${row.failures} failed checks`);
  }
}
// The wire: what a Request object cannot carry.
const WIRE = arg("wire", 2_000);
const wireStatuses = new Map<number, number>();
const wireFailures: string[] = [];
if (WIRE > 0) {
  const w = await fuzzWorld();
  const guard = { bodyMs: 2_000, headerMs: 2_000, idleMs: 2_000, perAddress: 10_000 };
  const server = serveGuarded({ hostname: "127.0.0.1", port: 0 }, w.app.fetch, guard);
  for (let done = 0; done < WIRE; done += 500) {
    await fuzzWire(w, server.addr.port, Math.min(500, WIRE - done), {
      seed: SEED + done,
      failures: wireFailures,
      statuses: wireStatuses,
    });
    console.log(`wire: ${Math.min(done + 500, WIRE)} cases, ${wireFailures.length} 5xx`);
  }
  await server.shutdown();
  w.deps.kv.close();
  rows["wire"] = {
    cases: WIRE,
    statuses: Object.fromEntries([...wireStatuses].map(([s, c]) => [String(s), c])),
    server_errors: wireFailures.length,
    failures: wireFailures.length,
  };
  failures.push(...wireFailures.slice(0, 5));
}
const seconds = (performance.now() - started) / 1000;
const total = Object.values(rows).reduce((n, r) => n + r.cases, 0);
console.log(
  `\n${total} cases in ${seconds.toFixed(0)} s (${(total / seconds).toFixed(0)} a second), seed ${SEED}`,
);
console.table(
  Object.fromEntries(
    Object.entries(rows).map(([e, r]) => [e, {
      cases: r.cases,
      statuses: Object.entries(r.statuses).sort().map(([s, c]) => `${s}: ${c}`).join(", "),
      "5xx": r.server_errors,
      "failed checks": r.failures,
    }]),
  ),
);
for (const f of failures.slice(0, 10)) console.log(`failure: ${f}`);
await Deno.mkdir(new URL("./results/", import.meta.url), { recursive: true });
await Deno.writeTextFile(
  new URL("./results/fuzz.json", import.meta.url),
  JSON.stringify(
    { at: new Date().toISOString(), cases: total, seconds, seed: SEED, endpoints: rows, failures },
    null,
    2,
  ),
);
if (failures.length || Object.values(rows).some((r) => r.server_errors)) Deno.exit(1);
