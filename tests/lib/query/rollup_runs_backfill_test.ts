/**
 * A version-9 rollup (no runs) gets the runs section from the backfill, built from its stored sections (the
 * part is not read), its other sections left as written: the same runs as written with the rollup, and the
 * sources then come from them, equal to the reference.
 */
import assert from "node:assert/strict";
import { compact } from "../../../lib/jobs/compact.ts";
import { backfillRollups } from "../../../lib/jobs/rollup_backfill.ts";
import type { AggregateOptions, Scope } from "../../../lib/query/api.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import { RollupSource } from "../../../lib/query/rollup/source.ts";
import { runsAnswered } from "../../../lib/query/rollup/attribution_period.ts";
import type { AttrRuns } from "../../../lib/query/rollup/attribution_runs.ts";
import {
  ATTR_RUNS_SEC,
  decodeRuns,
  hasRollup,
  readSection,
  ROLLUP_VERSION,
  type RollupEntry,
} from "../../../lib/query/rollup/store.ts";
import { listParts } from "../../../lib/parts/store.ts";
import { keys } from "../../../lib/store/keys.ts";
import { testDeps } from "../../helpers/deps.ts";
import { naiveAggregate } from "./reference.ts";
import { ev, store } from "./fixtures.ts";

const NOW = Date.parse("2026-11-20T12:00:00Z");
const DAY = 86_400_000;
const MIDNIGHT = Date.parse("2026-11-20T00:00:00Z");
const scope: Scope = { org: "org1", env: "production", from: NOW - 10 * DAY, to: NOW, timezone: "UTC" };

/** Runs as sets of what they say (their order and codes depend on the order the facts were read in). */
function said(r: AttrRuns): string[] {
  const out: string[] = [];
  for (let x = 0; x < r.n; x++) {
    const sig = r.sigs[r.sig[x]].map((it) => `${JSON.stringify(r.tuples[it >> 1])}${it & 1}`).sort();
    for (let i = r.at[x]; i < r.at[x + 1]; i++) {
      const entry = r.entry[i] ? r.pages[r.entry[i] - 1] : "-";
      out.push(JSON.stringify([r.tp[x], r.traffic[x], sig, r.keys[i], r.h0[i], r.h1[i], entry]));
    }
  }
  return out.sort();
}

Deno.test("rollup backfill: a version-9 rollup gets its runs from its own sections, the rest kept, then sources come from them", async () => {
  const deps = await testDeps();
  deps.clock.set(NOW);
  // sessions crossing midnight UTC (each in two parts), changing source and page on the way
  const all = Array.from({ length: 400 }, (_, i) =>
    ev({
      received_at: MIDNIGHT - (i % 3) * DAY - 900_000 + i * 4_000,
      anonymous_id: `v${i % 17}`,
      session_id: `s${i % 29}`,
      sequence_no: i % 5,
      event_type: i % 4 === 0 ? "sign_up" : "$pageview",
      path: ["/", "/a", "/b"][i % 3],
      source: ["google", "(direct)", "chatgpt"][i % 3 === 0 ? (i >> 2) % 3 : 1],
      channel: (["Organic Search", "Direct", "AI Assistant"] as const)[i % 3 === 0 ? (i >> 2) % 3 : 1],
    }));
  await store(deps.kv, { events: all });
  await compact(deps, "org1", "production", "ev", { graceMs: 0 });
  const parts = await listParts(deps.kv, "org1", "production", "ev");
  assert.ok(parts.length >= 3, `${parts.length} parts`);
  const written = new Map<string, RollupEntry>(), runs = new Map<string, string[]>();
  for (const p of parts) {
    const entry = (await deps.kv.get<RollupEntry>(keys.rollup(p.meta.id))).value!;
    runs.set(p.meta.id, said(decodeRuns((await readSection(deps.kv, p.meta.id, entry, ATTR_RUNS_SEC))!)));
    // as version 9 left them: no runs
    const secs = { ...entry.secs };
    delete secs[ATTR_RUNS_SEC];
    written.set(p.meta.id, { ...entry, v: 9, secs });
    await deps.kv.set(keys.rollup(p.meta.id), written.get(p.meta.id));
    assert.equal(await hasRollup(deps.kv, p.meta.id), false);
  }
  const asks: AggregateOptions[] = [
    {
      metrics: ["visitors", "sessions", "conversions"],
      breakdown: ["channel"],
      goal: { event_type: "sign_up" },
    },
    { metrics: ["visitors", "sessions"], breakdown: ["source", "entry_page"] },
  ];
  // until the backfill: the scan
  assert.deepEqual(await new RollupSource(deps, new Source(deps)).answer(scope, asks), [null, null]);
  let left = 1;
  while (left) left = (await backfillRollups(deps, "org1", "production", { maxParts: 2 })).remaining;
  for (const p of parts) {
    assert.ok(await hasRollup(deps.kv, p.meta.id));
    const entry = (await deps.kv.get<RollupEntry>(keys.rollup(p.meta.id))).value!;
    assert.equal(entry.v, ROLLUP_VERSION);
    const { secs, ...rest } = written.get(p.meta.id)!;
    assert.deepEqual({ ...entry, secs: undefined, v: 9 }, { ...rest, secs: undefined });
    for (const [sec, size] of Object.entries(secs)) assert.deepEqual(entry.secs[sec], size);
    // the runs the rollup was written with
    const added = decodeRuns((await readSection(deps.kv, p.meta.id, entry, ATTR_RUNS_SEC))!);
    assert.deepEqual(said(added), runs.get(p.meta.id));
  }
  const before = runsAnswered.count;
  const got = await new RollupSource(deps, new Source(deps)).answer(scope, asks);
  assert.equal(runsAnswered.count - before, asks.length);
  asks.forEach((o, i) => assert.deepEqual(got[i], naiveAggregate(all, scope, o)));
});
