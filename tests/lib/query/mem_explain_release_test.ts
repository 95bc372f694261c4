/**
 * Explain-a-change's first events are let go once a question is answered (explain_answers.ts
 * explainAlone, first_touch.ts releaseFirstUnit): each part's rows were read for that question alone and
 * are decoded in place on their inflated section, so the whole buffer under them is detached at once
 * instead of waiting, dead, for V8's next full collection (at 10M events ~25 MB a 7-day period, still
 * there while the tool asked its previous period). The raw tail's facts, which the rollup of the tail keeps,
 * are not touched, and an answer asked again is the same.
 */
import assert from "node:assert/strict";
import { compact } from "../../../lib/jobs/compact.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import { RollupSource } from "../../../lib/query/rollup/source.ts";
import { ExplainAnswers } from "../../../lib/query/rollup/explain_answers.ts";
import type { FirstUnit } from "../../../lib/query/rollup/first_touch.ts";
import type { Scope } from "../../../lib/query/api.ts";
import type { AttributionOptions } from "../../../lib/query/sequence_types.ts";
import { LAST7, PREV7 } from "../../tools/expect.ts";
import { harness } from "../../tools/harness.ts";

const detached = (a: ArrayBufferView) => (a.buffer as ArrayBuffer).detached;
type Reads = { firstUnits: (...a: unknown[]) => Promise<FirstUnit[] | null> };

Deno.test("explain-a-change: the parts' first events read for a question are detached once it is answered", async () => {
  const h = await harness({ visitors: 120 });
  await compact(h.deps, h.t.org, "production", "ev", { graceMs: 0 });
  const scope = (p: { from: number; to: number }): Scope => ({
    org: h.t.org,
    env: "production",
    touchpoint: h.t.touchpoint,
    from: p.from,
    to: p.to,
    timezone: "UTC",
  });
  const proto = ExplainAnswers.prototype as unknown as Reads;
  const read = proto.firstUnits;
  const seen: FirstUnit[] = [];
  proto.firstUnits = async function (this: unknown, ...a: unknown[]) {
    const got = await read.apply(this, a);
    if (got) seen.push(...got);
    return got;
  };
  try {
    const asks: AttributionOptions[] = [
      { fields: ["channel", "page"], unit: "visitor" },
      { fields: ["source"], unit: "session" },
    ];
    for (const o of asks) {
      seen.length = 0;
      const engine = new RollupSource(h.deps, new Source(h.deps));
      const now = await engine.attribution(scope(LAST7), o);
      const before = await engine.attribution(scope(PREV7), o);
      assert.ok(now && before, "answered from the first events");
      assert.ok(seen.length > 0, "first events were read");
      for (const u of seen) {
        const r = u.rows;
        for (const a of [r.vis, r.hour, r.tp, r.traffic, r.pv, r.first, r.dt, r.seq, ...r.codes]) {
          assert.equal(detached(a), true, JSON.stringify(o));
        }
        if (o.unit === "session") {
          assert.ok(u.ids);
          assert.equal(detached(u.ids.h1), true);
          assert.equal(detached(u.ids.h2), true);
        }
      }
      // answered again on a fresh engine (its rows read again): the same answers
      const again = new RollupSource(h.deps, new Source(h.deps));
      assert.deepEqual(await again.attribution(scope(LAST7), o), now);
      assert.deepEqual(await again.attribution(scope(PREV7), o), before);
    }
  } finally {
    proto.firstUnits = read;
    h.close();
  }
});
