import assert from "node:assert/strict";
import fc from "fast-check";
import { SiteModel } from "../../../lib/demo/model.ts";
import { Rng } from "../../../lib/demo/random.ts";

const END = Date.parse("2026-11-01T00:00:00Z");
const DAY = 86_400_000;

Deno.test("rng: skip(n) leaves it where n draws would", () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 2 ** 32 - 1 }), fc.integer({ min: 0, max: 200 }), (seed, n) => {
      const a = new Rng(seed), b = new Rng(seed);
      for (let i = 0; i < n; i++) a.next();
      b.skip(n);
      assert.equal(b.next(), a.next());
    }),
  );
});

Deno.test("model: kept by receive time, the drafts are the full run's drafts with those times, and as many are counted", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 1_000 }),
      fc.integer({ min: 0, max: 9 }),
      fc.integer({ min: 1, max: 10 }),
      (seed, from, span) => {
        const spec = { events: 1_500, visitors: 150, days: 10, end: END, seed };
        const keep = (t: number) => t >= END - (10 - from) * DAY && t < END - (10 - from - span) * DAY;
        const full = new SiteModel(spec), kept = new SiteModel(spec);
        const want = [...full.events()].filter((d) => keep(d.t));
        assert.deepEqual([...kept.events(keep)], want);
        assert.equal(kept.emitted, full.emitted);
      },
    ),
    { numRuns: 30 },
  );
});
