/** Random sites for the step column tests (step_column_*_test.ts). */
import fc from "fast-check";
import type { Deps } from "../../../lib/deps.ts";
import { backfillStepColumns } from "../../../lib/jobs/step_column_backfill.ts";
import { compact } from "../../../lib/jobs/compact.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import { ScanContexts } from "../../../lib/query/scan/contexts.ts";
import type { StoredEvent } from "../../../lib/store/records.ts";
import { testDeps } from "../../helpers/deps.ts";
import { ev, store } from "./fixtures.ts";

export const NOW = Date.parse("2026-03-30T12:00:00Z"); // the week Berlin's clocks went forward
export const MIDNIGHT = Date.parse("2026-03-29T00:00:00Z");

export const eventArb = fc.record({
  minute: fc.integer({ min: -90, max: 60 }),
  day: fc.integer({ min: 0, max: 1 }),
  visitor: fc.constantFrom("v1", "v2", "v3", "v4"),
  session: fc.constantFrom("s1", "s2", "s3"),
  type: fc.constantFrom("$pageview", "$pageview", "$pageleave", "sign_up", "purchase"),
  page: fc.constantFrom("/", "/pricing", "/docs/a", "/docs/b"),
  touchpoint: fc.constantFrom("tp1", "tp1", "tp2"),
  traffic: fc.constantFrom("human", "human", "bot"),
  skew: fc.constantFrom(0, 0, -1500, 2000),
  seq: fc.integer({ min: 0, max: 2 }),
});
export type Raw = typeof eventArb extends fc.Arbitrary<infer T> ? T : never;

/** One event of visitor v1 on day 0 (human, touchpoint tp1, no skew), `minute` past midnight. */
export const oneVisitorEvent = (
  minute: number,
  type: Raw["type"],
  page: Raw["page"],
  session: Raw["session"] = "s1",
): Raw => ({
  minute,
  day: 0,
  visitor: "v1",
  session,
  type,
  page,
  touchpoint: "tp1",
  traffic: "human",
  skew: 0,
  seq: 0,
});

/** Receive times on whole minutes: equal times (and device times, numbers) in one visitor happen. */
export const toEvents = (raw: Raw[]): StoredEvent[] =>
  raw.map((r) => {
    const t = MIDNIGHT + r.day * 86_400_000 + r.minute * 60_000;
    return ev({
      received_at: t,
      device_time: new Date(t + r.skew).toISOString(),
      sequence_no: r.seq,
      anonymous_id: r.visitor,
      session_id: r.session,
      event_type: r.type,
      path: r.page,
      touchpoint: r.touchpoint,
      traffic: r.traffic as "human",
      crawler: r.traffic === "human" ? null : "GPTBot",
    });
  });

/** Stores the events (compacted, late ones compacted, columns backfilled, then a raw tail); asks over a
 * source no part fits (streamed). */
export async function columnSite(
  first: Raw[],
  late: Raw[],
  tail: Raw[],
  ask: (site: { deps: Deps; all: StoredEvent[]; tiny: ScanContexts }) => Promise<void>,
) {
  const deps = await testDeps();
  deps.clock.set(NOW);
  try {
    const a = toEvents(first), b = toEvents(late), c = toEvents(tail);
    await store(deps.kv, { events: a });
    await compact(deps, "org1", "production", "ev", { graceMs: 0 });
    await store(deps.kv, { events: b });
    await compact(deps, "org1", "production", "ev", { graceMs: 0 });
    await backfillStepColumns(deps, "org1", "production");
    await store(deps.kv, { events: c });
    const tiny = new ScanContexts(new Source({ ...deps, config: { ...deps.config, partCacheBytes: 1 } }));
    await ask({ deps, all: [...a, ...b, ...c], tiny });
  } finally {
    deps.kv.close();
  }
}
