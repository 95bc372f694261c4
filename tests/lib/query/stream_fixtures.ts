/**
 * Random sites for the streamed questions' tests: sessions around two midnights (rows in two parts), a later
 * part of an earlier day (late arrivals) and a raw tail; scans with a budget no part fits (streamed) and a
 * roomy one (the scan over all batches).
 */
import fc from "fast-check";
import { Source } from "../../../lib/query/columns/source.ts";
import { ScanContexts } from "../../../lib/query/scan/contexts.ts";
import type { Filter, Scope } from "../../../lib/query/types.ts";
import { compact } from "../../../lib/jobs/compact.ts";
import type { StoredEvent } from "../../../lib/store/records.ts";
import { testDeps } from "../../helpers/deps.ts";
import { ev, store } from "./fixtures.ts";

export const NOW = Date.parse("2026-11-05T12:00:00Z");
const MIDNIGHT = Date.parse("2026-11-04T00:00:00Z");

export const eventArb = fc.record({
  // minutes around the last two midnights: sessions cross them
  minute: fc.integer({ min: -90, max: 60 }),
  day: fc.integer({ min: 0, max: 1 }),
  visitor: fc.constantFrom("v1", "v2", "v3", "v4"),
  session: fc.constantFrom("s1", "s2", "s3"),
  type: fc.constantFrom("$pageview", "$pageview", "$pageleave", "sign_up"),
  page: fc.constantFrom("/", "/pricing", "/docs"),
  country: fc.constantFrom("DE", "GB", null),
  source: fc.constantFrom("Google", "(direct)"),
  traffic: fc.constantFrom("human", "human", "bot"),
  seq: fc.integer({ min: 0, max: 4 }),
});
export type Ev = typeof eventArb extends fc.Arbitrary<infer T> ? T : never;

/** Every event its own receive time (orders are fully determined). */
const toEvents = (raw: Ev[], offset: number): StoredEvent[] =>
  raw.map((r, i) => {
    const t = MIDNIGHT + r.day * 86_400_000 + r.minute * 60_000 + 3 * i + offset;
    return ev({
      received_at: t,
      device_time: new Date(t).toISOString(),
      sequence_no: r.seq,
      anonymous_id: r.visitor,
      session_id: r.session,
      event_type: r.type,
      path: r.page,
      source: r.source,
      geo: { country: r.country, city: null, asn: null, as_org: null },
      traffic: r.traffic as "human",
      crawler: r.traffic === "human" ? null : "GPTBot",
    });
  });

export const filterArb = fc.option(
  fc.constantFrom<Filter[]>(
    [{ field: "page", op: "eq", value: "/pricing" }],
    [{ field: "country", op: "neq", value: "DE" }],
    [{ field: "event_type", op: "in", value: ["sign_up", "$pageleave"] }],
  ),
  { nil: undefined },
);

/** Stores the events (compacted, then late ones compacted, then a raw tail) and gives both scans over them. */
export async function streamSite(
  first: Ev[],
  late: Ev[],
  tail: Ev[],
  filters: Filter[] | undefined,
  ask: (
    site: { all: StoredEvent[]; scope: Scope; tiny: ScanContexts; roomy: ScanContexts; kv: Deno.Kv },
  ) => Promise<void>,
) {
  const deps = await testDeps();
  deps.clock.set(NOW);
  try {
    const a = toEvents(first, 0), b = toEvents(late, 1), c = toEvents(tail, 2);
    await store(deps.kv, { events: a });
    await compact(deps, "org1", "production", "ev", { graceMs: 0 });
    await store(deps.kv, { events: b });
    await compact(deps, "org1", "production", "ev", { graceMs: 0 });
    await store(deps.kv, { events: c });
    const scope: Scope = {
      org: "org1",
      env: "production",
      from: MIDNIGHT - 86_400_000,
      to: NOW,
      timezone: "UTC",
      filters,
    };
    const tiny = new ScanContexts(new Source({ ...deps, config: { ...deps.config, partCacheBytes: 1 } }));
    const roomy = new ScanContexts(new Source(deps));
    await ask({ all: [...a, ...b, ...c], scope, tiny, roomy, kv: deps.kv });
  } finally {
    deps.kv.close();
  }
}
