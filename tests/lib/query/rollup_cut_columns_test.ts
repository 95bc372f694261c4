/**
 * A period cutting a part's hours adds those hours' rows in the period to the raw tail's rollup
 * (lib/query/rollup/reader.ts `inPeriod`). They are read from the part in the columns that rollup reads only
 * (lib/query/rollup/cut_rows.ts), never made records; before, the part was read and inflated whole and the
 * rows made records, then a batch again. The rollup built the new way must be the one the records give,
 * field for field, and the answers the reference's: random events with equal times (ties only ids order),
 * device times that are not ISO, UTM objects, page-leave figures and rage clicks in their own columns or in
 * the rest column, a raw tail beside.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import type { AggregateOptions, Scope } from "../../../lib/query/api.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import { ScanContexts } from "../../../lib/query/scan/contexts.ts";
import { RollupReader } from "../../../lib/query/rollup/reader.ts";
import { batchVisitors, buildRollup, HOUR_MS, rowVisitors } from "../../../lib/query/rollup/build.ts";
import { CUT_COLUMNS } from "../../../lib/query/rollup/cut_rows.ts";
import { decodeBatch } from "../../../lib/parts/codec.ts";
import { type Batch, batchOfRows, type NumCol } from "../../../lib/parts/columns.ts";
import { buildEventBatch, reconstructEvents } from "../../../lib/parts/event_batch.ts";
import { partColumns, type PartMeta, readBlob } from "../../../lib/parts/store.ts";
import type { StoredEvent } from "../../../lib/store/records.ts";
import { noTurns } from "../../../lib/turns.ts";
import { ev } from "./fixtures.ts";
import {
  expected,
  MINUTE,
  openSite,
  scannedAttribution,
  type Site,
  sortedAttribution,
} from "./rollup_site.ts";

const BASE = Date.parse("2026-10-28T00:00:00Z");
const NOW = BASE + 3 * 86_400_000;

const rowArb = fc.record({
  // 30 hours from a midnight: two day parts, a few rows an hour
  hour: fc.integer({ min: 0, max: 29 }),
  // (equal receive times in a session are common: device time, number and id order them)
  minute: fc.constantFrom(0, 15, 30, 45, 59),
  second: fc.constantFrom(0, 0, 0, 17),
  visitor: fc.integer({ min: 0, max: 5 }),
  session: fc.integer({ min: 0, max: 2 }),
  seq: fc.integer({ min: 0, max: 2 }),
  type: fc.constantFrom("$pageview", "$pageview", "$pageleave", "$autocapture", "sign_up"),
  page: fc.constantFrom("/", "/a", "/b"),
  // a device time that is not an ISO string (kept as written), or behind
  device: fc.constantFrom("iso", "iso", "behind", "odd", "junk"),
  utm: fc.constantFrom(
    null,
    null,
    { source: "news", medium: "email", campaign: null, term: null, content: null },
    { source: null, medium: null, campaign: "c1", term: "t", content: null },
  ),
  origin: fc.integer({ min: 0, max: 2 }),
  traffic: fc.constantFrom("human", "human", "human", "bot"),
  eng: fc.constantFrom(1200, 0, 3.5, "12", null),
  depth: fc.constantFrom(40, 100, 250, null),
  rage: fc.constantFrom(true, false, "true"),
  late: fc.constantFrom(false, false, false, true),
});
type Row = typeof rowArb extends fc.Arbitrary<infer T> ? T : never;

let serial = 0;
/** `filler` property names on every event: more than 64 push the read ones into the rest column. */
const eventsOf = (rows: Row[], filler: number): StoredEvent[] =>
  rows.map((r) => {
    const at = BASE + (r.hour * 60 + r.minute) * MINUTE + r.second * 1000;
    const properties: Record<string, unknown> = {};
    for (let k = 0; k < filler; k++) properties[`f${String(k).padStart(2, "0")}`] = k;
    if (r.type === "$pageleave") {
      if (r.eng !== null) properties.engagement_time_ms = r.eng;
      if (r.depth !== null) properties.depth_percent = r.depth;
    }
    if (r.type === "$autocapture") properties.rage_click = r.rage;
    return ev({
      id: `e${serial++}`,
      received_at: at,
      device_time: r.device === "behind"
        ? new Date(at - 5000).toISOString()
        : r.device === "odd"
        ? new Date(at).toISOString().replace("T", " ")
        : r.device === "junk"
        ? "not a time"
        : new Date(at).toISOString(),
      sequence_no: r.seq,
      anonymous_id: `v${r.visitor}`,
      session_id: `s${r.visitor}-${r.session}`,
      event_type: r.type,
      path: r.page,
      host: ["acme.test", "www.acme.test"][r.origin % 2],
      element: r.type === "$autocapture" ? `button#${r.origin}` : null,
      utm: r.utm,
      source: ["(direct)", "google", "news"][r.origin],
      channel: (["Direct", "Organic Search", "Email"] as const)[r.origin],
      referrer_host: [null, "google.com", "news.test"][r.origin],
      geo: {
        country: ["DE", "GB", "US"][r.origin],
        city: ["Berlin", null, "Boston"][r.origin],
        asn: null,
        as_org: null,
      },
      device_type: (["desktop", "mobile", "tablet"] as const)[r.origin],
      browser: ["Chrome", "Firefox", "Safari"][r.origin],
      os: ["Linux", "iOS", "Windows"][r.origin],
      traffic: r.traffic as "human",
      crawler: r.traffic === "bot" ? "Googlebot" : null,
      properties,
    });
  });

/** The cut hours' rows of a period the way they were read before: the part whole, made records. */
async function wholePartRecords(kv: Deno.Kv, p: PartMeta, hours: number[], s: Scope): Promise<StoredEvent[]> {
  const batch = await decodeBatch({ n: p.rows, columns: await partColumns(kv, p) }, await readBlob(kv, p));
  const t = (batch.cols.t as NumCol).values, within = new Set(hours), rows: number[] = [];
  for (let i = 0; i < batch.n; i++) if (within.has(Math.floor(t[i] / HOUR_MS))) rows.push(i);
  const records = await reconstructEvents(batchOfRows(batch, rows), s.org, s.env);
  return records.filter((e) => e.received_at >= s.from && e.received_at < s.to);
}

const reader = (site: Site) => new RollupReader(site.deps, new Source(site.deps), 32 << 20, () => noTurns);

/** Asserts the raw tail's rollup over `scope` (its cut hours' rows read in columns) is the records' one. */
async function sameTailRollup(site: Site, scope: Scope): Promise<number> {
  const r = reader(site);
  const { tail, cut } = await r.inPeriod(scope);
  if (!cut) return 0;
  const records = [...tail.records];
  for (const c of tail.cuts) {
    const hours = [
      ...new Set([...(c.read.batch.cols.t as NumCol).values].map((t) => Math.floor(t / HOUR_MS))),
    ];
    records.push(...await wholePartRecords(site.kv, c.part, hours, scope));
  }
  assert.equal(tail.length, records.length);
  const mine = await r.buildTail(tail, scope);
  const want = await r.buildTail(records, scope);
  assert.equal(mine.space, want.space);
  assert.deepEqual(mine.rollup, want.rollup);
  return tail.cuts.length;
}

const scopeOf = (from: number, to: number): Scope => ({
  org: "org1",
  env: "production",
  from,
  to,
  timezone: "UTC",
  filters: [],
});

Deno.test("cut rows from columns: the raw tail's rollup over cut hours is the one the parts' records give, answers the reference's (random events)", async () => {
  let cutSeen = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(rowArb, { minLength: 60, maxLength: 200 }),
      fc.constantFrom(0, 0, 70),
      fc.nat(),
      fc.nat(),
      async (rows, filler, ea, eb) => {
        const site = await openSite(NOW);
        try {
          const events = eventsOf(rows, filler);
          // events later ones lands beside (a raw tail of compacted hours)
          await site.add(events.filter((_, i) => !rows[i].late));
          await site.compact();
          await site.add(events.filter((_, i) => rows[i].late));
          // each end just after an event's time (its hour's other rows on either side)
          const [lo, hi] = [events[ea % events.length].received_at, events[eb % events.length].received_at]
            .sort((x, y) => x - y);
          const scope = scopeOf(lo + 500, hi + 500 + (lo === hi ? 3_600_000 : 0));
          const seen = await sameTailRollup(site, scope);
          cutSeen += seen;
          const rollups = site.rollups();
          const asks: AggregateOptions[] = [
            { metrics: ["visitors", "pageviews", "sessions", "bounce_rate", "events"] },
            { metrics: ["pageviews", "visitors"], breakdown: ["page"] },
            { metrics: ["visitors", "sessions"], breakdown: ["source"] },
            { metrics: ["events"], breakdown: ["utm_source"] },
          ];
          const got = await rollups.answer(scope, asks);
          asks.forEach((o, i) => {
            if (got[i]) assert.deepEqual(got[i], expected(site, scope, o), JSON.stringify(o));
          });
        } finally {
          await site.close();
        }
      },
    ),
    { numRuns: 30, seed: 26 },
  );
  assert.ok(cutSeen > 20, `${cutSeen} cut parts read`);
});

Deno.test("cut rows from columns: rows that tie with the raw tail's in all but their ids get their ids read, same rollup", async () => {
  const site = await openSite(NOW);
  try {
    const at = BASE + 10 * 3_600_000 + 20 * MINUTE;
    const same = { anonymous_id: "v1", session_id: "s1", received_at: at, sequence_no: 3 };
    const before = Array.from(
      { length: 30 },
      (_, i) => ev({ received_at: at - i * MINUTE, anonymous_id: `w${i}` }),
    );
    await site.add([
      ...before,
      ev({ ...same, id: "e-b", path: "/b" }),
      ev({ ...same, id: "e-d", path: "/d" }),
    ]);
    await site.compact();
    // the same visitor, session, times and number: only the ids order them (one sorts before, one after)
    await site.add([ev({ ...same, id: "e-a", path: "/a" }), ev({ ...same, id: "e-c", path: "/c" })]);
    const scope = scopeOf(at - 5 * MINUTE, BASE + 2 * 86_400_000);
    const r = reader(site);
    const { tail } = await r.inPeriod(scope);
    assert.equal(tail.cuts.length, 1);
    assert.ok(tail.cuts[0].read.batch.cols.id, "the cut rows' ids read");
    assert.equal(await sameTailRollup(site, scope), 1);
    // a period whose cut rows tie with nothing reads no ids
    const other = await r.inPeriod(scopeOf(at - 25 * MINUTE + 1, at - 2 * MINUTE));
    assert.equal(other.tail.cuts.length, 1);
    assert.equal(other.tail.cuts[0].read.batch.cols.id, undefined);
  } finally {
    await site.close();
  }
});

Deno.test("cut rows from columns: rows received at once are ordered by device time, then number, with the raw tail's", async () => {
  const site = await openSite(NOW);
  try {
    const at = BASE + 7 * 3_600_000 + 40 * MINUTE;
    const row = (id: string, behind: number, seq: number) =>
      ev({
        id,
        received_at: at,
        device_time: new Date(at - behind).toISOString(),
        sequence_no: seq,
        anonymous_id: "v2",
        session_id: "s2",
        path: `/${id}`,
      });
    const before = Array.from({ length: 10 }, (_, i) => ev({ received_at: at - (i + 1) * MINUTE }));
    await site.add([...before, row("p1", 2000, 9), row("p2", 0, 0)]);
    await site.compact();
    await site.add([row("t1", 1000, 5), row("t2", 0, 4)]);
    const scope = scopeOf(at - 5 * MINUTE - 500, BASE + 2 * 86_400_000);
    const { tail } = await reader(site).inPeriod(scope);
    assert.equal(tail.cuts.length, 1);
    assert.equal(tail.cuts[0].read.batch.cols.id, undefined, "no ids read: nothing ties");
    // (the pages' first use, p1 t1 p2 t2, orders the rollup's values)
    assert.equal(await sameTailRollup(site, scope), 1);
  } finally {
    await site.close();
  }
});

Deno.test("cut rows from columns: a raw tail's rollup reads only the columns cut rows are read in", async () => {
  const events = eventsOf(
    fc.sample(rowArb, { numRuns: 300, seed: 7 }),
    0,
  ).concat(eventsOf(fc.sample(rowArb, { numRuns: 50, seed: 8 }), 70));
  for (const list of [events.slice(0, 300), events.slice(300)]) {
    const b = await buildEventBatch(list);
    const read = new Set<string>();
    const cols = new Proxy(b.cols, {
      get(target, name, receiver) {
        if (typeof name === "string") read.add(name);
        return Reflect.get(target, name, receiver);
      },
    });
    const proxied = { n: b.n, cols } as Batch;
    const numbers = new Map(batchVisitors(proxied).map((id, k) => [id, k + 1]));
    const visitors = rowVisitors(proxied, numbers);
    buildRollup(proxied, (i) => visitors[i]);
    const outside = [...read].filter((c) => !CUT_COLUMNS.includes(c) && c !== "p*");
    assert.deepEqual(outside, [], "columns the rollup reads that cut rows are not read in");
    assert.ok(read.has("anon") && read.has("utm") && read.has("dt"), [...read].join());
  }
});

Deno.test("cut rows from columns: explain-a-change over a period cutting hours equals the scan's", async () => {
  const site = await openSite(NOW);
  try {
    const events = eventsOf(fc.sample(rowArb, { numRuns: 400, seed: 3 }), 0);
    await site.add(events.filter((_, i) => i % 5));
    await site.compact();
    await site.add(events.filter((_, i) => !(i % 5)));
    const scans = new ScanContexts(new Source(site.deps));
    const scope = scopeOf(BASE + 20 * MINUTE + 5_000, BASE + 2 * 86_400_000 + 10 * 60 * MINUTE + 37_000);
    assert.ok(await sameTailRollup(site, scope) > 0);
    const rollups = site.rollups();
    for (
      const o of [
        { fields: ["channel", "source", "page", "country", "device_type", "browser"], unit: "visitor" },
        { fields: ["page"], unit: "session" },
        { fields: ["source"], unit: "visitor", goal: { event_type: "sign_up" } },
      ] as const
    ) {
      const opts = { ...o, fields: [...o.fields] };
      const got = await rollups.attribution(scope, opts);
      assert.ok(got, JSON.stringify(o));
      assert.deepEqual(
        sortedAttribution(got),
        await scannedAttribution(scans, scope, opts),
        JSON.stringify(o),
      );
    }
  } finally {
    await site.close();
  }
});
