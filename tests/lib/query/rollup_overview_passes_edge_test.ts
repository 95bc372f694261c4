/**
 * The overview's session totals counted in passes (lib/query/rollup/plain_answers.ts `spanKept`) for visitors
 * at a pass's edges: every visitor number has sessions in blocks joined whole (two touchpoints in a session,
 * so not simple; crossing midnight, so in two parts; more events of the same sessions arriving late, so their
 * keys shared between parts), so whatever numbers the passes start at (keysSplit), the visitors there have
 * rows in them. The row filter of those blocks (`f.vis[r] < lo || f.vis[r] >= hi`) taking one number too many
 * or too few at a range's edge counts such a visitor's sessions in two passes or in none (`> hi`: 86 sessions
 * for 72; `<= lo`: 70). Each question asked with room (one pass, equal to the reference), then at 95% to 10%
 * of what it held with room: the same answer or a 422, and some answers made in passes.
 */
import assert from "node:assert/strict";
import type { AggregateOptions, Metric, Scope } from "../../../lib/query/api.ts";
import { createEngine } from "../../../lib/query/api.ts";
import { overviewInPasses } from "../../../lib/query/rollup/plain_answers.ts";
import {
  dayEvents,
  DST_BASE as BASE,
  DST_NOW as NOW,
  expected,
  live,
  MINUTE,
  type Site,
} from "./rollup_site.ts";

const VISITORS = 24;

interface Step {
  minute: number;
  visitor: number;
  session: number;
  type: string;
  seq: number;
  traffic: string;
  tp: string;
  skew: number;
}

/**
 * Every visitor: a session from 23:20 of a day past midnight with events of two touchpoints (not simple: its
 * block joined whole), a second one the same way on another day (its device clock two hours behind), and a
 * simple one in the afternoon.
 */
function sessions(): Step[] {
  const out: Step[] = [];
  for (let v = 0; v < VISITORS; v++) {
    const days = [v % 8, (v * 3 + 1) % 8];
    days.forEach((d, s) => {
      const start = d * 24 * 60 + 23 * 60 + 20;
      const types = ["$pageview", "$autocapture", "$pageview", "sign_up", "$pageview", "$pageleave"];
      types.forEach((type, k) => {
        out.push({
          minute: start + k * 13 + (v % 5),
          visitor: v,
          session: s,
          type,
          seq: k,
          traffic: "human",
          // two touchpoints in one session: not simple, its block joined whole
          tp: (k + v) % 2 ? "tp1" : "tp2",
          skew: s ? -7_200_000 : 0,
        });
      });
    });
    const noon = ((v + 2) % 8) * 24 * 60 + 14 * 60 + v;
    for (let k = 0; k < 3; k++) {
      out.push({
        minute: noon + k * 4,
        visitor: v,
        session: 2,
        type: k === 2 ? "$pageleave" : "$pageview",
        seq: k,
        traffic: "human",
        tp: "tp1",
        skew: 0,
      });
    }
  }
  return out;
}

const toEvents = (steps: Step[], shift = 0) =>
  dayEvents(steps, shift, (r) => ({ path: r.minute % 3 ? "/" : "/b" }));

const METRICS: Metric[] = [
  "sessions",
  "views_per_session",
  "bounce_rate",
  "session_duration_s",
  "engaged_visitors",
  "dropped_events",
  "visitors",
  "pageviews",
  "entries",
  "exits",
];

/**
 * The totals and the pages list (entries and exits by page), over the whole ten days and a period cutting hours
 * of parts (its spans cut: their blocks joined whole too).
 */
const ASKS: { scope: Scope; opts: AggregateOptions }[] = [0, 17].flatMap((cut) =>
  [{ metrics: METRICS }, { metrics: ["entries", "exits"], breakdown: ["page"] }].map((opts) => ({
    scope: {
      org: "org1",
      env: "production",
      from: BASE + cut * MINUTE,
      to: Math.min(NOW, BASE + 10 * 24 * 60 * MINUTE - cut * 2 * MINUTE),
      timezone: "UTC",
      traffic: ["human"],
    },
    opts: opts as AggregateOptions,
  }))
);

/** Limits as shares of what the question held with room (past half of it the totals go in passes). */
const SHARES = [0.95, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1];

const engineOf = (site: Site, limit: number) =>
  createEngine({
    ...site.deps,
    config: { ...site.deps.config, partCacheBytes: 1, questionMemoryBytes: limit },
  });

Deno.test("rollup overview in passes: visitors at the passes' edges with sessions in blocks joined whole are counted once", async () => {
  let inPasses = 0, answered = 0, asked = 0;
  const passesBefore = overviewInPasses.passes;
  const steps = sessions();
  await live(
    NOW,
    {
      first: toEvents(steps),
      // more events of the same sessions, late (in other parts: keys shared), each visitor's first session's
      late: toEvents(steps.filter((s) => s.session === 0 && s.seq >= 3), 2 * MINUTE + 1),
    },
    async (site, stage) => {
      for (const { scope, opts } of ASKS) {
        const want = expected(site, scope, opts);
        const before = overviewInPasses.answers;
        const roomy = engineOf(site, 0);
        const one = await roomy.aggregate(scope, opts);
        const peak = roomy.workingMemory().peakQuestion;
        assert.equal(overviewInPasses.answers, before, "one pass with room");
        assert.deepEqual(one, want, JSON.stringify({ stage, scope, opts }));
        assert.ok((await site.rollups().answer(scope, [opts]))[0] !== null, "the rollups answer it");
        for (const limit of SHARES.map((x) => Math.floor(peak * x))) {
          const tight = engineOf(site, limit);
          asked++;
          const at = overviewInPasses.answers;
          const got = await tight.aggregate(scope, opts).catch((e) => {
            if ((e as { status?: number }).status === 422) return null;
            throw e;
          });
          const w = tight.workingMemory();
          assert.ok(w.peakQuestion <= limit, `held ${w.peakQuestion} of ${limit}`);
          assert.equal(w.held, 0, "nothing held once answered");
          if (got === null) continue;
          answered++;
          const passed = overviewInPasses.answers > at;
          if (passed) inPasses++;
          assert.deepEqual(got, one, JSON.stringify({ stage, scope, opts, limit, passed }));
        }
      }
    },
  );
  console.log(
    `${answered} tight answers (${asked} asked), ${inPasses} in passes (${
      overviewInPasses.passes - passesBefore
    } passes)`,
  );
  assert.ok(inPasses > 0, "some answers made in passes");
  assert.ok(overviewInPasses.passes - passesBefore >= 2 * inPasses, "several passes each");
});
