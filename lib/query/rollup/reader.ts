/**
 * What every rollup question reads through: the pieces of the parts' rollups (pieces.ts: a field's rows, their
 * visitor sets, the session facts, their lists), each read from KV and decoded once and cached by part id and
 * piece (parts are immutable), results kept for a period in the same one budget, the period's parts and raw
 * tail (`inPeriod`), and a rollup of the raw tail, its visitors numbered as the parts' are (ids not numbered
 * yet get numbers past all given ones), built over the whole tail and kept while the tail's records and the
 * visitor count stay the same. The question kinds (plain_answers.ts, sources_answers.ts, explain_answers.ts,
 * source.ts's retention) read only through it.
 */
import { holdArraysOf } from "../../working_memory.ts";
import { inBatches } from "../../batches.ts";
import type { Deps } from "../../deps.ts";
import { Lru } from "../../lru.ts";
import { keys } from "../../store/keys.ts";
import { batchBytes, type NumCol } from "../../parts/columns.ts";
import { release } from "../../parts/packed_arrays.ts";
import { PartGoneError, type PartMeta } from "../../parts/store.ts";
import { addCutIds, type CutRead, readCutRows, tailBatch, tiedCuts } from "./cut_rows.ts";
import { visitorCount, visitorNumbersForReading } from "../../parts/visitor_numbers.ts";
import type { Source } from "../columns/source.ts";
import type { Scope } from "../types.ts";
import { cutsHour, hoursInside, type PiecesAsked, rowsOf } from "./answer.ts";
import { batchVisitors, buildRollupTurning, type Rollup, rowVisitors } from "./build.ts";
import type { StoredEvent } from "../../store/records.ts";
import type { Turn } from "../../turns.ts";
import {
  concatFacts,
  concatLists,
  emptyFacts,
  emptyPiece,
  type FactLists,
  type RollupParts,
  wholeParts,
} from "./pieces.ts";
import type { SessionFacts } from "./session_facts.ts";
import type { PeriodUnion } from "./unions.ts";
import { BLOCKS } from "./spans.ts";
import { overlapUnits, type SessionJoin } from "./sessions.ts";
import {
  answeredVersion,
  decodeEnds,
  decodeFacts,
  decodeLists,
  decodeRows,
  decodeSets,
  ENDS_SEC,
  factsSec,
  listsSec,
  readSection,
  readSections,
  readStamps,
  ROLLUP_VERSION,
  type RollupEntry,
  rowsSec,
  type SectionAsk,
  setsSec,
  wideRowsSec,
  wideSetsSec,
} from "./store.ts";

/**
 * Anything kept in the piece share: decoded pieces, entries, kept results of a period (each reader casts what
 * it finds under a key to what it keeps there).
 */
export type Piece = object;

/** The whole raw tail's rollup and the visitor space its numbering gives. */
export interface TailRollup {
  rollup: Rollup;
  space: number;
}
const TAIL_KEY = "tail";
/** Rows with their sets, the facts and their lists. */
const tailWeight = (r: Rollup) =>
  r.sets.length + r.n * 64 + r.values.length * 40 + r.facts.n * 96 + r.facts.listDt.byteLength * 2;

/**
 * The most bytes of cut hours' rows kept for the next asks, all periods together (their columns: ~100-300 bytes
 * a row; an hour of a 10M-event month ~14,000 rows). They are kept outside the budget, so this bounds them; a
 * period's edges cut a few hours.
 */
const CUT_ROWS_KEPT_BYTES = 16 << 20;

/**
 * The rows a question adds to its parts' rollups: the raw tail's records in the period and the rows in the
 * period of the parts' hours it cuts (`inPeriod`); `length` counts both.
 */
export interface TailRows {
  records: StoredEvent[];
  cuts: { part: PartMeta; read: CutRead; rows: number[] }[];
  length: number;
}

const tailRows = (records: StoredEvent[], cuts: TailRows["cuts"]): TailRows => ({
  records,
  cuts,
  length: records.length + cuts.reduce((n, c) => n + c.rows.length, 0),
});

/** A part or piece gone while reading (a merge): the question re-plans (the scan answers it). */
export class Gone extends Error {}

export class RollupReader {
  constructor(
    readonly deps: Deps,
    private source: Source,
    bytes: number,
    /** what a raw tail's build awaits every 2,048 rows (tests count them) */
    private turn: () => Turn,
  ) {
    // a quarter of the share for kept unions (unions.ts), the rest for pieces and kept session totals
    this.unions = new Lru(Math.floor(bytes / 4));
    this.cache = new Lru(bytes - Math.floor(bytes / 4));
  }
  cache: Lru<Piece>;

  unions: Lru<PeriodUnion>;

  /** Questions asked, and the last question that read each kept piece. */
  asked = 0;

  lastAsked = new Map<string, number>();

  /** KV bytes read for pieces (the bench reports a cold question's). */
  bytesRead = 0;

  /** Questions whose rows came from a kept list (kept_lists.ts) without reading their field's rows. */
  listsFromKept = 0;

  /**
   * Work under way that questions asked at once share, by key (a period's session totals: plain_answers.ts):
   * a report asks ten tools at once, and each counted the same period's totals from the same keys and spans.
   * A key is removed when its work settles (what it made is kept in `cache` by then, if it fits).
   */
  readonly underWay = new Map<string, Promise<unknown>>();

  /** The work of `key` under way, or `start()`'s, shared until it settles. */
  shared<T>(key: string, start: () => Promise<T>): Promise<T> {
    const going = this.underWay.get(key) as Promise<T> | undefined;
    if (going) return going;
    const p = start();
    this.underWay.set(key, p);
    const done = () => {
      if (this.underWay.get(key) === p) this.underWay.delete(key);
    };
    p.then(done, done);
    return p;
  }

  /**
   * Keeps a decoded piece while it fits. A period's pieces are read in the same order every question, so
   * evicting the least recently used to make room would miss each of them next time (the whole period read
   * again from KV each question); instead what is kept stays, and only pieces no question read in the last
   * 16 (parts merged away, periods or fields no longer asked) make room.
   */
  keep(key: string, p: Piece, w: number) {
    // a look that found nothing to let go finds nothing again until the next question (or `spare`): a cold
    // question at 10M events kept ~3,000 pieces into a full share, each looking over every one of them
    if (this.cache.used + w > this.cache.capacity && this.nothingOlder !== this.asked) {
      for (const [old, at] of this.lastAsked) {
        if (this.cache.used + w <= this.cache.capacity) break;
        if (at < this.asked - 16) {
          this.cache.delete(old);
          this.lastAsked.delete(old);
        }
      }
      if (this.cache.used + w > this.cache.capacity) this.nothingOlder = this.asked;
    }
    if (this.cache.used + w <= this.cache.capacity) this.cache.set(key, p, w);
    else this.lastAsked.delete(key);
  }

  /**
   * Marks a field's rows of these parts (hourly and wide) as the first to make room when a piece needs it, as
   * if no question had read them for long: a kept result now answers what they did (kept_lists.ts).
   */
  spare(ids: string[], f: number) {
    this.spareNames(ids.flatMap((id) => [false, true].map((wide) => pieceNames(id, f, wide).rows)));
  }

  /** Marks these kept pieces as the first to make room (a kept result now answers what they were read for). */
  spareNames(names: string[]) {
    this.nothingOlder = -1;
    for (const name of names) if (this.lastAsked.has(name)) this.lastAsked.set(name, -Infinity);
  }

  /** The question (`asked`) during which `keep` last found no piece old enough to let go. */
  private nothingOlder = -1;

  /** Kept results (a period's session totals, its lists) in the piece share, newest last. */
  keptKeys = new Set<string>();

  /**
   * Keeps a result computed for a period (its session totals, a list). Pieces make room, those asked longest
   * ago first, never another kept result: a period's totals and its lists pushed each other out of the share
   * (the least recently used went), so every other warm ask joined the period's sessions again (1.4-1.8 s at
   * 10M events) and the next one rebuilt the lists. A list is not kept when only evicting kept results would
   * make room for it (the totals cost more to make again).
   */
  setKept(key: string, value: Piece, w: number, list: boolean) {
    this.cache.delete(key);
    if (this.cache.used + w > this.cache.capacity) {
      // (entries stay: small, and read one by one when missing)
      const pieces = [...this.lastAsked].filter(([k]) => k.includes("/") && !this.keptKeys.has(k))
        .sort((a, b) => a[1] - b[1]);
      for (const [k] of pieces) {
        if (this.cache.used + w <= this.cache.capacity) break;
        this.cache.delete(k);
        this.lastAsked.delete(k);
      }
    }
    if (list && this.cache.used + w > this.cache.capacity) return;
    this.cache.set(key, value, w);
    this.lastAsked.set(key, this.asked);
    this.keptKeys.delete(key);
    this.keptKeys.add(key);
    while (this.keptKeys.size > 32) this.keptKeys.delete(this.keptKeys.values().next().value!);
  }

  /** A piece from the cache, or read and decoded (null: the part's rollup has no such section). */
  async piece<P extends Piece>(
    key: string,
    read: () => Promise<Uint8Array | null | undefined>,
    decode: (bytes: Uint8Array) => P,
    weigh: (p: P) => number,
    keepIt = true,
  ): Promise<P | null> {
    const hit = this.cache.get(key) as P | undefined;
    if (keepIt || hit) this.lastAsked.set(key, this.asked);
    if (hit) return hit;
    const bytes = await read();
    if (bytes === undefined) throw new Gone();
    if (bytes === null) return null;
    this.bytesRead += bytes.length;
    const p = decode(bytes);
    // (decoded into a buffer of its own: the stored bytes are let go now, packed_arrays.ts `release`)
    release(bytes);
    if (keepIt) this.keep(key, p, weigh(p));
    // a piece not kept is the question's own while it answers (lib/working_memory.ts)
    if (this.cache.peek(key) !== p) holdArraysOf(p);
    return p;
  }

  async entry(id: string): Promise<RollupEntry | null> {
    const hit = this.cache.get(`${id}`) as RollupEntry | undefined;
    this.lastAsked.set(`${id}`, this.asked);
    if (hit) return hit;
    const got = await this.deps.kv.get<RollupEntry>(keys.rollup(id));
    return this.entryRead(id, got.value, got.versionstamp);
  }

  /** The versionstamp of each part's entry as last read: a new one means the part's rollup was written again. */
  private entryStamps = new Map<string, string>();

  /**
   * An entry read from KV: kept when of the current version; an older one is answered but read again each
   * question, so the backfill's rewrite is seen. An entry written again since it was last read (the backfill
   * upgrading it, or writing a current one's sections again) lets go of everything kept from the part: its
   * pieces and what periods holding it kept were read from the sections before (an upgraded part's reporters
   * none), and sections read with the entry before are gone (`readSection`: chunks newer than their entry).
   */
  private entryRead(id: string, e: RollupEntry | null, stamp: string | null): RollupEntry | null {
    if (!e || !answeredVersion(e.v)) return null;
    // (a stamp a part read: let go all at once past a bound, parts merged away being many over months)
    if (this.entryStamps.size > 50_000) this.entryStamps.clear();
    const was = this.entryStamps.get(id);
    if (stamp) {
      this.entryStamps.set(id, stamp);
      readStamps.set(e, stamp);
    }
    if (was !== undefined && was !== stamp) this.forgetPart(id);
    if (e.v !== ROLLUP_VERSION) return e;
    this.keep(`${id}`, e, 200 + e.head.hours.length * 40);
    return e;
  }

  /**
   * Whether `e` is a part found gone while reading (merged away, or its sections written again under a kept
   * entry: the question re-plans). Then the kept entries are let go, so the next question reads them again and
   * a rewritten part's new entry lets go of what was kept from it; without this a kept entry whose sections
   * were written again sent every question over its period to the scan for as long as questions kept it.
   */
  gone(e: unknown): boolean {
    if (!(e instanceof Gone)) return false;
    for (const id of this.entryStamps.keys()) {
      this.cache.delete(id);
      this.lastAsked.delete(id);
    }
    return true;
  }

  /** Lets go of what was kept from a part: its pieces (`<id>/...`) and what periods naming it kept. */
  private forgetPart(id: string) {
    const ofPart = (k: string) => k.startsWith(`${id}/`) || k.includes(`"${id}:`);
    for (const k of [...this.cache.keys()]) {
      if (!ofPart(k)) continue;
      this.cache.delete(k);
      this.lastAsked.delete(k);
    }
    for (const k of [...this.unions.keys()]) if (ofPart(k)) this.unions.delete(k);
  }

  /**
   * The entries of parts not yet cached, read ten a call (KV's getMany limit): a period's 200 entries cost
   * 20 calls instead of 200.
   */
  async prefetchEntries(ids: string[]): Promise<void> {
    // entries another question is reading now are awaited, not read again (questions asked at once)
    const missing: string[] = [], reading = new Set<Promise<unknown>>();
    for (const id of ids) {
      // (a look: the entry is taken, and counted as used, when the question reads it)
      if (this.cache.peek(id)) continue;
      const going = this.underWay.get(`entry ${id}`);
      if (going) reading.add(going);
      else missing.push(id);
    }
    const groups: string[][] = [];
    for (let i = 0; i < missing.length; i += 10) groups.push(missing.slice(i, i + 10));
    const mine = inBatches(groups, 4, async (group) => {
      const got = await this.deps.kv.getMany<RollupEntry[]>(group.map((id) => keys.rollup(id)));
      got.forEach((e, x) => this.entryRead(group[x], e.value, e.versionstamp));
    });
    for (const id of missing) this.shared(`entry ${id}`, () => mine);
    await Promise.all([mine, ...reading]);
  }

  /** A part's rollup with the pieces asked loaded, or null when it has none (yet). */
  /**
   * `keepFacts` false: the facts (and ends) are read for a join whose result is kept instead (they would fill
   * the cache with rows no later question reads).
   */
  async part(
    id: string,
    asked: PiecesAsked,
    keepFacts = true,
    pre: Map<string, Uint8Array> | null = null,
    wide = false,
  ): Promise<RollupParts | null> {
    const { kv } = this.deps;
    const e = await this.entry(id);
    if (!e) return null;
    const fields = new Map<number, Rollup>();
    for (const f of asked.fields) {
      // wide: the field's rows over all the part's hours (wide.ts), when the period holds them all
      const { rows: name, sets: setsName, rowsSec: rs, setsSec: ss } = pieceNames(id, f, wide);
      const rows = await this.piece(
        name,
        async () => pre?.get(name) ?? await readSection(kv, id, e, rs),
        (b) => decodeRows(b, e.head, f),
        rowsWeight,
      );
      const r = rows ?? emptyPiece(e.head, f);
      if (asked.sets.includes(f) && rows && !rows.sets.length && e.secs[ss]) {
        // the sets of a field's rows are read once and kept with them
        const bytes = pre?.get(setsName) ?? await readSection(kv, id, e, ss);
        if (!bytes) throw new Gone();
        this.bytesRead += bytes.length;
        rows.sets = decodeSets(bytes, setsName.slice(setsName.lastIndexOf("/") + 1));
        release(bytes);
        // weighed again under the keep policy (a plain set would push out the least recently used: a kept join)
        if (this.cache.delete(name)) this.keep(name, rows, rowsWeight(rows));
      }
      fields.set(f, r);
    }
    const facts = asked.facts ? await this.factsOf(id, e, keepFacts) : null;
    let ends = null;
    if (asked.ends) {
      // a rollup written before entries and exits: the scan answers until the backfill adds them
      if (!e.secs[ENDS_SEC]) return null;
      ends = await this.piece(
        `${id}/ends`,
        () => readSection(kv, id, e, ENDS_SEC),
        decodeEnds,
        (x) => x.entT.length * 48 + x.pages.length * 40,
        keepFacts,
      );
    }
    return {
      ...e.head,
      field: (f) => fields.get(f) ?? emptyPiece(e.head, f),
      facts,
      lists: null,
      ends,
    };
  }

  /**
   * The rows and sets sections `part` will read for these parts (not cached yet), fetched together
   * (readSections: ten chunks a KV call); answered by piece name for `part` to decode.
   */
  async prefetch(
    ids: string[],
    asked: PiecesAsked,
    wide: boolean[],
  ): Promise<Map<string, Uint8Array>> {
    const asks: SectionAsk[] = [], names: string[] = [];
    ids.forEach((id, x) => {
      // looks, not uses: `part` takes what is kept (re-inserting ~1,000 keys into the cache's order every warm
      // ask cost ~3 ms of a 10M overview's and was the most of its growth over 1M's)
      const e = this.cache.peek(id) as RollupEntry | undefined;
      if (!e) return;
      for (const f of asked.fields) {
        const n = pieceNames(id, f, wide[x]);
        const rows = this.cache.peek(n.rows) as Rollup | undefined;
        if (!rows && e.secs[n.rowsSec]) {
          asks.push({ partId: id, entry: e, sec: n.rowsSec });
          names.push(n.rows);
        }
        if (asked.sets.includes(f) && !rows?.sets.length && e.secs[n.setsSec]) {
          asks.push({ partId: id, entry: e, sec: n.setsSec });
          names.push(n.sets);
        }
      }
    });
    const got = await readSections(this.deps.kv, asks);
    const out = new Map<string, Uint8Array>();
    got.forEach((bytes, x) => {
      if (bytes === undefined) throw new Gone();
      if (bytes) out.set(names[x], bytes);
    });
    return out;
  }

  /** A part's facts, all blocks in stored order (`keepIt` false: read for a join whose result is kept instead). */
  async factsOf(id: string, e: RollupEntry, keepIt: boolean): Promise<SessionFacts> {
    const key = `${id}/facts`;
    const hit = this.cache.get(key) as SessionFacts | undefined;
    if (keepIt || hit) this.lastAsked.set(key, this.asked);
    if (hit) return hit;
    const blocks = await this.blocks(id, e, factsSec, decodeFacts);
    const f = blocks.length ? concatFacts(blocks) : emptyFacts();
    if (keepIt) this.keep(key, f, f.n * 72);
    if (this.cache.peek(key) !== f) holdArraysOf(f);
    return f;
  }

  /** A part's blocks (those it has) of one kind, read together (readSections) and decoded, in block order. */
  async blocks<P>(
    id: string,
    e: RollupEntry,
    sec: (b: number) => number,
    decode: (b: Uint8Array) => P,
  ): Promise<P[]> {
    const asks: SectionAsk[] = [];
    for (let b = 0; b < BLOCKS; b++) if (e.secs[sec(b)]) asks.push({ partId: id, entry: e, sec: sec(b) });
    return (await readSections(this.deps.kv, asks)).map((bytes) => {
      if (!bytes) throw new Gone();
      this.bytesRead += bytes.length;
      const p = decode(bytes);
      release(bytes);
      return p;
    });
  }

  /** One section read and decoded, not kept (null: the rollup has no such section). */
  async block<P>(
    id: string,
    e: RollupEntry,
    sec: number,
    decode: (b: Uint8Array) => P,
  ): Promise<P | null> {
    if (!e.secs[sec]) return null;
    const bytes = await readSection(this.deps.kv, id, e, sec);
    if (!bytes) throw new Gone();
    this.bytesRead += bytes.length;
    const p = decode(bytes);
    if (p && typeof p === "object") holdArraysOf(p);
    return p;
  }

  /** The device-time lists of a part's facts (only for sessions whose segments overlap), all blocks. */
  async lists(id: string, e: RollupEntry, keepIt: boolean): Promise<FactLists | null> {
    const key = `${id}/lists`;
    const hit = this.cache.get(key) as FactLists | undefined;
    if (keepIt || hit) this.lastAsked.set(key, this.asked);
    if (hit) return hit;
    const blocks = await this.blocks(id, e, listsSec, decodeLists);
    const l = concatLists(blocks, blocks.map((x) => x.listAt.length - 1));
    if (keepIt) this.keep(key, l, l.listDt.length * 16 + l.listAt.length * 4);
    if (this.cache.peek(key) !== l) holdArraysOf(l);
    return l;
  }

  /** The lists a join needs: of the units holding sessions whose segments overlap. */
  async listsFor(join: SessionJoin, units: RollupParts[], parts: { id: string }[], keepIt = true) {
    const lists: (FactLists | null)[] = units.map((p) => p.lists);
    for (const ri of overlapUnits(join)) {
      if (lists[ri]) continue;
      const e = await this.entry(parts[ri].id);
      if (!e) throw new Gone();
      lists[ri] = await this.lists(parts[ri].id, e, keepIt);
    }
    return lists;
  }

  /**
   * The period's parts and raw tail (Source.partsAndTail). An hour of a part the period cuts (its rows on both
   * sides of one end: a previous window ending at now's time of day always cuts one) is not read from the
   * part's rollup: its rows in the period join the raw tail's (`cutRows`: in the columns the tail's rollup
   * reads, never made records; cut_rows.ts) and `hoursInside(…, true)` leaves the hour out of the part, so the
   * question stays exact on rollups instead of going to the scan (at 10M events explain-a-change's previous
   * week was scanned each ask). `cut` names those hours and the period ("" when none).
   */
  async inPeriod(s: Scope): Promise<{ parts: PartMeta[]; tail: TailRows; all: StoredEvent[]; cut: string }> {
    const got = await this.source.partsAndTail(s.org, s.env, s.from, s.to);
    const asRead = { ...got, tail: tailRows(got.tail, []), cut: "" };
    try {
      await this.prefetchEntries(got.parts.map((p) => p.id));
      const heads = await inBatches(got.parts, 8, (p) => this.entry(p.id));
      const cutHours = got.parts.flatMap((p, i) => {
        const hours = (heads[i]?.head.hours ?? [])
          .filter((h) => cutsHour(h, s))
          .map((h) => h.hour);
        return hours.length ? [{ p, hours }] : [];
      });
      if (!cutHours.length) return asRead;
      const reads = await Promise.all(cutHours.map(({ p, hours }) => this.cutRows(p, hours)));
      const cuts = reads.map((read, k) => {
        const t = (read.batch.cols.t as NumCol).values, rows: number[] = [];
        for (let i = 0; i < read.batch.n; i++) if (t[i] >= s.from && t[i] < s.to) rows.push(i);
        return { part: cutHours[k].p, read, rows };
      });
      // rows only their ids order (rare): their ids too
      const tied = tiedCuts(got.tail, cuts.map((c) => ({ batch: c.read.batch, rows: c.rows })));
      for (const k of tied) await addCutIds(this.deps.kv, cuts[k].part, cuts[k].read);
      return {
        parts: got.parts,
        tail: tailRows(got.tail, cuts),
        all: got.all,
        cut: `${cutHours.map(({ p, hours }) => `${p.id}:${hours.join(".")}`).join()}|${s.from}|${s.to}`,
      };
    } catch (e) {
      // a part merged away meanwhile: as read (the hours cut send the question to the scan)
      if (e instanceof Gone || e instanceof PartGoneError) return asRead;
      throw e;
    }
  }

  /**
   * A part's rows received in the given hours, in the columns a raw tail's rollup reads (cut_rows.ts), read
   * from the part (the last few kept: a period's ends).
   */
  cutRowsKept = new Lru<Promise<CutRead>>(CUT_ROWS_KEPT_BYTES);

  cutRows(p: PartMeta, hours: number[]): Promise<CutRead> {
    const key = `${p.id}|${hours.join(".")}`;
    let got = this.cutRowsKept.get(key);
    if (!got) {
      got = readCutRows(this.deps.kv, p, hours);
      // weighed by their bytes once read (the least recently asked go first): every tool's period and
      // previous period may cut hours (with the last 4 kept, one engine answering all tools re-read and decoded
      // explain-a-change's cut parts on each ask: 0.3-0.5 s and their decoded parts)
      const read = got;
      read.then(
        (rows) =>
          this.cutRowsKept.get(key) === read &&
          this.cutRowsKept.set(key, read, Math.max(1, batchBytes(rows.batch) + rows.partRows.byteLength)),
        () => this.cutRowsKept.get(key) === read && this.cutRowsKept.delete(key),
      );
      this.cutRowsKept.set(key, read, 1);
    }
    return got;
  }

  /** Adds the raw tail's rollup to `loaded` (its new visitors numbered for this question); answers the visitor space. */
  async addTail(
    loaded: RollupParts[],
    tail: TailRows,
    all: StoredEvent[],
    s: Scope,
    cut: string,
  ) {
    const { part, space } = await this.tailRollup(tail, all, s, cut);
    if (part) loaded.push(part);
    return space;
  }

  /** Raw tail rollups built (each question over an unchanged tail reuses the kept one). */
  tailBuilds = 0;

  /** The whole raw tail whose rollup is kept (or being built): its records' array and the visitor count. */
  tail: { all: StoredEvent[]; count: number; building: Promise<TailRollup> | null } | null = null;

  /**
   * The raw tail's rollup (null: no tail in the period) and the visitor space with its new visitors numbered.
   * Built over the whole tail (`all`, the same array while its records are unchanged) and kept in the piece
   * share while that array and the visitor count stay (a new number would change the tail's numbering): at
   * 40,000 raw events the build took ~1-1.4 s, paid by every question before. When the period cuts one of
   * the whole tail's hours, the period's own events (`tail`) are built for this question only, as before.
   */
  async tailRollup(tail: TailRows, all: StoredEvent[], s: Scope, cut = "") {
    const { kv } = this.deps;
    const count = await visitorCount(kv, s.org, s.env);
    if (!tail.length) return { part: null, space: count };
    if (cut) {
      // rows of parts whose hours the period cuts are among `tail`: built for this period, kept while the
      // raw tail, the visitor count and the cut parts stay
      const key = `cutTail|${this.stampOf(all, count, cut)}|${s.from}|${s.to}`;
      let own = this.cache.get(key) as TailRollup | undefined;
      if (!own) {
        own = await this.buildTail(tail, s);
        this.keep(key, own, tailWeight(own.rollup));
      }
      this.lastAsked.set(key, this.asked);
      return { part: wholeParts(own.rollup), space: own.space };
    }
    let kept = this.tail;
    let got = kept && kept.all === all && kept.count === count
      ? (kept.building ? await kept.building : this.cache.get(TAIL_KEY) as TailRollup | undefined)
      : undefined;
    if (!got) {
      const building = this.buildTail(all, s);
      this.tail = kept = { all, count, building };
      building.catch(() => this.tail?.building === building && (this.tail = null));
      got = await building;
      if (this.tail === kept) {
        kept.building = null;
        this.keep(TAIL_KEY, got, tailWeight(got.rollup));
      }
    }
    this.lastAsked.set(TAIL_KEY, this.asked);
    if (hoursInside([got.rollup], s)) return { part: wholeParts(got.rollup), space: got.space };
    const own = await this.buildTail(tail, s);
    return { part: wholeParts(own.rollup), space: own.space };
  }

  /** A rollup of raw events (and rows of cut hours), giving the event loop turns while built. */
  async buildTail(events: StoredEvent[] | TailRows, s: Scope): Promise<TailRollup> {
    const { kv } = this.deps;
    this.tailBuilds++;
    const turn = this.turn();
    const raw = Array.isArray(events) ? tailRows(events, []) : events;
    const b = await tailBatch(
      raw.records,
      raw.cuts.map((c) => ({ batch: c.read.batch, rows: c.rows })),
      turn,
    );
    const { numbers, size } = await visitorNumbersForReading(kv, s.org, s.env, batchVisitors(b));
    const rows = rowVisitors(b, numbers);
    return { rollup: await buildRollupTurning(b, (i) => rows[i], turn), space: size };
  }

  /**
   * What names the raw rows a question adds to the parts: the raw tail (its stamp, or none) and the parts
   * whose cut hours' rows were taken (`inPeriod`).
   */
  stampOf(all: StoredEvent[], count: number, cut: string): string {
    return `${all.length ? this.tailStamp(all, count) : `none:${count}`}|${cut}`;
  }

  /** Stamps of raw tails seen (the same records' array and visitor count: the same stamp). */
  tailStamps = new WeakMap<StoredEvent[], Map<number, number>>();

  stamps = 0;

  tailStamp(all: StoredEvent[], count: number): number {
    let m = this.tailStamps.get(all);
    if (!m) this.tailStamps.set(all, m = new Map());
    let x = m.get(count);
    if (x === undefined) m.set(count, x = ++this.stamps);
    return x;
  }
}

/** A field's piece in the cache (and prefetch) and its sections: hourly rows, or wide ones (wide.ts). */
export function pieceNames(id: string, f: number, wide: boolean) {
  return wide
    ? { rows: `${id}/w${f}`, sets: `${id}/ws${f}`, rowsSec: wideRowsSec(f), setsSec: wideSetsSec(f) }
    : { rows: `${id}/r${f}`, sets: `${id}/s${f}`, rowsSec: rowsSec(f), setsSec: setsSec(f) };
}

/** A period's parts with their hours in it, touchpoint and traffic kinds: what kept unions are keyed by. */
export function periodKey(
  parts: { id: string }[],
  inside: Set<number>[],
  s: Scope,
  traffic: Set<string>,
): string {
  return JSON.stringify([
    parts.map((p, i) => {
      const h = [...inside[i]];
      return h.length ? `${p.id}:${Math.min(...h)}-${Math.max(...h)}-${h.length}` : `${p.id}:-`;
    }),
    s.touchpoint ?? null,
    [...traffic].sort(),
  ]);
}

/** Part p's rows of field f in scope: touchpoint, traffic kinds and hours inside the period. */
export function rowsInScope(
  p: RollupParts,
  r: Rollup,
  f: number,
  hours: Set<number>,
  s: Scope,
  traffic: Set<string>,
): number[] {
  const tpOk = p.tps.map((tp) => !s.touchpoint || tp === s.touchpoint);
  const trOk = p.traffics.map((t) => t !== null && traffic.has(t));
  const out: number[] = [];
  for (const i of rowsOf(r, f)) if (tpOk[r.tp[i]] && trOk[r.traffic[i]] && hours.has(r.hour[i])) out.push(i);
  return out;
}

export const unitOf = (p: RollupParts) => ({ facts: p.facts!, tps: p.tps, traffics: p.traffics });

/** A field's rows decoded: arrays, strings, their sets when read, and the row index built over them. */
export const rowsWeight = (r: Rollup) => r.sets.length + r.n * 64 + r.values.length * 40;

/** `rows` of a lazily decoded batch, one column decoded at a time (cut_rows.ts). */
export { rowsOfColumns } from "./cut_rows.ts";
