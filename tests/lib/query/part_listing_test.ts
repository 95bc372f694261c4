/**
 * The part index listing a question's path is sized by (Source.indexedParts, periodRows; the engine's
 * siteFits) is kept while the compaction mark is unchanged: a compaction that publishes a part is seen at
 * once, and an unchanged index is not listed again.
 */
import assert from "node:assert/strict";
import { Source } from "../../../lib/query/columns/source.ts";
import { compact } from "../../../lib/jobs/compact.ts";
import { keys } from "../../../lib/store/keys.ts";
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

    // an index entry written without the compaction mark (not how parts are published) is not listed: the
    // index is read again only when the mark changes
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
