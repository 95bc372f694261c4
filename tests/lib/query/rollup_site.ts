/**
 * One site for the rollup tests: events stored as ingest stores them (raw keys), compacted into parts with their
 * rollups, late arrivals of compacted hours (a raw tail, then later parts and merges), a raw tail of the last
 * hours, in a KV held in memory or in a real file; questions over periods from local midnights in zones with
 * a DST change in the window; the reference's answers over every event stored. Each test says only what its
 * events look like and what it checks.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { createEngine, startOfLocalDay } from "../../../lib/query/api.ts";
import type { AggregateOptions, AggregateResult, Scope } from "../../../lib/query/api.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import { RollupSource } from "../../../lib/query/rollup/source.ts";
import { idHashes } from "../../../lib/query/rollup/session_facts.ts";
import { SHORT_MASK } from "../../../lib/query/rollup/spans.ts";
import { ScanContexts } from "../../../lib/query/scan/contexts.ts";
import { attribution } from "../../../lib/query/sequence/attribution.ts";
import type { AttributionOptions, AttributionResult } from "../../../lib/query/sequence_types.ts";
import { hasRollup, ROLLUP_VERSION, type RollupEntry } from "../../../lib/query/rollup/store.ts";
import { compact } from "../../../lib/jobs/compact.ts";
import { backfillRollups } from "../../../lib/jobs/rollup_backfill.ts";
import { listParts } from "../../../lib/parts/store.ts";
import { keys } from "../../../lib/store/keys.ts";
import type { StoredEvent } from "../../../lib/store/records.ts";
import { testDeps } from "../../helpers/deps.ts";
import { naiveAggregate } from "./reference.ts";
import { ev, store } from "./fixtures.ts";

export const MINUTE = 60_000, HOUR = 3_600_000, DAY = 86_400_000;
/** The ten days before hold both autumn clock changes: Europe's on 25 October, the US's on 1 November. */
export const DST_NOW = Date.parse("2026-11-03T12:00:00Z");

export type SiteDeps = Awaited<ReturnType<typeof testDeps>>;

export interface Site {
  deps: SiteDeps;
  kv: Deno.Kv;
  /** Every event stored, in the order stored: what the reference answers from. */
  all: StoredEvent[];
  /** Stores events as ingest does: a raw tail until compacted. */
  add(events: StoredEvent[]): Promise<StoredEvent[]>;
  /** Compacts the raw tail into parts with their rollups, `times` over (a second pass merges). */
  compact(times?: number): Promise<void>;
  /** A fresh rollup reader (nothing kept). */
  rollups(): RollupSource;
  parts(): ReturnType<typeof listParts>;
  /** A part's rollup entry as stored. */
  entry(partId: string): Promise<RollupEntry>;
  close(): Promise<void>;
}

/** A site whose clock stands at `now`; `file` keeps its KV in a real SQLite file (removed on close). */
export async function openSite(now: number, opts: { file?: boolean } = {}): Promise<Site> {
  const path = opts.file ? await Deno.makeTempFile({ prefix: "rollup_site_", suffix: ".sqlite3" }) : null;
  const deps = await testDeps(path ? { kv: await Deno.openKv(path) } : {});
  deps.clock.set(now);
  const all: StoredEvent[] = [];
  return {
    deps,
    kv: deps.kv,
    all,
    async add(events) {
      await store(deps.kv, { events });
      all.push(...events);
      return events;
    },
    async compact(times = 1) {
      for (let i = 0; i < times; i++) await compact(deps, "org1", "production", "ev", { graceMs: 0 });
    },
    rollups: () => new RollupSource(deps, new Source(deps)),
    parts: () => listParts(deps.kv, "org1", "production", "ev"),
    entry: async (partId) => (await deps.kv.get<RollupEntry>(keys.rollup(partId))).value!,
    async close() {
      deps.kv.close();
      if (!path) return;
      for (const f of [path, `${path}-wal`, `${path}-shm`]) await Deno.remove(f).catch(() => {});
    },
  };
}

/** The stages of a site's life after which a test checks its answers (see `live`). */
export type Stage = "late" | "merged" | "tail" | "more";

/**
 * A site's life: `first` compacted into parts; `late` (events of compacted hours) stored: a raw tail holding
 * what the parts hold ("late"); folded into later parts of their days and merged ("merged"); `tail` (events of
 * the last hours) stored, not compacted ("tail"); `more` of the raw tail (made from the tail) stored ("more"). `check` runs after
 * each stage the site has events for; the site is closed after.
 */
export async function live(
  now: number,
  events: {
    first: StoredEvent[];
    late: StoredEvent[];
    tail?: StoredEvent[] | (() => StoredEvent[]);
    more?: (tail: StoredEvent[]) => StoredEvent[];
  },
  check: (site: Site, stage: Stage) => Promise<void>,
): Promise<void> {
  const site = await openSite(now);
  try {
    await site.add(events.first);
    await site.compact();
    await site.add(events.late);
    await check(site, "late");
    await site.compact(2);
    await check(site, "merged");
    if (!events.tail) return;
    const tail = await site.add(typeof events.tail === "function" ? events.tail() : events.tail);
    await check(site, "tail");
    if (!events.more) return;
    await site.add(events.more(tail));
    await check(site, "more");
  } finally {
    await site.close();
  }
}

/**
 * `first` compacted into parts, then one rollup source asked again and again while the raw tail grows: for each
 * scope, each of `tails` made (late rows in compacted hours, new sessions) and stored, then `ask`ed. Gives the
 * source (what it kept is counted on it).
 */
export async function tailGrowing(
  now: number,
  first: () => StoredEvent[],
  scopes: Scope[],
  tails: (() => StoredEvent[])[],
  ask: (site: Site, rollups: RollupSource, scope: Scope) => Promise<void>,
): Promise<RollupSource> {
  const site = await openSite(now);
  try {
    await site.add(first());
    await site.compact();
    const rollups = site.rollups();
    for (const scope of scopes) {
      for (const tail of tails) {
        await site.add(tail());
        await ask(site, rollups, scope);
      }
    }
    return rollups;
  } finally {
    await site.close();
  }
}

/** Events of a few visitors' sessions over ten hours from a start (so across hours, midnight and parts). */
export const pageEventArb = (visitors: number, skews: number[]) =>
  fc.record({
    minute: fc.integer({ min: 0, max: 600 }),
    visitor: fc.integer({ min: 0, max: visitors - 1 }),
    session: fc.integer({ min: 0, max: 1 }),
    type: fc.constantFrom("$pageview", "$pageview", "$pageview", "$pageleave", "sign_up"),
    page: fc.constantFrom("/", "/pricing", "/docs", "/signup"),
    // device clocks behind
    skew: fc.constantFrom(...skews),
    seq: fc.integer({ min: 0, max: 3 }),
    traffic: fc.constantFrom("human", "human", "human", "bot"),
  });
export type PageEvent = typeof pageEventArb extends (...a: never[]) => fc.Arbitrary<infer T> ? T : never;

let serial = 0;
/** Page events received at `start` plus their minute (equal receive times happen), `lateBy` ms later. */
export const pageEvents = (raw: PageEvent[], start: number, lateBy = 0, prefix = "e"): StoredEvent[] =>
  raw.map((r) => {
    const at = start + r.minute * MINUTE + lateBy;
    return ev({
      id: `${prefix}${serial++}`,
      received_at: at,
      device_time: new Date(at + r.skew).toISOString(),
      sequence_no: r.seq,
      anonymous_id: `v${r.visitor}`,
      session_id: `s${r.session}`,
      event_type: r.type,
      path: r.page,
      traffic: r.traffic as "human",
    });
  });

/** Events moved into the last `span` ms before `now` (a raw tail of the last hours). */
export const lastHours = (events: StoredEvent[], now: number, span = 2 * HOUR): StoredEvent[] =>
  events.map((e) => ({ ...e, received_at: now - 1 - (e.received_at % span) }));

/** The same events again under new ids and of new visitors (more of a raw tail, a new visitor among it). */
export const newVisitors = (events: StoredEvent[]): StoredEvent[] =>
  events.map((e) => ({ ...e, id: `${e.id}d`, anonymous_id: `${e.anonymous_id}d` }));

/** The start of a local day `day` days after `base`'s UTC date, in `tz`. */
export function localMidnight(base: number, day: number, tz: string): number {
  const d = new Date(base + day * DAY);
  return startOfLocalDay({ y: d.getUTCFullYear(), m: d.getUTCMonth() + 1, d: d.getUTCDate() }, tz);
}

/** Which zones a question's period is cut in: UTC, two with a DST change in the window, one of +05:45. */
export const zoneArb = (quarterHour = true) =>
  quarterHour
    ? fc.constantFrom("UTC", "Europe/Berlin", "America/New_York", "Asia/Kathmandu")
    : fc.constantFrom("UTC", "Europe/Berlin", "America/New_York");

/** Attributions an event may carry (source, channel, referrer host, campaign). */
export const ORIGINS = [
  { source: "(direct)", channel: "Direct", referrer_host: null, campaign: null },
  { source: "chatgpt", channel: "AI Assistant", referrer_host: "chatgpt.com", campaign: null },
  { source: "perplexity", channel: "AI Assistant", referrer_host: "perplexity.ai", campaign: null },
  { source: "google", channel: "Organic Search", referrer_host: "www.google.com", campaign: null },
  { source: "google", channel: "Paid Search", referrer_host: "www.google.com", campaign: "winter" },
  { source: "news", channel: "Email", referrer_host: null, campaign: "winter" },
] as const;

/** An origin's fields on a stored event. */
export const originFields = (o: (typeof ORIGINS)[number]): Partial<StoredEvent> => ({
  source: o.source,
  channel: o.channel,
  referrer_host: o.referrer_host,
  utm: o.campaign
    ? { source: o.source, medium: "cpc", campaign: o.campaign, term: null, content: null }
    : null,
});

/** The ten days before DST_NOW, where random events fall. */
export const DST_BASE = DST_NOW - 10 * DAY;

/** What a random event of the ten days says at least: when, who, which session, what, whether a person. */
export interface DayEvent {
  minute: number;
  visitor: number;
  session: number;
  type: string;
  seq?: number;
  traffic: string;
  tp: string;
  /** the device clock's offset from the receive time */
  skew?: number;
  /** ms past its minute (else a few hundred by its number: receive times seldom tie) */
  ms?: number;
}

/**
 * A stored event of a visitor's session (`deviceAt`: its device clock's time), bots named GPTBot; `more` gives
 * its other fields.
 */
export const visitEvent = (
  id: string,
  at: number,
  deviceAt: number,
  r: { visitor: number; session: number; seq?: number; type: string; traffic: string; tp: string },
  more: Partial<StoredEvent>,
): StoredEvent =>
  ev({
    id,
    received_at: at,
    device_time: new Date(deviceAt).toISOString(),
    sequence_no: r.seq ?? 0,
    anonymous_id: `v${r.visitor}`,
    session_id: `s${r.session}`,
    event_type: r.type,
    traffic: r.traffic as "human",
    crawler: r.traffic === "human" ? null : "GPTBot",
    touchpoint: r.tp,
    ...more,
  });

let daySerial = 0;
/** Random events of the ten days as stored, `shift` ms later; `more` gives each its other fields. */
export function dayEvents<T extends DayEvent>(
  raw: T[],
  shift: number,
  more: (r: T) => Partial<StoredEvent>,
): StoredEvent[] {
  return raw.map((r) => {
    const at = DST_BASE + r.minute * MINUTE + shift + (r.ms ?? daySerial % 997);
    return visitEvent(`e${daySerial++}`, at, at + (r.skew ?? 0), r, more(r));
  });
}

/** One random site's life as a check sees it: the stage, the run's questions, one rollup source kept across it. */
export interface Run<Q> {
  stage: Stage;
  qs: Q[];
  /** made on first asking (what it keeps is checked across new parts and new raw tails) */
  kept(): RollupSource;
}

/**
 * A property over random sites' lives (see `live`), `runs` times: the first events (at least one, at most
 * `first`), late arrivals (`toEvents` with a shift of 1 ms), a raw tail of the last two hours and, when `more`
 * makes it, more of the raw tail; three questions a run, `check`ed after each stage.
 */
export async function randomLives<E, Q>(
  eventArb: fc.Arbitrary<E>,
  questionArb: fc.Arbitrary<Q>,
  o: {
    first: number;
    runs: number;
    toEvents: (raw: E[], shift?: number) => StoredEvent[];
    more?: (tail: StoredEvent[], first: E[]) => StoredEvent[];
  },
  check: (site: Site, run: Run<Q>) => Promise<void>,
): Promise<void> {
  await fc.assert(
    fc.asyncProperty(
      fc.array(eventArb, { minLength: 1, maxLength: o.first }),
      fc.array(eventArb, { maxLength: 15 }),
      fc.array(eventArb, { maxLength: 10 }),
      fc.array(questionArb, { minLength: 3, maxLength: 3 }),
      async (first, late, recent, qs) => {
        let kept: RollupSource | undefined;
        await live(
          DST_NOW,
          {
            first: o.toEvents(first),
            late: o.toEvents(late, 1),
            tail: () => lastHours(o.toEvents(recent), DST_NOW),
            more: o.more && ((tail) => o.more!(tail, first)),
          },
          (site, stage) => check(site, { stage, qs, kept: () => kept ??= site.rollups() }),
        );
      },
    ),
    { numRuns: o.runs },
  );
}

/** The reference's aggregate over every event the site stored. */
export const expected = (site: Site, scope: Scope, opts: AggregateOptions): AggregateResult =>
  naiveAggregate(site.all, scope, opts);

/**
 * Checks aggregate questions: from `rollups` (when they answer: they may not), through the engine and through an
 * engine whose part cache fits no part (it answers from rollups where it can); each equal to the reference.
 * Gives, per question, whether the rollups answered; the engines are on it.
 */
export function aggregateChecker(site: Site) {
  const engine = createEngine(site.deps);
  const small = createEngine({ ...site.deps, config: { ...site.deps.config, partCacheBytes: 4096 } });
  const check = async (
    scope: Scope,
    opts: AggregateOptions,
    rollups: RollupSource,
    o: { again?: boolean } = {},
  ): Promise<boolean> => {
    const want = expected(site, scope, opts);
    const [got] = await rollups.answer(scope, [opts]);
    if (got) {
      assert.deepEqual(got, want, JSON.stringify({ scope, opts }));
      // asked again: the kept answer
      if (o.again) assert.deepEqual((await rollups.answer(scope, [opts]))[0], want);
    }
    assert.deepEqual(await engine.aggregate(scope, opts), want);
    assert.deepEqual(await small.aggregate(scope, opts), want);
    return got !== null;
  };
  return Object.assign(check, { engine, small });
}

/** Each field's rows in value order (the order is not part of an attribution's answer). */
export const sortedAttribution = (r: AttributionResult): AttributionResult => ({
  ...r,
  by: Object.fromEntries(
    Object.entries(r.by).map((
      [f, rows],
    ) => [f, [...rows].sort((a, b) => String(a.value).localeCompare(String(b.value)))]),
  ),
});

/** Explain-a-change's attribution as the scan over all batches gives it, rows in value order. */
export async function scannedAttribution(
  scans: ScanContexts,
  scope: Scope,
  o: AttributionOptions,
): Promise<AttributionResult> {
  return sortedAttribution(attribution(await scans.of(scope), o));
}

/**
 * Sessions crossing the midnights UTC of the three days up to `midnight` (each in two parts): `n` events 4 s
 * apart from `lead` ms before, 17 visitors, 29 sessions, pages and sign-ups in turn; `more` adds to each.
 */
export function midnightSessions(
  midnight: number,
  n: number,
  lead: number,
  more: (i: number) => Partial<StoredEvent>,
): StoredEvent[] {
  return Array.from({ length: n }, (_, i) =>
    ev({
      received_at: midnight - (i % 3) * DAY - lead + i * 4_000,
      anonymous_id: `v${i % 17}`,
      session_id: `s${i % 29}`,
      sequence_no: i % 5,
      event_type: i % 4 === 0 ? "sign_up" : "$pageview",
      path: ["/", "/a", "/b"][i % 3],
      ...more(i),
    }));
}

/** The site's parts, at least three of them (the backfill tests want several). */
export async function severalParts(site: Site) {
  const parts = await site.parts();
  assert.ok(parts.length >= 3, `${parts.length} parts`);
  return parts;
}

/**
 * Rewrites each part's rollup entry as an older `version` left it, without the sections `drop` names: the
 * rollup is then not current. Gives the entries written.
 */
export async function asOlderVersion(
  site: Site,
  parts: { meta: { id: string } }[],
  version: number,
  drop: number[],
): Promise<Map<string, RollupEntry>> {
  const written = new Map<string, RollupEntry>();
  for (const p of parts) {
    const entry = await site.entry(p.meta.id);
    const secs = { ...entry.secs };
    for (const sec of drop) delete secs[sec];
    written.set(p.meta.id, { ...entry, v: version, secs });
    await site.kv.set(keys.rollup(p.meta.id), written.get(p.meta.id));
    assert.equal(await hasRollup(site.kv, p.meta.id), false);
  }
  return written;
}

/** Runs the rollup backfill to its end, two parts a call. */
export async function backfillAll(site: Site): Promise<void> {
  let left = 1;
  while (left) left = (await backfillRollups(site.deps, "org1", "production", { maxParts: 2 })).remaining;
}

/**
 * After the backfill: each part's rollup current, its other sections as written (not rewritten), but those
 * `rewritten` names (a version-8 to -10 rollup's page and totals rows get their reporters: store.ts
 * `addReporters`; when they had them, the same bytes again).
 */
export async function assertSectionsKept(
  site: Site,
  written: Map<string, RollupEntry>,
  rewritten: readonly number[] = [],
): Promise<void> {
  for (const [id, old] of written) {
    assert.ok(await hasRollup(site.kv, id));
    const entry = await site.entry(id);
    assert.equal(entry.v, ROLLUP_VERSION);
    const { secs, ...rest } = old;
    assert.deepEqual({ ...entry, secs: undefined, v: old.v }, { ...rest, secs: undefined });
    for (const [sec, size] of Object.entries(secs)) {
      if (!rewritten.includes(Number(sec))) assert.deepEqual(entry.secs[sec], size);
    }
  }
}

/**
 * `groups` groups of `size` session ids (`prefix` and a number) whose first hashes differ but agree on the low
 * bits short session keys keep (spans.ts SHORT_MASK): sessions such keys cannot tell apart.
 */
export function collidingIds(groups: number, size: number, prefix: string): string[][] {
  const byLow = new Map<number, Map<number, string>>();
  const out: string[][] = [];
  for (let i = 0; out.length < groups; i++) {
    const id = `${prefix}${i}`, h = idHashes(id)[0], low = h & SHORT_MASK;
    let m = byLow.get(low);
    if (!m) byLow.set(low, m = new Map());
    if (!m.has(h)) m.set(h, id);
    if (m.size === size) {
      out.push([...m.values()]);
      byLow.delete(low);
    }
  }
  return out;
}
