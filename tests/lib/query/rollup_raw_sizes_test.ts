/**
 * A rollup entry records each section's inflated size (read back, the decoders inflate into one buffer of
 * it); an entry written before that (two-element sizes) still answers the same, and the backfill adds the
 * sizes to it without changing anything else.
 */
import assert from "node:assert/strict";
import { compact } from "../../../lib/jobs/compact.ts";
import { backfillRollups } from "../../../lib/jobs/rollup_backfill.ts";
import type { AggregateOptions, Scope } from "../../../lib/query/api.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import { RollupSource } from "../../../lib/query/rollup/source.ts";
import {
  decodeEnds,
  decodeFacts,
  ENDS_SEC,
  factsSec,
  hasRawSizes,
  rawOf,
  readSection,
  readSections,
  type RollupEntry,
} from "../../../lib/query/rollup/store.ts";
import { inflateBytes } from "../../../lib/parts/packed_arrays.ts";
import { listParts } from "../../../lib/parts/store.ts";
import { keys } from "../../../lib/store/keys.ts";
import { testDeps } from "../../helpers/deps.ts";
import { naiveAggregate } from "./reference.ts";
import { ev, store } from "./fixtures.ts";

const NOW = Date.parse("2026-11-20T12:00:00Z");
const DAY = 86_400_000;
const scope: Scope = { org: "org1", env: "production", from: NOW - 10 * DAY, to: NOW, timezone: "UTC" };

Deno.test("rollup entries record inflated sizes, read back and used; entries without them answer the same and get them from the backfill", async () => {
  const deps = await testDeps();
  deps.clock.set(NOW);
  const all = Array.from({ length: 300 }, (_, i) =>
    ev({
      received_at: NOW - (i % 4) * DAY - 3_600_000 + i * 5_000,
      anonymous_id: `v${i % 13}`,
      session_id: `s${i % 23}`,
      sequence_no: i % 5,
      event_type: i % 4 === 0 ? "sign_up" : "$pageview",
      path: ["/", "/a", "/b"][i % 3],
      source: ["google", "(direct)", "chatgpt"][i % 3 === 0 ? (i >> 2) % 3 : 1],
      channel: (["Organic Search", "Direct", "AI Assistant"] as const)[i % 3 === 0 ? (i >> 2) % 3 : 1],
    }));
  await store(deps.kv, { events: all });
  await compact(deps, "org1", "production", "ev", { graceMs: 0 });
  const parts = await listParts(deps.kv, "org1", "production", "ev");
  assert.ok(parts.length >= 2, `${parts.length} parts`);
  const written = new Map<string, RollupEntry>();
  for (const p of parts) {
    const entry = (await deps.kv.get<RollupEntry>(keys.rollup(p.meta.id))).value!;
    written.set(p.meta.id, entry);
    assert.ok(hasRawSizes(entry));
    const secs = Object.keys(entry.secs).map(Number);
    const read = await readSections(deps.kv, secs.map((sec) => ({ partId: p.meta.id, entry, sec })));
    secs.forEach((sec, k) => {
      const raw = inflateBytes(read[k]!).length;
      assert.equal(entry.secs[sec][2], raw, `section ${sec}`);
      assert.equal(rawOf(read[k]!), raw);
    });
    // decoded with the size or without it: the same arrays
    const ends = (await readSection(deps.kv, p.meta.id, entry, ENDS_SEC))!;
    assert.equal(rawOf(ends), entry.secs[ENDS_SEC][2]);
    assert.deepEqual(decodeEnds(ends), decodeEnds(ends.slice()));
    const block = secs.find((sec) => sec >= factsSec(0) && sec < factsSec(0) + 100)!;
    const facts = (await readSection(deps.kv, p.meta.id, entry, block))!;
    assert.deepEqual(decodeFacts(facts), decodeFacts(facts.slice()));
    // as written before sizes were kept
    const old = Object.fromEntries(Object.entries(entry.secs).map(([sec, [b, c]]) => [sec, [b, c]]));
    await deps.kv.set(keys.rollup(p.meta.id), { ...entry, secs: old });
  }
  const asks: AggregateOptions[] = [
    {
      metrics: ["visitors", "sessions", "conversions"],
      breakdown: ["channel"],
      goal: { event_type: "sign_up" },
    },
    { metrics: ["visitors", "sessions"], breakdown: ["source", "entry_page"] },
  ];
  for (const p of parts) {
    const entry = (await deps.kv.get<RollupEntry>(keys.rollup(p.meta.id))).value!;
    assert.equal(hasRawSizes(entry), false);
    assert.equal(rawOf((await readSection(deps.kv, p.meta.id, entry, ENDS_SEC))!), undefined);
  }
  const before = await new RollupSource(deps, new Source(deps)).answer(scope, asks);
  // from the rollups, not the scan
  assert.ok(before.every((a) => a !== null));
  asks.forEach((o, i) => assert.deepEqual(before[i], naiveAggregate(all, scope, o)));
  let left = 1;
  while (left) left = (await backfillRollups(deps, "org1", "production", { maxParts: 1 })).remaining;
  for (const p of parts) {
    assert.deepEqual((await deps.kv.get<RollupEntry>(keys.rollup(p.meta.id))).value, written.get(p.meta.id));
  }
  const after = await new RollupSource(deps, new Source(deps)).answer(scope, asks);
  assert.ok(after.every((a) => a !== null));
  asks.forEach((o, i) => assert.deepEqual(after[i], naiveAggregate(all, scope, o)));
});
