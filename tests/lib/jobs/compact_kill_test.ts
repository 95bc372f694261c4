import assert from "node:assert/strict";
import { compact } from "../../../lib/jobs/compact.ts";
import { createEngine } from "../../../lib/query/api.ts";
import type { AggregateOptions, Scope } from "../../../lib/query/api.ts";
import { naiveAggregate } from "../query/reference.ts";
import { listParts } from "../../../lib/parts/store.ts";
import { keys } from "../../../lib/store/keys.ts";
import { testDeps } from "../../helpers/deps.ts";
import { ev, store } from "../query/fixtures.ts";

const NOW = Date.parse("2026-11-20T12:00:00Z");
const DAY = 86_400_000;
const scope: Scope = { org: "org1", env: "production", from: NOW - 10 * DAY, to: NOW, timezone: "UTC" };
const q: AggregateOptions = { metrics: ["visitors", "sessions", "pageviews", "events"], breakdown: ["page"] };

Deno.test("compaction: a run killed (kill -9) mid-way holds its lease about a minute; then the next run finishes its work exactly", async () => {
  const dir = await Deno.makeTempDir({ prefix: "compact-kill-" });
  const path = `${dir}/kv.sqlite3`;
  const deps = await testDeps({ kv: await Deno.openKv(path) });
  deps.clock.set(NOW);
  const all = Array.from({ length: 300 }, (_, i) =>
    ev({
      received_at: NOW - 3 * DAY + i * 1000,
      anonymous_id: `v${i % 29}`,
      session_id: `s${i % 41}`,
      path: ["/", "/pricing", "/blog"][i % 3],
    }));
  await store(deps.kv, { events: all });
  const expected = naiveAggregate(all, scope, q);

  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("./compact_kill_child.ts", import.meta.url).pathname, path, String(NOW)],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  while (!out.includes("published")) {
    const { value, done } = await reader.read();
    if (done) break;
    out += value;
  }
  assert.ok(out.includes("published"), "the child published a part");
  child.kill("SIGKILL");
  assert.equal((await child.status).signal, "SIGKILL");
  await reader.cancel().catch(() => {});

  // the dead run's lease stands a little while: no second run on the same raw keys meanwhile
  deps.clock.set(NOW + 30_000);
  assert.deepEqual(await compact(deps, "org1", "production", "ev", { graceMs: 0 }), {
    parts: 0,
    rows: 0,
    merged: 0,
  });
  assert.ok((await deps.kv.get(keys.compactLease("org1", "production", "ev"))).value);
  assert.deepEqual(await createEngine(deps).aggregate(scope, q), expected, "answers exact meanwhile");

  // about a minute later it has lapsed (before: ten minutes): the next run resumes and finishes
  deps.clock.set(NOW + 61_000);
  const report = await compact(deps, "org1", "production", "ev", { graceMs: 0 });
  assert.equal(report.rows, 200, "the rows the killed run had not published");
  const parts = await listParts(deps.kv, "org1", "production", "ev");
  assert.equal(parts.reduce((n, p) => n + p.meta.rows, 0), 300);
  assert.ok(parts.every((p) => !p.meta.pending));
  assert.deepEqual(await createEngine(deps).aggregate(scope, q), expected);
  assert.equal((await deps.kv.get(keys.compactLease("org1", "production", "ev"))).value, null, "released");
  deps.kv.close();
  await Deno.remove(dir, { recursive: true });
});
