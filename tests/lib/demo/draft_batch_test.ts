import assert from "node:assert/strict";
import { isDeepStrictEqual } from "node:util";
import type { Batch } from "../../../lib/parts/columns.ts";
import { buildEventBatch } from "../../../lib/parts/event_batch.ts";
import { draftBatch } from "../../../lib/demo/draft_batch.ts";
import { type Draft, SiteModel } from "../../../lib/demo/model.ts";
import { storedEvent, type Target } from "../../../lib/demo/output.ts";

const target: Target = { org: "o", touchpoint: "tp", env: "production", host: "example.com" };
const END = Date.parse("2026-11-20T00:00:00Z");

const draftsOf = (seed: number, events: number) => [
  ...new SiteModel({ events, visitors: Math.round(events / 8), days: 3, end: END, seed }).events(),
];

/** Both ways of making a part's batch, each from its own copy of the drafts (both sort what they are given). */
async function both(drafts: Draft[]) {
  const viaRecords = await buildEventBatch([...drafts].map((d) => storedEvent(d, target)));
  const direct = await draftBatch([...drafts], target);
  return { viaRecords, direct };
}

/** Column by column (a failing deepEqual of whole batches prints for minutes). */
function assertSameBatch(direct: Batch, viaRecords: Batch, what: string) {
  assert.equal(direct.n, viaRecords.n, what);
  assert.deepEqual(
    Object.keys(direct.cols),
    Object.keys(viaRecords.cols),
    `${what}: columns and their order`,
  );
  for (const name of Object.keys(viaRecords.cols)) {
    assert.ok(isDeepStrictEqual(direct.cols[name], viaRecords.cols[name]), `${what}: column ${name} differs`);
  }
}

Deno.test("draft batch: the columns of the drafts' stored records, code for code", async () => {
  for (const [seed, events] of [[1, 3_000], [7, 12_000], [42, 500]]) {
    // shuffled, as a day's drafts wait in the writer: both must sort them into the same order
    const drafts = draftsOf(seed, events).reverse();
    const { viaRecords, direct } = await both(drafts);
    assertSameBatch(direct, viaRecords, `seed ${seed}`);
  }
});

Deno.test("draft batch: props past the own columns, and props the record derives, as the records give them", async () => {
  const drafts = draftsOf(3, 2_000);
  drafts.forEach((d, i) => {
    // more property names than get their own column (the rest column), and a draft that sets a derived one
    if (i % 2 === 0) d.props = { ...d.props, [`k${i % 180}`]: i, nested: { a: [i, null] } };
    if (i === 5) d.props = { ...d.props, url: "https://elsewhere.test/x", referrer: "r" };
    if (i === 6) d.props = { ...d.props, maybe: undefined };
  });
  const { viaRecords, direct } = await both(drafts);
  assert.ok(viaRecords.cols["p*"] && (viaRecords.cols["p*"] as { dict: string[] }).dict.length > 0);
  assertSameBatch(direct, viaRecords, "more props");
});
