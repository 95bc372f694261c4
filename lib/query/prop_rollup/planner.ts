/**
 * The planner of the property questions (`propAnswers`): a tool's property keys of an event and each key's
 * values (behavior_event_properties) from property rollups, exactly as the scan answers them, when:
 *  - no cohort; filters only `event_type eq` (one event type); a breakdown of one `prop:<key>` with the
 *    metrics visitors and/or events, no bucket or goal (any sort, limit, offset);
 *  - the zone's offsets are whole hours over the period (rollup/answer.ts wholeHourOffsets), and each hour of
 *    a part's table lies wholly inside or outside the period (by its rows' receive times).
 * Otherwise it answers null and the caller scans. Parts without a table (before the backfill reaches them),
 * keys whose values a part does not keep (past the cap, build.ts) and the raw tail are read and built into
 * tables at question time (only the asked event type and keys, only rows in the period), their visitors
 * numbered as the parts' are (ids without a number yet get numbers past all given ones, for this question).
 * Part list and tail are read consistently (Source.partsAndTail); a part gone meanwhile (a merge) answers null.
 */
import { inBatches } from "../../batches.ts";
import type { Deps } from "../../deps.ts";
import { Lru, remember } from "../../lru.ts";
import type { Batch } from "../../parts/columns.ts";
import { columnRange, decodeBatch } from "../../parts/codec.ts";
import { buildEventBatch } from "../../parts/event_batch.ts";
import { partColumns, PartGoneError, type PartMeta, readRange } from "../../parts/store.ts";
import { visitorCount, visitorNumbersForReading } from "../../parts/visitor_numbers.ts";
import { turns } from "../../turns.ts";
import type { Source } from "../columns/source.ts";
import { batchVisitors, rowVisitors } from "../rollup/build.ts";
import { wholeHourOffsets } from "../rollup/answer.ts";
import type { AggregateOptions, AggregateResult, Scope } from "../types.ts";
import {
  type Collected,
  collectKeys,
  collectValues,
  keepGroups,
  keepsValues,
  keptBytes,
  type KeptGroup,
  keysFrom,
  type LoadedProp,
  loadedProp,
  type Name,
  type PropKey,
  type Taken,
  valuesFrom,
  withTail,
} from "./answer.ts";
import { buildPropRollupTurning, type PropRollup, propRollupBytes, PropTableTooWide } from "./build.ts";
import { type PropRollupEntry, readPropEntry, readPropSection, secName } from "./store.ts";

/**
 * The share of the one budget (`PART_CACHE_MB`) for decoded property rollups and kept answers, out of the
 * rollups' third: a thirty-second (9 MB of the default 288), so the page and session rollups keep ~57 MB.
 * Rare events' answers are kept; the 10M-event bench site's page views (~64 MB kept) are read again from KV
 * per question (see the README).
 */
export const propRollupCacheBytes = (partCacheBytes: number): number => Math.floor(partCacheBytes / 32);

/** A batch with more property names than a table holds (a part marked wide, the raw tail): the caller scans. */
function scanWhenWide(e: unknown): null {
  if (e instanceof PropTableTooWide) return null;
  throw e;
}

/** Whether a part's table leaves out the keys of the asked event type (undefined: of any). */
function wideFor(e: PropRollupEntry | null, eventType: string | undefined): boolean {
  if (!e?.wideEts?.length) return false;
  return eventType === undefined || e.wideEts.includes(secName(eventType));
}

/** The one event type a scope's filters ask (undefined: none), or false when the filters are others. */
function filterEventType(s: Scope): string | undefined | false {
  let et: string | undefined;
  for (const f of s.filters ?? []) {
    if (f.field !== "event_type" || f.op !== "eq" || typeof f.value !== "string") return false;
    if (et !== undefined && et !== f.value) return false;
    et = f.value;
  }
  return et;
}

/** Why the planner cannot answer a scope (the scan does), or null. */
export function propScopeBlocker(s: Scope): string | null {
  if (s.cohort) return "a cohort";
  if (filterEventType(s) === false) return "a filter other than one event_type eq";
  if (!wholeHourOffsets(s.timezone, s.from, s.to)) return "a timezone offset that is not whole hours";
  return null;
}

/** The key of a question the planner answers (one prop:<key> breakdown, visitors/events), else null. */
export function propQuestionKey(s: Scope, o: AggregateOptions): string | null {
  const et = filterEventType(s);
  if (et === false || et === undefined || o.bucket || o.goal || o.breakdown?.length !== 1) return null;
  const f = o.breakdown[0];
  if (!f.startsWith("prop:") || !o.metrics.length) return null;
  if (!o.metrics.every((m) => m === "visitors" || m === "events")) return null;
  if (o.sort && o.sort.by !== "key" && !o.metrics.includes(o.sort.by as "events")) return null;
  return f.slice(5);
}

/** How the last question was answered (tests, benches). */
export interface PropPath {
  /** parts answered from their stored table */
  tables: number;
  /** parts read and built at question time (no table, or keys past the cap) */
  built: number;
  tailRows: number;
}

/** A part to read: without a table (keys null), or for keys its table (`stored`) keeps no values of. */
interface Read {
  p: PartMeta;
  keys: string[] | null;
  stored?: LoadedProp;
  /** the stored table's hours inside the period */
  hours?: Set<number>;
}

/** A collection a question asks (its name among kept answers, and how it is collected from tables). */
type Asked = [string, (taken: Taken[]) => Collected];

/** What a question asks: the event type (undefined: all) and the keys whose values it needs (none: keys only). */
interface Need {
  eventType: string | undefined;
  valueKeys: string[];
}

export class PropRollups {
  /** decoded sections, parts' rows built at question time, kept period answers: one budget */
  readonly cache: Lru<LoadedProp | Map<Name, KeptGroup>>;
  private loading = new Map<string, Promise<LoadedProp>>();
  /** table entries read (small; a part's never changes once written) */
  private entries = new Map<string, PropRollupEntry>();
  /** stored bytes of tables read from KV (benches) */
  bytesRead = 0;
  last: PropPath = { tables: 0, built: 0, tailRows: 0 };

  constructor(private kv: Deno.Kv, private source: Source, capacity: number) {
    this.cache = new Lru(capacity);
  }

  /** Property keys of events in scope with events and visitors (engine.propertyKeys), or null: scan. */
  async keys(s: Scope, eventType?: string): Promise<PropKey[] | null> {
    if (propScopeBlocker(s) !== null) return null;
    const et = filterEventType(s) as string | undefined;
    if (et !== undefined && eventType !== undefined && et !== eventType) return [];
    const need = { eventType: eventType ?? et, valueKeys: [] };
    const got = await this.figures(s, need, [["keys", (t) => collectKeys(t, s, need.eventType)]])
      .catch(scanWhenWide);
    return got && keysFrom(got[0]);
  }

  /** Answers to aggregate questions each one prop:<key> breakdown (propQuestionKey), or null: scan. */
  async aggregate(s: Scope, os: AggregateOptions[]): Promise<AggregateResult[] | null> {
    if (propScopeBlocker(s) !== null) return null;
    const ks = os.map((o) => propQuestionKey(s, o));
    if (!os.length || ks.some((k) => k === null)) return null;
    const eventType = filterEventType(s) as string;
    const keys = [...new Set(ks as string[])];
    const got = await this.figures(
      s,
      { eventType, valueKeys: keys },
      keys.map((k): Asked => [`values|${k}`, (t) => collectValues(t, s, eventType, k)]),
    ).catch(scanWhenWide);
    return got && os.map((o, i) => valuesFrom(got[keys.indexOf(ks[i]!)], ks[i]!, o));
  }

  /**
   * Each asked collection's figures over the parts and the raw tail. When every part has a table, the parts'
   * groups (events, distinct visitor numbers) are kept per period (the parts in it, and their cut when the
   * period cuts one) and scope, and a later ask adds only the raw tail to them; otherwise (or the first
   * time) everything is collected from the tables.
   */
  private async figures(
    s: Scope,
    need: Need,
    asked: Asked[],
  ): Promise<Map<Name, { events: number; visitors: number }>[] | null> {
    const { parts, tail } = await this.source.partsAndTail(s.org, s.env, s.from, s.to);
    let entries: (PropRollupEntry | null)[];
    try {
      entries = await inBatches(parts, 16, (p) => this.entry(p.id));
    } catch (e) {
      if (e instanceof PartGoneError) return null;
      throw e;
    }
    // a part with more names than a table holds, or the asked event type's (any, asked for all): scan
    if (entries.some((e) => e?.wide || wideFor(e, need.eventType))) return null;
    if (entries.some((e) => e === null)) {
      // parts without a table: their visitors may have numbers for this question only, as the tail's
      const got = await this.take(s, need, parts, tail);
      if (!got) return null;
      return asked.map(([, collect]) =>
        withTail(keepGroups(collect(got.taken), got.taken, got.space), new Map(), [], got.space)
      );
    }
    const period = parts.map((
      p,
    ) => (p.min_t >= s.from && p.max_t < s.to ? p.id : `${p.id}@${s.from}-${s.to}`));
    const scope = `${s.org}|${s.env}|${s.touchpoint ?? ""}|${
      (s.traffic ?? ["human"]).join()
    }|${need.eventType}`;
    const keys = asked.map(([name]) => `kept|${scope}|${name}|${period.join()}`);
    const kept = keys.map((k) => this.cache.get(k) as Map<Name, KeptGroup> | undefined);
    if (kept.some((k) => !k)) {
      const got = await this.take(s, need, parts, []);
      if (!got) return null;
      asked.forEach(([, collect], i) => {
        if (kept[i]) return;
        const k = kept[i] = keepGroups(collect(got.taken), got.taken, got.space);
        this.cache.set(keys[i], k, keptBytes(k));
      });
    }
    const fromTail = tail.length ? await this.buildAtQuestion(s, need, [], tail) : null;
    if (tail.length && !fromTail) return null;
    const tailTaken: Taken[] = (fromTail?.tables ?? []).map((b) => ({ l: b.l, hours: null }));
    this.last.tailRows = tail.length;
    const space = fromTail?.space ?? 0;
    return asked.map(([, collect], i) => withTail(kept[i]!, collect(tailTaken), tailTaken, space));
  }

  /** The tables a question takes (stored, built at question time, the raw tail's), or null: scan. */
  private async take(
    s: Scope,
    need: Need,
    parts: PartMeta[],
    tail: Parameters<typeof buildEventBatch>[0],
  ): Promise<{ taken: Taken[]; space: number } | null> {
    let stored: (LoadedProp[] | null)[];
    try {
      stored = await inBatches(parts, 8, (p) => this.tables(p.id, need.eventType));
    } catch (e) {
      if (e instanceof PartGoneError) return null;
      throw e;
    }
    const taken: Taken[] = [];
    // parts to read: those without a table, and those not keeping an asked key's values (their keys)
    const toBuild: Read[] = [];
    for (let k = 0; k < parts.length; k++) {
      const ls = stored[k];
      if (!ls) {
        toBuild.push({ p: parts[k], keys: null });
        continue;
      }
      for (const l of ls) {
        const hours = hoursInside(l.r, s);
        if (hours === null) return null;
        taken.push({ l, hours });
        const et = need.eventType;
        const whole = hours.size === l.r.hours.length;
        const missing = et === undefined
          ? []
          : need.valueKeys.filter((key) => !keepsValues(l, et, key, whole));
        if (missing.length) toBuild.push({ p: parts[k], keys: missing, stored: l, hours });
      }
    }
    const built = await this.buildAtQuestion(s, need, toBuild, tail);
    if (!built) return null;
    for (const b of built.tables) {
      if (b.keysOnly) {
        // the stored table's rows of those keys are left out; the built one gives them (not the totals)
        const stored = taken.find((t) => t.l === b.replaces)!;
        stored.skip = new Set(b.keysOnly);
        taken.push({ l: b.l, hours: null, only: new Set(b.keysOnly) });
      } else taken.push({ l: b.l, hours: null });
    }
    this.last = {
      tables: parts.length - toBuild.filter((b) => !b.keys).length,
      built: toBuild.length,
      tailRows: tail.length,
    };
    return { taken, space: built.space };
  }

  /**
   * Tables of the parts to read and of the raw tail, built for this question: only its event type, the keys
   * asked (all for a part without a table), rows in the period. A part's rows of some keys are kept in the
   * cache (by the hours the period takes of it) when they hold no temporary visitor number.
   */
  private async buildAtQuestion(
    s: Scope,
    need: Need,
    toBuild: Read[],
    tail: Parameters<typeof buildEventBatch>[0],
  ): Promise<
    { tables: { l: LoadedProp; keysOnly?: string[]; replaces?: LoadedProp }[]; space: number } | null
  > {
    const count = await visitorCount(this.kv, s.org, s.env);
    // a part with a table is read for keys its table keeps no values of (as the question needs them): the
    // rows of its hours inside the period, the same for any period taking those hours
    const cacheKey = (x: Read) =>
      x.keys && x.hours
        ? `${x.p.id}|${need.eventType}|${JSON.stringify(x.keys)}|${[...x.hours].join()}`
        : null;
    const batches: {
      b: Batch;
      x: Read | null;
      kept?: LoadedProp;
    }[] = [];
    try {
      for (const x of toBuild) {
        const ck = cacheKey(x);
        const kept = ck ? this.cache.get(ck) as LoadedProp | undefined : undefined;
        if (kept) batches.push({ b: { n: 0, cols: {} }, x, kept });
        else batches.push({ b: await readPartBatch(this.kv, x.p, x.keys), x });
      }
    } catch (e) {
      if (e instanceof PartGoneError) return null;
      throw e;
    }
    if (tail.length) batches.push({ b: await buildEventBatch(tail, turns()), x: null });
    const ids = batches.filter((x) => !x.kept).flatMap((x) => batchVisitors(x.b));
    const { numbers, size } = ids.length
      ? await visitorNumbersForReading(this.kv, s.org, s.env, ids)
      : { numbers: new Map<string, number>(), size: count };
    const tables: { l: LoadedProp; keysOnly?: string[]; replaces?: LoadedProp }[] = [];
    const turn = turns();
    for (const { b, x, kept } of batches) {
      let l = kept;
      if (!l) {
        const rows = rowVisitors(b, numbers);
        // turning: a part or tail of many names must not hold other requests behind it
        const r: PropRollup = await buildPropRollupTurning(b, (i) => rows[i], turn, {
          cap: Infinity,
          valueBytes: Infinity,
          eventType: need.eventType,
          keys: x?.keys ? new Set(x.keys) : need.valueKeys.length ? new Set(need.valueKeys) : undefined,
          from: s.from,
          to: s.to,
        });
        // an event type with more names than a table keeps: the question scans (only the asked type is built)
        if (r.tooWide?.length) throw new PropTableTooWide(r.keys.length);
        l = loadedProp(r);
        const ck = x && cacheKey(x);
        if (ck && rows.every((v) => v < count)) this.cache.set(ck, l, propRollupBytes(r));
      }
      if (x?.keys && x.stored) tables.push({ l, keysOnly: x.keys, replaces: x.stored });
      else tables.push({ l });
    }
    return { tables, space: Math.max(size, count) };
  }

  /**
   * A part's stored table as sections: the asked event type's (all without one), each decoded once and cached
   * by part id and section (parts are immutable); null without a table of the current version (not kept: the
   * backfill may write one). Throws PartGoneError when a section went meanwhile (a merge).
   */
  private async tables(partId: string, eventType: string | undefined): Promise<LoadedProp[] | null> {
    const entry = await this.entry(partId);
    if (!entry) return null;
    const names = eventType === undefined ? Object.keys(entry.secs) : [secName(eventType)];
    return await Promise.all(names.map((name) => this.section(partId, entry, name)));
  }

  private async entry(partId: string): Promise<PropRollupEntry | null> {
    const kept = this.entries.get(partId);
    if (kept) return kept;
    const entry = await readPropEntry(this.kv, partId);
    if (entry) remember(this.entries, partId, entry, 100_000);
    return entry;
  }

  private section(partId: string, entry: PropRollupEntry, name: string): Promise<LoadedProp> {
    const key = `${partId}|${name}`;
    const kept = this.cache.get(key) as LoadedProp | undefined;
    if (kept) return Promise.resolve(kept);
    let loading = this.loading.get(key);
    if (!loading) {
      loading = readPropSection(this.kv, partId, entry, name).then((got) => {
        if (!got) throw new PartGoneError(`part ${partId}: its property rollup went`);
        this.bytesRead += got.stored;
        const l = loadedProp(got.rollup);
        this.cache.set(key, l, propRollupBytes(got.rollup));
        return l;
      }).finally(() => this.loading.delete(key));
      this.loading.set(key, loading);
    }
    return loading;
  }
}

/** The planner over a Source, its decoded tables in a cache of `cacheBytes` (the caller's share of the budget). */
export function propAnswers(deps: Pick<Deps, "kv">, source: Source, cacheBytes: number): PropRollups {
  return new PropRollups(deps.kv, source, cacheBytes);
}

/** A table's hours inside the period (null: one straddles an end of it, the scan answers). */
function hoursInside(r: PropRollup, s: Scope): Set<number> | null {
  const hours = new Set<number>();
  for (const h of r.hours) {
    if (h.min >= s.from && h.max < s.to) hours.add(h.hour);
    else if (!(h.max < s.from || h.min >= s.to)) return null;
  }
  return hours;
}

/** The columns a property table needs of a part (`keys`: only those property keys' own columns). */
async function readPartBatch(kv: Deno.Kv, p: PartMeta, keys: string[] | null): Promise<Batch> {
  const columns = await partColumns(kv, p);
  const only = (c: string) =>
    c === "anon" || c === "t" || c === "touchpoint" || c === "traffic" || c === "event_type" || c === "p*" ||
    (c.startsWith("p:") && (!keys || keys.includes(c.slice(2))));
  const { from, to } = columnRange(columns, only);
  const { base, bytes } = await readRange(kv, p, from, to);
  return await decodeBatch({ n: p.rows, columns }, bytes, only, base);
}
