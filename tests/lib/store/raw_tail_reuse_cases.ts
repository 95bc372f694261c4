/**
 * A large raw tail costs a question little once it has been read (issue 32): a read again takes unchanged
 * records as decoded before (only new or rewritten ones are decoded), the read engine keeps the tail in
 * its budget beside what questions derive, hands the tail out frozen so every kind of question shares one
 * built batch, and building a batch gives the event loop turns every few thousand rows. Observed through
 * object identity and counted work between turns, not through timing.
 */
import assert from "node:assert/strict";
import { createApp } from "../../../app.ts";
import { generateSite } from "../../../lib/demo/site.ts";
import { buildEventBatch } from "../../../lib/parts/event_batch.ts";
import { SLICE_ROWS } from "../../../lib/parts/columns.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import { keys } from "../../../lib/store/keys.ts";
import { readEventTail, REUSE_FROM } from "../../../lib/store/raw_tail.ts";
import type { StoredEvent } from "../../../lib/store/records.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../../helpers/deps.ts";
import { createTenant } from "../../helpers/tenant.ts";

async function world(events: number, partCacheBytes?: number) {
  const base = await testDeps();
  const deps = partCacheBytes ? { ...base, config: { ...base.config, partCacheBytes } } : base;
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN, { domain: "acme.test", plan: "enterprise" });
  await generateSite(deps, {
    org: t.org,
    touchpoint: t.touchpoint,
    host: "acme.test",
    events,
    hits: 0,
    days: 3,
    seed: 5,
    compact: false,
  });
  const where = { org: t.org, env: "production" as const, log: deps.log, now: deps.clock.now() };
  return { deps, t, where };
}

Deno.test("raw tail read again: unchanged records are the ones decoded before; new, rewritten and deleted ones are not", async () => {
  const { deps, where } = await world(300);
  const kv = deps.kv;
  const first = await readEventTail(kv, where);
  assert.equal(first.records.length, 300);
  const again = await readEventTail(kv, where, first, 0);
  assert.deepEqual(again.stamps, first.stamps);
  assert.ok(again.records.every((r, i) => r === first.records[i]), "nothing changed: the same objects");

  // a new event, one rewritten in place, one deleted
  const [a, b] = [first.records[10], first.records[20]];
  const key = (e: StoredEvent) => keys.rawEvent(e.org, e.env, e.received_at, e.id);
  const added: StoredEvent = { ...a, id: "added-event-id", received_at: a.received_at + 1 };
  await kv.set(key(added), added);
  await kv.set(key(b), { ...b, path: "/rewritten" });
  await kv.delete(key(first.records[30]));
  const after = await readEventTail(kv, where, first, 0);
  assert.equal(after.records.length, 300);
  const byId = new Map(after.records.map((r) => [r.id, r]));
  assert.equal(byId.get("added-event-id")?.path, added.path, "the new event is read");
  assert.equal(byId.get(b.id)?.path, "/rewritten", "the rewritten event has its new value");
  assert.notEqual(byId.get(b.id), b);
  assert.ok(!byId.has(first.records[30].id), "the deleted event is gone");
  assert.equal(byId.get(a.id), a, "an unchanged event is the object read before");
  // the same as a read from scratch, in key order
  const fresh = await readEventTail(kv, where);
  assert.deepEqual(after.records, fresh.records);
  assert.deepEqual(after.stamps, fresh.stamps);
});

Deno.test("a new raw record that does not decode is moved aside on a read again, as on a first read", async () => {
  const { deps, where } = await world(50);
  const first = await readEventTail(deps.kv, where);
  const e = first.records[5];
  await deps.kv.set(keys.rawEvent(e.org, e.env, e.received_at + 1, "broken-record"), { not: "an event" });
  const after = await readEventTail(deps.kv, where, first, 0);
  assert.equal(after.records.length, 50);
  assert.ok(!after.records.some((r) => r.id === "broken-record"));
  const moved = await Array.fromAsync(deps.kv.list({ prefix: keys.quarantine(e.org) }));
  assert.equal(moved.length, 1, "quarantined");
});

Deno.test("building a batch of raw events never handles more than a few thousand rows between two turns", async () => {
  const { deps, where } = await world(9_000);
  const { records } = await readEventTail(deps.kv, where);
  // every read of a record's properties counted; the count between two turns kept at its largest
  let reads = 0, most = 0, turns = 0;
  const watched = records.map((e) =>
    new Proxy(e, {
      get(target, prop, receiver) {
        if (prop === "properties") reads++;
        return Reflect.get(target, prop, receiver);
      },
    })
  );
  await buildEventBatch(watched, () => {
    turns++;
    most = Math.max(most, reads);
    reads = 0;
    return Promise.resolve();
  });
  most = Math.max(most, reads);
  assert.ok(turns > 9_000 / SLICE_ROWS, `${turns} turns`);
  assert.ok(most <= 2 * SLICE_ROWS, `${most} records' properties read between two turns`);
});

Deno.test("a kept raw tail: not pushed out by what its question derives, and one batch for the scan and the rollups", async () => {
  // a budget the tail (1,500 bytes a record counted) fills a third of
  const rows = 2_000, capacity = 3 * rows * 1_500;
  const { deps, t } = await world(rows, capacity);
  const source = new Source(deps);
  const now = deps.clock.now(), day = 86_400_000;
  const load = () => source.events(t.org, "production", now - 7 * day, now + 1);
  const first = await load();
  assert.equal(first.rawRows, rows);
  // what the question derived, within the half of the budget derived data may hold
  source.keep("derived", {}, Math.floor(capacity * 0.45));
  const second = await load();
  assert.equal(second.batches.at(-1)!.b, first.batches.at(-1)!.b, "the tail's batch was kept");

  const a = await source.partsAndTail(t.org, "production", now - 7 * day, now + 1);
  const b = await source.partsAndTail(t.org, "production", now - 7 * day, now + 1);
  assert.equal(a.tail, b.tail, "the same tail: the same array");
  assert.ok(Object.isFrozen(a.tail));
  assert.equal(await buildEventBatch(a.tail), first.batches.at(-1)!.b, "the rollups' build is the scan's");
  const part = await source.partsAndTail(t.org, "production", now - day, now + 1);
  assert.ok(part.tail.length < rows && part.tail.length > 0);
  const again = await source.partsAndTail(t.org, "production", now - day, now + 1);
  assert.equal(again.tail, part.tail, "a part of the tail asked again: the same array");
  assert.equal(await buildEventBatch(again.tail), await buildEventBatch(part.tail));
});

Deno.test("loads of one question (Source.question) share a raw tail read started after it began, and see writes before it", async () => {
  const { deps, t, where } = await world(200);
  let tailLists = 0;
  const kv = new Proxy(deps.kv, {
    get(target, prop) {
      if (prop === "list") {
        return (sel: Deno.KvListSelector, opts?: Deno.KvListOptions) => {
          if (String(("prefix" in sel ? sel.prefix : sel.start)?.[0]) === "raw_ev") tailLists++;
          return target.list(sel, opts);
        };
      }
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  const source = new Source({ ...deps, kv });
  const now = deps.clock.now(), day = 86_400_000;
  const load = () => source.events(t.org, "production", now - 7 * day, now + 1);
  await load();
  // two waves of loads, as a tool asks: one listing of the tail for the question
  tailLists = 0;
  await source.question(async () => {
    await load();
    await Promise.all([load(), source.partsAndTail(t.org, "production", now - day, now + 1)]);
  });
  assert.equal(tailLists, 1, "one read of the tail for the question's loads");
  // outside a question each load is its own question
  tailLists = 0;
  await load();
  await load();
  assert.equal(tailLists, 2);
  // a write done before a question began is in its answer
  const first = (await readEventTail(deps.kv, where)).records[0];
  const added = { ...first, id: "written-before-the-question", received_at: first.received_at + 1 };
  await deps.kv.set(keys.rawEvent(added.org, added.env, added.received_at, added.id), added);
  const seen = await source.question(() => load());
  assert.equal(seen.rawRows, 201);
  assert.ok(seen.tailIds.includes(added.id));
});

Deno.test("a raw tail shorter than REUSE_FROM is read whole again (two listings cost a small tail more than decoding)", async () => {
  const { deps, where } = await world(300);
  assert.ok(300 < REUSE_FROM);
  const first = await readEventTail(deps.kv, where);
  const again = await readEventTail(deps.kv, where, first);
  assert.deepEqual(again.records, first.records);
  assert.ok(again.records.every((r, i) => r !== first.records[i]), "decoded anew, not reused");
});
