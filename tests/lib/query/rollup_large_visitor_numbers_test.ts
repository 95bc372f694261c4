/**
 * Visitor numbers past 2^21 (an organization that has numbered over two million visitors): a key made as
 * visitor × 2^32 + first id hash no longer fits a double exactly, so two sessions of one visitor can share a
 * rounded key. Sources from runs with a raw tail holding both sessions must still count each once.
 */
import assert from "node:assert/strict";
import { idHashes } from "../../../lib/query/rollup/session_facts.ts";
import type { AggregateOptions, Scope } from "../../../lib/query/api.ts";
import { keys } from "../../../lib/store/keys.ts";
import type { StoredEvent } from "../../../lib/store/records.ts";
import {
  DAY,
  DST_NOW as NOW,
  expected,
  HOUR,
  MINUTE,
  openSite,
  originFields,
  ORIGINS,
  visitEvent,
} from "./rollup_site.ts";

const FIRST_NUMBER = 2 ** 21 + 6; // the numbers the site's visitors get: the counter stands there

/** Two session ids whose keys visitor × 2^32 + first id hash round to one double at visitor number `v`. */
function collidingSessions(v: number): [string, string] {
  const seen = new Map<number, [string, number]>();
  for (let i = 0;; i++) {
    const id = `s${i}`, h = idHashes(id)[0], key = v * 4_294_967_296 + h;
    const was = seen.get(key);
    if (was && was[1] !== h) return [was[0], id];
    seen.set(key, [id, h]);
  }
}

Deno.test("sources from runs: two sessions of a visitor numbered past 2^21 whose keys round alike count apart", async () => {
  const [sa, sb] = collidingSessions(FIRST_NUMBER);
  assert.notEqual(idHashes(sa)[0], idHashes(sb)[0]);
  const site = await openSite(NOW);
  try {
    await site.kv.set(keys.visitorCount("org1", "production"), FIRST_NUMBER);
    let serial = 0;
    const visit = (session: string, at: number, origin: number): StoredEvent => ({
      ...visitEvent(`e${serial++}`, at, at, {
        visitor: 0,
        session: 0,
        type: "$pageview",
        traffic: "human",
        tp: "tp1",
      }, {
        path: "/",
        ...originFields(ORIGINS[origin]),
      }),
      session_id: session,
    });
    const start = NOW - 3 * DAY;
    // both sessions in a part (their visitor the only one compacted: it gets FIRST_NUMBER), each with its
    // own origin
    await site.add([visit(sa, start, 1), visit(sb, start + 10 * MINUTE, 3)]);
    await site.compact();
    // both sessions again in the raw tail (late rows of compacted hours: they leave their runs), and a second
    // visitor
    await site.add([
      visit(sa, start + 5 * MINUTE, 1),
      visit(sb, start + 15 * MINUTE, 3),
      { ...visit("other", start + 20 * MINUTE, 0), anonymous_id: "v1" },
    ]);
    const scope: Scope = { org: "org1", env: "production", from: start - HOUR, to: NOW, timezone: "UTC" };
    const opts: AggregateOptions = { metrics: ["visitors", "sessions"], breakdown: ["channel"] };
    const want = expected(site, scope, opts);
    assert.equal(want.totals.sessions, 3, "the reference counts three sessions");
    const [got] = await site.rollups().answer(scope, [opts]);
    assert.ok(got, "the rollups answer");
    assert.deepEqual(got, want);
  } finally {
    await site.close();
  }
});
