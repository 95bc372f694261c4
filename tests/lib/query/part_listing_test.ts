/**
 * The part index listing that reads and sizing use (Source.consistent, indexedParts, periodRows; the engine's
 * siteFits) is kept while the index's stamp holds (its version key and the compaction mark, written in the
 * commit of every index change): each writer's change is seen at once, an unchanged index is not listed again.
 */
import assert from "node:assert/strict";
import { Source } from "../../../lib/query/columns/source.ts";
import { compact } from "../../../lib/jobs/compact.ts";
import { keys } from "../../../lib/store/keys.ts";
import type { PartMeta } from "../../../lib/parts/store.ts";
import { PartWriter } from "../../../lib/demo/part_writer.ts";
import { testDeps } from "../../helpers/deps.ts";
import { ev, store } from "./fixtures.ts";

const T0 = Date.parse("2026-11-18T10:00:00Z");
const DAY = 86_400_000;
const events = (day: number, n: number) =>
  Array.from(
    { length: n },
    (_, i) =>
      ev({
        received_at: T0 + day * DAY + i * 60_000,
        anonymous_id: `v${i % 7}`,
        session_id: `s${day}-${i % 9}`,
      }),
  );

Deno.test("part listing: a compaction's publish is seen by the next sizing, an unchanged index is not listed again", async () => {
  const deps = await testDeps();
  try {
    const source = new Source(deps);
    const [from, to] = [T0 - DAY, T0 + 5 * DAY];
    assert.equal(await source.periodRows("org1", "production", from, to), 0);
    await store(deps.kv, { events: events(0, 30) });
    await compact(deps, "org1", "production", "ev", { graceMs: 0 });
    assert.equal(await source.periodRows("org1", "production", from, to), 30, "the first publish is seen");
    await store(deps.kv, { events: events(1, 20) });
    await compact(deps, "org1", "production", "ev", { graceMs: 0 });
    assert.equal(await source.periodRows("org1", "production", from, to), 50, "the second publish is seen");
    assert.equal((await source.indexedParts("org1", "production")).length, 2);

    // an index entry written without touching the stamp (no writer does that) is not listed: the index is
    // listed again only when the stamp changes
    const list = deps.kv.list.bind(deps.kv);
    let lists = 0;
    deps.kv.list = ((...a: Parameters<Deno.Kv["list"]>) => (lists++, list(...a))) as Deno.Kv["list"];
    await deps.kv.set(keys.part("org1", "production", "ev", "zz"), {
      id: "zz",
      kind: "ev",
      rows: 5,
      min_t: T0,
      max_t: T0,
    });
    assert.equal(await source.periodRows("org1", "production", from, to), 50);
    assert.equal(lists, 0, "the unchanged index was not listed again");
    deps.kv.list = list;
    await deps.kv.delete(keys.part("org1", "production", "ev", "zz"));
    await store(deps.kv, { events: events(2, 10) });
    await compact(deps, "org1", "production", "ev", { graceMs: 0 });
    assert.equal(
      await source.periodRows("org1", "production", from, to),
      60,
      "a publish lists the index again",
    );
  } finally {
    deps.kv.close();
  }
});

Deno.test("part listing: an instance keeps the listings of its 64 most recent environments, not of every one asked", async () => {
  const deps = await testDeps();
  try {
    const source = new Source(deps);
    for (let o = 0; o < 70; o++) await source.indexedParts(`org${o}`, "production");
    const list = deps.kv.list.bind(deps.kv);
    let lists = 0;
    deps.kv.list = ((...a: Parameters<Deno.Kv["list"]>) => (lists++, list(...a))) as Deno.Kv["list"];
    await source.indexedParts("org69", "production");
    assert.equal(lists, 0, "a recent environment's listing is kept");
    await source.indexedParts("org0", "production");
    assert.equal(lists, 1, "the oldest environments' listings made room");
    deps.kv.list = list;
  } finally {
    deps.kv.close();
  }
});

/** Counts KV list calls from now on; `stop` restores the KV. */
function countLists(kv: Deno.Kv) {
  const list = kv.list.bind(kv);
  const counter = { lists: 0, stop: () => void (kv.list = list) };
  kv.list = ((...a: Parameters<Deno.Kv["list"]>) => (counter.lists++, list(...a))) as Deno.Kv["list"];
  return counter;
}

const idsOf = (parts: readonly PartMeta[]) => parts.map((p) => p.id).sort();

Deno.test("part listing: a read over an unchanged index lists nothing; each writer's change is seen by the next read", async () => {
  const deps = await testDeps();
  try {
    const source = new Source(deps);
    const read = () => source.consistent("org1", "production", "ev", (parts) => Promise.resolve(parts));
    await store(deps.kv, { events: events(0, 30) });
    await compact(deps, "org1", "production", "ev", { graceMs: 0 });
    const first = await read();
    assert.equal(first.length, 1);
    assert.equal(first[0].pending, false, "the published part's raw keys are gone: listed done");

    let lists = countLists(deps.kv);
    assert.deepEqual(idsOf(await read()), idsOf(first));
    assert.deepEqual(idsOf(await read()), idsOf(first));
    lists.stop();
    assert.equal(lists.lists, 0, "two reads over the unchanged index listed no part");

    // compaction publishes (and marks the part done in a later commit of its own)
    await store(deps.kv, { events: events(1, 20) });
    await compact(deps, "org1", "production", "ev", { graceMs: 0 });
    const second = await read();
    assert.equal(second.length, 2, "compaction's publish is seen");
    assert.ok(second.every((p) => !p.pending), "its raw keys deleted: the part is listed done");

    // the generator's direct parts
    const writer = new PartWriter(deps, "org1", "production", "ev");
    for (const e of events(3, 5)) await writer.add(e);
    await writer.close();
    assert.equal((await read()).length, 3, "the generator's part is seen");

    // an instance still running code from before the version key publishes with the mark only
    const meta = { ...second[0], id: "old-code-part" };
    await deps.kv.atomic().set(keys.part("org1", "production", "ev", meta.id), meta)
      .set(keys.compactMark("org1", "production", "ev"), { building: null, garbage: [] }).commit();
    assert.ok(idsOf(await read()).includes("old-code-part"), "a publish that writes only the mark is seen");

    lists = countLists(deps.kv);
    await read();
    lists.stop();
    assert.equal(lists.lists, 0, "and the index is kept again once it holds");
  } finally {
    deps.kv.close();
  }
});
