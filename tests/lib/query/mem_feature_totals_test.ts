/**
 * behavior_features' totals (answer.ts GroupCollector): their visitors are one mark per visitor number,
 * read off in ascending order when the question finishes, with no list of them grown as they are met (that
 * list, doubled as it grew, was ~11 MB made a cold question at 10M events). The totals' set is still every
 * distinct visitor, whatever order the tables meet them in.
 */
import assert from "node:assert/strict";
import { buildEventBatch } from "../../../lib/parts/event_batch.ts";
import { decodeSet } from "../../../lib/parts/visitor_set.ts";
import { buildFeatureTable } from "../../../lib/query/feature_rollup/build.ts";
import { GroupCollector, TOTALS } from "../../../lib/query/feature_rollup/answer.ts";
import type { Scope } from "../../../lib/query/types.ts";
import { ev } from "./fixtures.ts";

const NOW = Date.parse("2026-10-30T12:00:00Z");
const VISITORS = 4000, PAGES = 8;

Deno.test("feature totals: every distinct visitor, ascending, with no list of them held while counting", async () => {
  const events = [];
  for (let v = 0; v < VISITORS; v++) {
    for (let k = 0; k < 2; k++) {
      events.push(ev({
        received_at: NOW - 3_600_000 + v * 10 + k,
        anonymous_id: `v${v}`,
        session_id: `s${v}`,
        event_type: "$autocapture",
        element: "Buy",
        path: `/p${v % PAGES}`,
        properties: { action: "click" },
      }));
    }
  }
  const batch = await buildEventBatch(events);
  // visitor numbers met in descending order, spread out
  const { whole } = buildFeatureTable(batch, (i) => 3 * (VISITORS - 1 - Math.floor(i / 2)) + 5);
  const s: Scope = { org: "org1", env: "production", from: NOW - 86_400_000, to: NOW, timezone: "UTC" };
  const c = new GroupCollector(s, { metrics: ["events", "visitors"], breakdown: ["page"] }, 3 * VISITORS + 5);
  c.add({ t: whole, hours: null });
  // beside the marks (a byte a visitor number), nothing the collector holds is as long as its totals' members
  // (each page's list holds an eighth of them)
  const held = Object.values(c as unknown as Record<string, unknown>).filter((x) =>
    ArrayBuffer.isView(x) && !(x instanceof Uint8Array) && (x as Uint32Array).length >= VISITORS
  );
  assert.deepEqual(held, []);
  const groups = c.finish();
  const totals = groups.get(TOTALS)!;
  assert.equal(totals.visitors, VISITORS);
  assert.equal(totals.events, 2 * VISITORS);
  assert.deepEqual(decodeSet(totals.set), Array.from({ length: VISITORS }, (_, k) => 3 * k + 5));
  assert.equal(groups.size, PAGES + 1);
  for (const [name, g] of groups) if (name !== TOTALS) assert.equal(g.visitors, VISITORS / PAGES);
});
