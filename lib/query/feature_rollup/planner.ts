/**
 * The planner of behavior_features' questions (`featureAnswers`): answers from the parts' feature tables
 * exactly as the scan answers them, when every question passes `featureQuestion` (answer.ts); else null and
 * the caller scans. A part whose table is of version 2 is answered from it, without plain names (store.ts
 * `answeredFeatureVersion`). Parts without a table (before the backfill reaches them) and parts with an hour
 * the period cuts (rows on both sides of one end) are read and built into tables at question time (only rows
 * in the period), as is the raw tail; their visitors are numbered as the parts' are (ids without a number get
 * numbers past all given ones, for this question). Any timezone works: the period's ends are instants.
 * Each question's groups over the period's parts are kept (by scope, question and the parts in the period)
 * when every part's visitors had their numbers, so a later ask adds only the raw tail.
 */
import { inBatches } from "../../batches.ts";
import type { Deps } from "../../deps.ts";
import { Lru } from "../../lru.ts";
import type { Batch } from "../../parts/columns.ts";
import { columnRange, decodeBatch } from "../../parts/codec.ts";
import { buildEventBatch } from "../../parts/event_batch.ts";
import { partColumns, PartGoneError, type PartMeta, readRange } from "../../parts/store.ts";
import { visitorCount, visitorNumbersForReading } from "../../parts/visitor_numbers.ts";
import type { StoredEvent } from "../../store/records.ts";
import { turns } from "../../turns.ts";
import type { Source } from "../columns/source.ts";
import { batchVisitors, rowVisitors } from "../rollup/build.ts";
import { releaseArraysOf } from "../rollup/let_go.ts";
import type { AggregateOptions, AggregateResult, Scope } from "../types.ts";
import {
  addTail,
  collectGroups,
  featureQuestion,
  featureResult,
  type Group,
  GroupCollector,
  groupsBytes,
  type Taken,
} from "./answer.ts";
import { buildFeatureTable, FEATURE_COLUMNS, type FeatureTable, featureTableBytes } from "./build.ts";
import {
  answeredFeatureEntry,
  FEATURE_ROLLUP_VERSION,
  type FeatureEntry,
  HOURLY_SEC,
  readFeatureTable,
  WHOLE_SEC,
} from "./store.ts";

/**
 * The share of the one budget (`PART_CACHE_MB`) for decoded feature tables and kept answers, out of the
 * rollups' third: a sixteenth (18 MB of the default 288). A thirty-second (9 MB) held a period's groups until
 * behavior_features also asked which names 5 or more visitors used (by element, element and plain name, forms):
 * at 10M events its warm ask then collected them again each time (~265 ms against 12; taken from the hit
 * rollups' share, which used 3 of its 20 MB).
 */
export const featureRollupCacheBytes = (partCacheBytes: number): number => Math.floor(partCacheBytes / 16);

/** How the last question was answered (tests, benches). */
export interface FeaturePath {
  /** parts answered from their stored table */
  tables: number;
  /** of those, parts whose hourly rows were read (the period takes some of their hours) */
  hourly: number;
  /** parts read and built at question time (no table, or an hour cut by the period) */
  built: number;
  tailRows: number;
  /** questions answered from kept groups */
  kept: number;
}

export class FeatureRollups {
  /** decoded tables and kept groups: one budget */
  readonly cache: Lru<FeatureTable | Map<string, Group>>;
  private loading = new Map<string, Promise<FeatureTable | null>>();
  private reading = new Map<string, ReturnType<Source["partsAndTail"]>>();
  private entries = new Map<string, FeatureEntry>();
  /** the raw tail's table, per tail (the same array while its records are unchanged) and period */
  private tails = new WeakMap<object, Map<string, Promise<{ t: FeatureTable; space: number }>>>();
  bytesRead = 0;
  last: FeaturePath = { tables: 0, hourly: 0, built: 0, tailRows: 0, kept: 0 };

  /** The most stored tables the last question held decoded at once (tests). */
  heldAtOnce = 0;

  constructor(
    private kv: Deno.Kv,
    private source: Source,
    capacity: number,
    /** parts whose tables are read and decoded together (then added to the questions and let go) */
    private window = 16,
  ) {
    this.cache = new Lru(capacity);
  }

  /** Answers to aggregate questions (each passing featureQuestion), or null: scan. */
  async aggregate(s: Scope, os: AggregateOptions[]): Promise<AggregateResult[] | null> {
    if (!os.length || !os.every((o) => featureQuestion(s, o))) return null;
    try {
      return await this.answer(s, os);
    } catch (e) {
      if (e instanceof PartGoneError) return null;
      throw e;
    }
  }

  private async answer(s: Scope, os: AggregateOptions[]): Promise<AggregateResult[] | null> {
    const { parts, tail, all } = await this.partsAndTail(s);
    const entries = await inBatches(parts, 16, (p) => this.entry(p.id));
    // (a part with an older table is read as such until the backfill: its groups are kept apart)
    const period = parts.map((p, k) =>
      (p.min_t >= s.from && p.max_t < s.to ? p.id : `${p.id}@${s.from}-${s.to}`) +
      (entries[k] && entries[k].v !== FEATURE_ROLLUP_VERSION ? `~v${entries[k].v}` : "")
    );
    const scope = `${s.org}|${s.env}|${s.touchpoint ?? ""}|${(s.traffic ?? ["human"]).join()}|` +
      JSON.stringify(s.filters ?? []);
    const keys = os.map((o) =>
      `kept|${scope}|${JSON.stringify([o.metrics, o.breakdown ?? []])}|${period.join()}`
    );
    const kept = keys.map((k) => this.cache.get(k) as Map<string, Group> | undefined);
    const path: FeaturePath = {
      tables: 0,
      hourly: 0,
      built: 0,
      tailRows: tail.length,
      kept: kept.filter(Boolean).length,
    };
    let space = 0;
    let tailTable: FeatureTable | null = null;
    if (kept.some((k) => !k)) {
      const count = await visitorCount(this.kv, s.org, s.env);
      const asked = os.map((o, i) => (kept[i] ? null : new GroupCollector(s, o, count)));
      const got = await this.take(s, parts, entries, tail, count, asked.filter((c) => c !== null));
      path.tables = got.tables;
      path.hourly = got.hourly;
      path.built = got.built;
      os.forEach((_, i) => {
        if (kept[i]) return;
        const g = kept[i] = asked[i]!.finish();
        if (got.permanent) this.cache.set(keys[i], g, groupsBytes(g));
      });
      space = got.space;
      tailTable = got.tail;
    }
    let tailGroups: (Map<string, Group> | null)[] = os.map(() => null);
    if (tail.length) {
      if (!tailTable) {
        const t = await this.tailTable(s, tail, all, await visitorCount(this.kv, s.org, s.env));
        space = Math.max(space, t.space);
        tailTable = t.t;
      }
      const taken: Taken[] = [{ t: tailTable, hours: null }];
      tailGroups = os.map((o) => collectGroups(taken, s, o, space));
    }
    if (!space) space = await visitorCount(this.kv, s.org, s.env);
    this.last = path;
    return os.map((o, i) => featureResult(addTail(kept[i]!, tailGroups[i], space), o));
  }

  /**
   * The tables of the period's parts, each added to the questions' collectors and let go: stored ones a
   * window of parts at a time (`window`: at most that many decoded at once, beside what the cache keeps),
   * then the parts read at question time. When parts are read, the raw tail is built in the same numbering (a
   * visitor without a number gets one number in both).
   */
  private async take(
    s: Scope,
    parts: PartMeta[],
    entries: (FeatureEntry | null)[],
    tail: StoredEvent[],
    count: number,
    collectors: GroupCollector[],
  ) {
    // per part: its rows merged over its hours when the period takes them all, its hourly rows when it takes
    // some (each hour wholly inside or outside), else (no table, or an hour cut) the part is read
    const toBuild: PartMeta[] = [];
    const loads: { p: PartMeta; entry: FeatureEntry; hours: Set<number> | null }[] = [];
    parts.forEach((p, k) => {
      const entry = entries[k];
      const hours = entry ? hoursInside(entry.hours, s) : undefined;
      if (!entry || hours === undefined) toBuild.push(p);
      else if (entry.hours.length && (!hours || hours.size)) loads.push({ p, entry, hours });
    });
    const add = (t: FeatureTable, hours: Set<number> | null) => {
      for (const c of collectors) c.add({ t, hours });
    };
    this.heldAtOnce = 0;
    for (let w = 0; w < loads.length; w += this.window) {
      const window = loads.slice(w, w + this.window);
      const secs = window.map((x) => (x.hours ? HOURLY_SEC : WHOLE_SEC));
      const held = window.map((x, k) => this.hold(tableKey(x.p.id, secs[k], x.entry.v)));
      let tables: FeatureTable[] = [];
      try {
        tables = await inBatches(window, 8, (x, k) => this.table(x.p.id, x.entry, secs[k]));
        this.heldAtOnce = Math.max(this.heldAtOnce, tables.length);
        tables.forEach((t, k) => add(t, window[k].hours));
      } finally {
        held.forEach((key, k) => this.letGo(key, tables[k]));
      }
    }
    const hourly = loads.filter((x) => x.hours).length;
    const stored = parts.length - toBuild.length;
    if (!toBuild.length) {
      return { space: count, permanent: true, tables: stored, hourly, built: 0, tail: null };
    }
    const batches = await inBatches(toBuild, 4, (p) => readPartBatch(this.kv, p));
    const tailBatch = tail.length ? await buildEventBatch(tail, turns()) : null;
    const ids = [...batches, ...(tailBatch ? [tailBatch] : [])].flatMap((b) => batchVisitors(b));
    const { numbers, size } = await visitorNumbersForReading(this.kv, s.org, s.env, ids);
    let permanent = true;
    const build = (b: Batch) => {
      const rows = rowVisitors(b, numbers);
      return {
        t: buildFeatureTable(b, (i) => rows[i], { from: s.from, to: s.to }).whole,
        permanent: rows.every((v) => v < count),
      };
    };
    for (const b of batches) {
      const got = build(b);
      if (!got.permanent) permanent = false;
      add(got.t, null);
    }
    const tailTable = tailBatch ? build(tailBatch).t : null;
    return {
      space: Math.max(size, count),
      permanent,
      tables: stored,
      hourly,
      built: toBuild.length,
      tail: tailTable,
    };
  }

  /**
   * The period's parts and raw tail (Source.partsAndTail), one read shared by the questions asking meanwhile
   * (a tool asks its five together; each read lists the parts and the raw tail).
   */
  private partsAndTail(s: Scope): ReturnType<Source["partsAndTail"]> {
    const key = `${s.org}|${s.env}|${s.from}|${s.to}`;
    let got = this.reading.get(key);
    if (!got) {
      got = this.source.partsAndTail(s.org, s.env, s.from, s.to).finally(() => this.reading.delete(key));
      this.reading.set(key, got);
    }
    return got;
  }

  /** The raw tail's table for a period (built once per tail and period; its visitors numbered for reading). */
  private tailTable(s: Scope, tail: StoredEvent[], all: StoredEvent[], count: number) {
    let byPeriod = this.tails.get(all);
    if (!byPeriod) this.tails.set(all, byPeriod = new Map());
    // keyed by the numbers given too: a tail visitor's number for reading is past them
    const k = `${s.org}|${s.env}|${s.from}|${s.to}|${count}`;
    let got = byPeriod.get(k);
    if (!got) {
      got = (async () => {
        const b = await buildEventBatch(tail, turns());
        const { numbers, size } = await visitorNumbersForReading(this.kv, s.org, s.env, batchVisitors(b));
        const rows = rowVisitors(b, numbers);
        return { t: buildFeatureTable(b, (i) => rows[i], { from: s.from, to: s.to }).whole, space: size };
      })();
      byPeriod.set(k, got);
      while (byPeriod.size > 8) byPeriod.delete(byPeriod.keys().next().value!);
      got.catch(() => byPeriod!.delete(k));
    }
    return got;
  }

  /**
   * A part's entry of a version questions read: kept when of the current version (parts are immutable), read
   * again each question when older (the backfill rebuilds it).
   */
  private async entry(partId: string): Promise<FeatureEntry | null> {
    const kept = this.entries.get(partId);
    if (kept) return kept;
    const entry = await answeredFeatureEntry(this.kv, partId);
    if (entry?.v === FEATURE_ROLLUP_VERSION) {
      this.entries.set(partId, entry);
      while (this.entries.size > 10_000) this.entries.delete(this.entries.keys().next().value!);
    }
    return entry;
  }

  /** Questions holding each table (by key) between asking for it and having added it to their collectors. */
  private holders = new Map<string, number>();

  private hold(key: string): string {
    this.holders.set(key, (this.holders.get(key) ?? 0) + 1);
    return key;
  }

  /**
   * A question is done with a table: when no other question holds it and the cache did not keep it (a
   * period's tables are far more than the features' share), its arrays are freed now (~50 MB of decoded
   * tables a cold question at 10M events, else left dead for V8's next full collection). `t` undefined: the
   * read failed, nothing to free.
   */
  private letGo(key: string, t: FeatureTable | undefined) {
    const n = (this.holders.get(key) ?? 1) - 1;
    if (n > 0) return void this.holders.set(key, n);
    this.holders.delete(key);
    if (t && this.cache.get(key) !== t && !this.loading.has(key)) releaseArraysOf(t);
  }

  /** A section of a part's tables, decoded once and cached (parts are immutable); throws PartGoneError when gone. */
  private table(partId: string, entry: FeatureEntry, sec: number): Promise<FeatureTable> {
    const key = tableKey(partId, sec, entry.v);
    const hit = this.cache.get(key) as FeatureTable | undefined;
    if (hit) return Promise.resolve(hit);
    let loading = this.loading.get(key);
    if (!loading) {
      loading = readFeatureTable(this.kv, partId, entry, sec).then((t) => {
        if (!t) return null;
        this.bytesRead += entry.secs[sec][0];
        this.cache.set(key, t, featureTableBytes(t));
        return t;
      }).finally(() => this.loading.delete(key));
      this.loading.set(key, loading);
    }
    return loading.then((t) => {
      if (!t) throw new PartGoneError(`part ${partId}: feature table gone`);
      return t;
    });
  }
}

const tableKey = (partId: string, sec: number, v: number) => `t|${partId}|${sec}|${v}`;

/** The planner over a Source, its decoded tables in a cache of `cacheBytes` (the caller's share of the budget). */
export function featureAnswers(
  deps: Pick<Deps, "kv">,
  source: Source,
  cacheBytes: number,
  window?: number,
): FeatureRollups {
  return new FeatureRollups(deps.kv, source, cacheBytes, window);
}

/** A part's hours inside the period (null: all of them; undefined: one straddles an end: read the part). */
function hoursInside(hs: FeatureEntry["hours"], s: Scope): Set<number> | null | undefined {
  const hours = new Set<number>();
  for (const h of hs) {
    if (h.min >= s.from && h.max < s.to) hours.add(h.hour);
    else if (!(h.max < s.from || h.min >= s.to)) return undefined;
  }
  return hours.size === hs.length ? null : hours;
}

/** The columns a feature table needs of a part. */
export async function readPartBatch(kv: Deno.Kv, p: PartMeta): Promise<Batch> {
  const columns = await partColumns(kv, p);
  const only = (c: string) => FEATURE_COLUMNS.has(c);
  const { from, to } = columnRange(columns, only);
  const { base, bytes } = await readRange(kv, p, from, to);
  return await decodeBatch({ n: p.rows, columns }, bytes, only, base);
}
