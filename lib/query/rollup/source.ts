/**
 * Where rollup answers read from: the pieces of the parts' rollups a question asks about (pieces.ts: a
 * field's rows, their visitor sets, the session facts, their lists), each read from KV and decoded once and
 * cached by part id and piece (parts are immutable), and a rollup of the raw tail, its visitors numbered as
 * the parts' are (ids not numbered yet get numbers past all given ones), built over the whole tail and kept
 * while the tail's records and the visitor count stay the same (each question's hours rule takes its hours).
 */
import type { Deps } from "../../deps.ts";
import { Lru, remember } from "../../lru.ts";
import { keys } from "../../store/keys.ts";
import { buildEventBatch, reconstructEvents } from "../../parts/event_batch.ts";
import { decodeBatch } from "../../parts/codec.ts";
import { batchOfRows, type NumCol } from "../../parts/columns.ts";
import { partColumns, PartGoneError, type PartMeta, readBlob } from "../../parts/store.ts";
import { turns } from "../../turns.ts";
import { visitorCount, visitorNumbersForReading } from "../../parts/visitor_numbers.ts";
import type { Source } from "../columns/source.ts";
import type { AggregateOptions, AggregateResult, Row, Scope } from "../types.ts";
import type {
  AttributionOptions,
  AttributionResult,
  RetentionOptions,
  RetentionResult,
} from "../sequence_types.ts";
import { firstTouch, firstTouchBlocker, type FirstUnit, type PageviewsOf } from "./first_touch.ts";
import { retentionBlocker, retentionFromRollups } from "./retention.ts";
import {
  answerAttribution,
  attributionJoin,
  type AttrRows,
  attrRowsBytes,
  type AttrUnit,
  flattenRows,
  sessionEntries,
  withTailRows,
} from "./attribution.ts";
import {
  answerFromRollups,
  attributionAsked,
  cutsHour,
  ENDS_METRICS,
  fieldsOf,
  hoursInside,
  keptUnionsFit,
  type KnownVisitors,
  type PiecesAsked,
  piecesAsked,
  plainBlocker,
  rowsOf,
  SESSION_METRICS,
  type SessionAnswer,
} from "./answer.ts";
import {
  batchVisitors,
  buildRollupTurning,
  type Rollup,
  ROLLUP_FIELDS,
  rowVisitors,
  TOTAL,
} from "./build.ts";
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
import { type FactEnds, HOUR, type SessionFacts } from "./session_facts.ts";
import { buildUnion, holds, type PeriodUnion } from "./unions.ts";
import {
  buildKeptList,
  type KeptList,
  keptListBytes,
  keptListField,
  keptListFits,
  rowsFromKept,
} from "./kept_lists.ts";
import { forEachMember } from "../../parts/visitor_set.ts";
import { BLOCKS, findKey, localSessions, type PartKeys, sharedKeys, type Spans } from "./spans.ts";
import {
  engagedCounts,
  engagedPerVisitor,
  entriesAndExits,
  type EntriesExits,
  holdsKey,
  joinedKeys,
  joinSessions,
  overlapUnits,
  type SessionJoin,
  sessionsPerBucket,
  type SessionTotals,
  sessionTotals,
  unitKeys,
} from "./sessions.ts";
import {
  ATTR_SEC,
  decodeAttr,
  decodeEnds,
  decodeFacts,
  decodeFirstIds,
  decodeFirsts,
  decodeKeys,
  decodeLists,
  decodeRows,
  decodeSets,
  decodeSpans,
  ENDS_SEC,
  type FactAttr,
  factsSec,
  FIRST_IDS_SEC,
  FIRST_SEC,
  firstRowsOf,
  KEYS_SEC,
  listsSec,
  readEntry,
  readSection,
  readSections,
  ROLLUP_VERSION,
  type RollupEntry,
  rowsSec,
  type SectionAsk,
  setsSec,
  SPANS_SEC,
  wideRowsSec,
  wideSetsSec,
} from "./store.ts";

/**
 * Decoded rollups and the side tables (hit rollups, Web Vitals, property rollups) kept: a third of the one
 * budget (PART_CACHE_MB, 96 of the default 288 MB); the engine gives parts the rest (192 MB, what a month of
 * 1M events needs to be scanned warm). With a quarter of 256 MB, less the side tables' shares, the rollups
 * kept ~30 MB and the 10M overview's warm ask re-read sections (489 ms against 197 ms with a third).
 */
export const rollupCacheBytes = (budget: number): number => Math.floor(budget / 3);

/** A piece as cached: a field's rows (their sets filled in once read), the facts, their lists, an entry. */
type Piece =
  | Rollup
  | SessionFacts
  | FactLists
  | FactEnds
  | RollupEntry
  | KeptSessions
  | Spans
  | KeptList
  | FactAttr
  | AttrRows
  | AttrHashes
  | Uint32Array
  | TailRollup
  | AttributionResult
  | AggregateResult;

/** The id hashes of a period's kept attribution rows (attribution.ts), row for row. */
interface AttrHashes {
  h1: Uint32Array;
  h2: Uint32Array;
}

/** The whole raw tail's rollup and the visitor space its numbering gives. */
interface TailRollup {
  rollup: Rollup;
  space: number;
}
const TAIL_KEY = "tail";
/** Rows with their sets, the facts and their lists. */
const tailWeight = (r: Rollup) =>
  r.sets.length + r.n * 64 + r.values.length * 40 + r.facts.n * 96 + r.facts.listDt.byteLength * 2;

/** A part or piece gone while reading (a merge): the question re-plans (the scan answers it). */
class Gone extends Error {}

export class RollupSource {
  private cache: Lru<Piece>;
  constructor(
    private deps: Deps,
    private source: Source,
    bytes = rollupCacheBytes(deps.config.partCacheBytes),
    /** what a raw tail's build awaits every 2,048 rows (tests count them) */
    private turn: () => Turn = turns,
  ) {
    // a quarter of the share for kept unions (unions.ts), the rest for pieces and kept session totals
    this.unions = new Lru(Math.floor(bytes / 4));
    this.cache = new Lru(bytes - Math.floor(bytes / 4));
  }
  private unions: Lru<PeriodUnion>;
  /** Lists (period and field) asked once without a kept list (kept_lists.ts). */
  private listAskedOnce = new Map<string, true>();

  /** Questions asked, and the last question that read each kept piece. */
  private asked = 0;
  private lastAsked = new Map<string, number>();
  /** KV bytes read for pieces (the bench reports a cold question's). */
  bytesRead = 0;
  /** Questions whose rows came from a kept list (kept_lists.ts) without reading their field's rows. */
  listsFromKept = 0;

  /**
   * Keeps a decoded piece while it fits. A period's pieces are read in the same order every question, so
   * evicting the least recently used to make room would miss each of them next time (the whole period read
   * again from KV each question); instead what is kept stays, and only pieces no question read in the last
   * 16 (parts merged away, periods or fields no longer asked) make room.
   */
  private keep(key: string, p: Piece, w: number) {
    if (this.cache.used + w > this.cache.capacity) {
      for (const [old, at] of this.lastAsked) {
        if (this.cache.used + w <= this.cache.capacity) break;
        if (at < this.asked - 16) {
          this.cache.delete(old);
          this.lastAsked.delete(old);
        }
      }
    }
    if (this.cache.used + w <= this.cache.capacity) this.cache.set(key, p, w);
    else this.lastAsked.delete(key);
  }

  /** Kept results (a period's session totals, its lists) in the piece share, newest last. */
  private keptKeys = new Set<string>();

  /**
   * Keeps a result computed for a period (its session totals, a list). Pieces make room, those asked longest
   * ago first, never another kept result: a period's totals and its lists pushed each other out of the share
   * (the least recently used went), so every other warm ask joined the period's sessions again (1.4-1.8 s at
   * 10M events) and the next one rebuilt the lists. A list is not kept when only evicting kept results would
   * make room for it (the totals cost more to make again).
   */
  private setKept(key: string, value: Piece, w: number, list: boolean) {
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
  private async piece<P extends Piece>(
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
    if (keepIt) this.keep(key, p, weigh(p));
    return p;
  }

  private async entry(id: string): Promise<RollupEntry | null> {
    const hit = this.cache.get(`${id}`) as RollupEntry | undefined;
    this.lastAsked.set(`${id}`, this.asked);
    if (hit) return hit;
    const e = await readEntry(this.deps.kv, id);
    if (e) this.keep(`${id}`, e, 200 + e.head.hours.length * 40);
    return e;
  }

  /**
   * The entries of parts not yet cached, read ten a call (KV's getMany limit): a period's 200 entries cost
   * 20 calls instead of 200.
   */
  private async prefetchEntries(ids: string[]): Promise<void> {
    const missing = ids.filter((id) => !this.cache.get(id));
    const groups: string[][] = [];
    for (let i = 0; i < missing.length; i += 10) groups.push(missing.slice(i, i + 10));
    await inBatches(groups, 4, async (group) => {
      const got = await this.deps.kv.getMany<RollupEntry[]>(group.map((id) => keys.rollup(id)));
      got.forEach((e, x) => {
        const entry = e.value;
        if (entry && entry.v === ROLLUP_VERSION) {
          this.keep(group[x], entry, 200 + entry.head.hours.length * 40);
        }
      });
    });
  }

  /** A part's rollup with the pieces asked loaded, or null when it has none (yet). */
  /**
   * `keepFacts` false: the facts (and ends) are read for a join whose result is kept instead (they would fill
   * the cache with rows no later question reads).
   */
  private async part(
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
        rows.sets = decodeSets(bytes);
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
  private async prefetch(
    ids: string[],
    asked: PiecesAsked,
    wide: boolean[],
  ): Promise<Map<string, Uint8Array>> {
    const asks: SectionAsk[] = [], names: string[] = [];
    ids.forEach((id, x) => {
      const e = this.cache.get(id) as RollupEntry | undefined;
      if (!e) return;
      for (const f of asked.fields) {
        const n = pieceNames(id, f, wide[x]);
        const rows = this.cache.get(n.rows) as Rollup | undefined;
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
  private async factsOf(id: string, e: RollupEntry, keepIt: boolean): Promise<SessionFacts> {
    const key = `${id}/facts`;
    const hit = this.cache.get(key) as SessionFacts | undefined;
    if (keepIt || hit) this.lastAsked.set(key, this.asked);
    if (hit) return hit;
    const blocks = await this.blocks(id, e, factsSec, decodeFacts);
    const f = blocks.length ? concatFacts(blocks) : emptyFacts();
    if (keepIt) this.keep(key, f, f.n * 72);
    return f;
  }

  /** A part's blocks (those it has) of one kind, read together (readSections) and decoded, in block order. */
  private async blocks<P>(
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
      return decode(bytes);
    });
  }

  /** One section read and decoded, not kept (null: the rollup has no such section). */
  private async block<P>(
    id: string,
    e: RollupEntry,
    sec: number,
    decode: (b: Uint8Array) => P,
  ): Promise<P | null> {
    if (!e.secs[sec]) return null;
    const bytes = await readSection(this.deps.kv, id, e, sec);
    if (!bytes) throw new Gone();
    this.bytesRead += bytes.length;
    return decode(bytes);
  }

  /** The device-time lists of a part's facts (only for sessions whose segments overlap), all blocks. */
  private async lists(id: string, e: RollupEntry, keepIt: boolean): Promise<FactLists | null> {
    const key = `${id}/lists`;
    const hit = this.cache.get(key) as FactLists | undefined;
    if (keepIt || hit) this.lastAsked.set(key, this.asked);
    if (hit) return hit;
    const blocks = await this.blocks(id, e, listsSec, decodeLists);
    const l = concatLists(blocks, blocks.map((x) => x.listAt.length - 1));
    if (keepIt) this.keep(key, l, l.listDt.length * 16 + l.listAt.length * 4);
    return l;
  }

  /**
   * The spans (kept) and keys of every part, fetched together (readSections: ten chunks a KV call) and begun
   * before the question's other pieces are decoded, so KV reads them meanwhile.
   */
  private spanSections(parts: { id: string }[], entries: RollupEntry[]) {
    const spans: (Spans | null)[] = parts.map((p) => {
      const hit = this.cache.get(`${p.id}/spans`) as Spans | undefined;
      if (hit) this.lastAsked.set(`${p.id}/spans`, this.asked);
      return hit ?? null;
    });
    const asks: SectionAsk[] = [];
    parts.forEach((p, i) => {
      if (!spans[i]) asks.push({ partId: p.id, entry: entries[i], sec: SPANS_SEC });
      asks.push({ partId: p.id, entry: entries[i], sec: KEYS_SEC });
    });
    const got = readSections(this.deps.kv, asks);
    // awaited by spanKept; a question that fails before then must not leave it rejected unobserved
    got.catch(() => {});
    return { spans, asks, got };
  }

  /**
   * The parts' session totals of a period from their spans (spans.ts): spans wholly inside are added as they
   * are; the blocks holding sessions to join (in two parts, spans cut by the period, sessions that are not
   * simple) are read, those sessions taken out of their spans as their part alone counted them and joined.
   */
  private async spanKept(
    parts: { id: string }[],
    entries: RollupEntry[],
    inside: Set<number>[],
    s: Scope,
    traffic: Set<string>,
    space: number,
    fetched: ReturnType<RollupSource["spanSections"]>,
  ): Promise<KeptSessions> {
    const { spans, asks, got: pending } = fetched;
    const got = await pending;
    const keys: PartKeys[] = [];
    got.forEach((bytes, x) => {
      if (bytes === undefined) throw new Gone();
      this.bytesRead += bytes?.length ?? 0;
      const { partId, sec } = asks[x], i = keys.length;
      if (sec === KEYS_SEC) {
        keys.push(
          bytes
            ? decodeKeys(bytes)
            : { n: 0, vis: new Uint32Array(0), h: new Uint32Array(0), block: new Uint8Array(0) },
        );
      } else if (bytes) {
        const sp = decodeSpans(bytes);
        spans[i] = sp;
        this.keep(`${partId}/spans`, sp, sp.n * 40 + sp.engaged.length * 4 + 200);
        this.lastAsked.set(`${partId}/spans`, this.asked);
      }
    });
    const shared = sharedKeys(keys, space);
    const totals: SessionTotals = {
      sessions: 0,
      withPageview: 0,
      bounces: 0,
      durationMs: 0,
      engagedVisitors: 0,
      dropped: 0,
    };
    let engaged = new Uint16Array(Math.max(1, space));
    const count = (v: number, by: number) => {
      if (v >= engaged.length) {
        const grown = new Uint16Array(Math.max(v + 1, engaged.length * 2));
        grown.set(engaged);
        engaged = grown;
      }
      engaged[v] += by;
    };
    const need = parts.map(() => new Set<number>());
    const scoped = entries.map((e) => ({
      tp: e.head.tps.map((tp) => !s.touchpoint || tp === s.touchpoint),
      tr: e.head.traffics.map((t) => t !== null && traffic.has(t)),
    }));
    const whole = (i: number, h0: number, h1: number) => inside[i].has(h0) && inside[i].has(h1);
    spans.forEach((sp, i) => {
      if (!sp) {
        // no spans (none written): every block is joined
        for (let b = 0; b < BLOCKS; b++) need[i].add(b);
        return;
      }
      const { tp, tr } = scoped[i];
      for (let g = 0; g < sp.n; g++) {
        if (!tp[sp.tp[g]] || !tr[sp.traffic[g]]) continue;
        if (whole(i, sp.h0[g], sp.h1[g])) {
          totals.sessions += sp.sessions[g];
          totals.withPageview += sp.withPageview[g];
          totals.bounces += sp.bounces[g];
          totals.durationMs += sp.durationMs[g];
          totals.dropped += sp.dropped[g];
          for (let x = sp.engAt[g]; x < sp.engAt[g + 1]; x++) count(sp.engaged[x], 1);
        } else {
          for (const h of inside[i]) {
            if (h >= sp.h0[g] && h <= sp.h1[g]) {
              need[i].add(sp.block[g]);
              break;
            }
          }
        }
      }
      for (let b = 0; b < BLOCKS; b++) if (sp.complex[b]) need[i].add(b);
    });
    // blocks read for a cut span or a session that is not simple have every row decided by the part's own
    // join; the others are read only for sessions also in another part: just those rows, found by key
    const general = need.map((b) => new Set(b));
    const sharedSet = keys.map((k, i) => {
      const set = new Set<number>();
      for (let x = 0; x < k.n; x++) {
        if (!shared[i][x]) continue;
        need[i].add(k.block[x]);
        set.add(k.vis[x] * 4_294_967_296 + k.h[x]);
      }
      return set;
    });
    // the blocks to join, as units; per row: joined, and taken out of its span first
    const wanted: { i: number; b: number }[] = [];
    for (let i = 0; i < parts.length; i++) {
      for (const b of [...need[i]].sort((x, y) => x - y)) {
        if (entries[i].secs[factsSec(b)]) wanted.push({ i, b });
      }
    }
    const read = await readSections(
      this.deps.kv,
      wanted.map(({ i, b }) => ({ partId: parts[i].id, entry: entries[i], sec: factsSec(b) })),
    );
    const units = wanted.map((w, x) => {
      const bytes = read[x];
      if (!bytes) throw new Gone();
      this.bytesRead += bytes.length;
      return { ...w, facts: decodeFacts(bytes) };
    });
    const joinMasks: Uint8Array[] = [], subMasks: Uint8Array[] = [];
    for (const u of units) {
      const f = u.facts, set = sharedSet[u.i];
      const join = new Uint8Array(f.n), sub = new Uint8Array(f.n);
      if (!general[u.i].has(u.b)) {
        // every session in scope here is simple and counted whole in its span: only those in another part join
        for (let r = 0; r < f.n; r++) if (set.has(f.vis[r] * 4_294_967_296 + f.h1[r])) join[r] = sub[r] = 1;
      } else {
        const head = entries[u.i].head;
        const l = localSessions(f, head.tps, head.traffics, null);
        const slot = l.join.slots[0], j = l.join.j, { tp, tr } = scoped[u.i];
        for (let r = 0; r < f.n; r++) {
          const x = slot[r];
          if (x < 0 || !l.simple[x] || !tp[l.tp[x]] || !tr[l.traffic[x]] || !whole(u.i, l.h0[x], l.h1[x])) {
            join[r] = 1;
            continue;
          }
          // counted in its span: joined only when the session is in another part too
          if (set.has(j.vis[x] * 4_294_967_296 + j.h1[x])) join[r] = sub[r] = 1;
        }
      }
      joinMasks.push(join);
      subMasks.push(sub);
    }
    const unitOfBlock = (u: { i: number; facts: SessionFacts }) => ({
      facts: u.facts,
      tps: entries[u.i].head.tps,
      traffics: entries[u.i].head.traffics,
    });
    // a block's lists read once (the taking-out and the join may both need them), the missing ones together
    const listsRead = new Map<(typeof units)[number], FactLists | null>();
    const listsOf = async (join: SessionJoin, of: typeof units) => {
      const want = overlapUnits(join).map((ri) => of[ri]).filter((u) => !listsRead.has(u));
      const got = await readSections(
        this.deps.kv,
        want.map((u) => ({ partId: parts[u.i].id, entry: entries[u.i], sec: listsSec(u.b) })),
      );
      got.forEach((bytes, x) => {
        if (bytes === undefined) throw new Gone();
        this.bytesRead += bytes?.length ?? 0;
        listsRead.set(want[x], bytes ? decodeLists(bytes) : null);
      });
      return of.map((u) => listsRead.get(u) ?? null);
    };
    // taken out: each part's blocks alone (a session lies in one block of its part), as its spans counted it
    const byPart = new Map<number, number[]>();
    units.forEach((u, x) => {
      if (!subMasks[x].includes(1)) return;
      const l = byPart.get(u.i);
      if (l) l.push(x);
      else byPart.set(u.i, [x]);
    });
    for (const [i, xs] of byPart) {
      const of = xs.map((x) => units[x]);
      const alone = joinSessions(
        of.map(unitOfBlock),
        of.map(() => inside[i]),
        s.touchpoint,
        traffic,
        space,
        null,
        xs.map((x) => subMasks[x]),
      );
      const t = sessionTotals(alone, await listsOf(alone, of));
      for (const m of ["sessions", "withPageview", "bounces", "durationMs", "dropped"] as const) {
        totals[m] -= t[m];
      }
      for (const [v, c] of engagedPerVisitor(alone)) count(v, -c);
    }
    const joined = joinSessions(
      units.map(unitOfBlock),
      units.map((u) => inside[u.i]),
      s.touchpoint,
      traffic,
      space,
      null,
      joinMasks,
    );
    const t = sessionTotals(joined, await listsOf(joined, units));
    for (const m of ["sessions", "withPageview", "bounces", "durationMs", "dropped"] as const) {
      totals[m] += t[m];
    }
    for (const [v, c] of engagedPerVisitor(joined)) count(v, c);
    for (let v = 0; v < engaged.length; v++) if (engaged[v] > 0) totals.engagedVisitors++;
    // the parts' keys are kept as read (no second copy as numbers)
    return { totals, engaged, keys, dropped: true, ends: null };
  }

  /** The lists a join needs: of the units holding sessions whose segments overlap. */
  private async listsFor(join: SessionJoin, units: RollupParts[], parts: { id: string }[], keepIt = true) {
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
   * The kept parts' totals with the raw tail (the last unit) added: the sessions the tail has in scope are
   * taken out as the parts alone counted them and put back joined with the tail. Only the parts holding one
   * of those sessions (kept keys) have their facts read. Engaged visitors stay exact through each visitor's
   * count of engaged sessions.
   */
  private async withTail(
    kept: KeptSessions,
    loaded: RollupParts[],
    inside: Set<number>[],
    parts: { id: string }[],
    s: Scope,
    traffic: Set<string>,
    space: number,
    want: { dropped: boolean; ends: boolean },
  ): Promise<{ totals: SessionTotals; ends: EntriesExits | null }> {
    const n = parts.length, tail = loaded[n];
    const tailJoin = joinSessions([unitOf(tail)], [inside[n]], s.touchpoint, traffic, space);
    if (!tailJoin.j.n) return kept;
    const only = joinedKeys(tailJoin);
    const hit: number[] = [];
    kept.keys.forEach((keys, ri) => {
      for (const [v, l] of only) {
        if (l.some((h1, x) => x % 2 === 0 && keptHolds(keys, v, h1))) return void hit.push(ri);
      }
    });
    const units: RollupParts[] = [];
    for (const ri of hit) {
      const p = await this.part(parts[ri].id, { fields: [], sets: [], facts: true, ends: want.ends });
      if (!p) throw new Gone();
      units.push(p);
    }
    const ids = hit.map((ri) => parts[ri]);
    const hours = hit.map((ri) => inside[ri]);
    const alone = joinSessions(units.map(unitOf), hours, s.touchpoint, traffic, space, only);
    const before = sessionTotals(alone, want.dropped ? await this.listsFor(alone, units, ids) : []);
    const all = [...units, tail];
    const both = joinSessions(all.map(unitOf), [...hours, inside[n]], s.touchpoint, traffic, space, only);
    const after = sessionTotals(
      both,
      want.dropped ? await this.listsFor(both, all, [...ids, { id: "" }]) : [],
    );
    const out = { ...kept.totals };
    for (const k of ["sessions", "withPageview", "bounces", "durationMs", "dropped"] as const) {
      out[k] += after[k] - before[k];
    }
    const was = engagedPerVisitor(alone), now = engagedPerVisitor(both);
    for (const v of new Set([...was.keys(), ...now.keys()])) {
      const c0 = v < kept.engaged.length ? kept.engaged[v] : 0;
      const c1 = c0 - (was.get(v) ?? 0) + (now.get(v) ?? 0);
      out.engagedVisitors += (c1 > 0 ? 1 : 0) - (c0 > 0 ? 1 : 0);
    }
    let ends: EntriesExits | null = null;
    if (want.ends && kept.ends) {
      // the tail's sessions' entries and exits as the parts alone gave them out, joined with the tail's in
      const add = (into: Map<string | null, number>, from: Map<string | null, number>, sign: number) => {
        for (const [page, c] of from) into.set(page, (into.get(page) ?? 0) + sign * c);
      };
      const was = entriesAndExits(alone, units.map((p) => p.ends));
      const now = entriesAndExits(both, all.map((p) => p.ends));
      ends = { entries: new Map(kept.ends.entries), exits: new Map(kept.ends.exits) };
      add(ends.entries, was.entries, -1);
      add(ends.exits, was.exits, -1);
      add(ends.entries, now.entries, 1);
      add(ends.exits, now.exits, 1);
    }
    return { totals: out, ends };
  }

  /**
   * The period's parts and raw tail (Source.partsAndTail). An hour of a part the period cuts (its rows on both
   * sides of one end: a previous window ending at now's time of day always cuts one) is not read from the
   * part's rollup: its rows in the period join the raw tail's (`cutRows`) and `hoursInside(…, true)` leaves
   * the hour out of the part, so the question stays exact on rollups instead of going to the scan (at 10M
   * events explain-a-change's previous week was scanned each ask). `cut` names those hours and the period
   * ("" when none).
   */
  private async inPeriod(s: Scope) {
    const got = await this.source.partsAndTail(s.org, s.env, s.from, s.to);
    try {
      await this.prefetchEntries(got.parts.map((p) => p.id));
      const heads = await inBatches(got.parts, 8, (p) => this.entry(p.id));
      const cutHours = got.parts.flatMap((p, i) => {
        const hours = (heads[i]?.head.hours ?? [])
          .filter((h) => cutsHour(h, s))
          .map((h) => h.hour);
        return hours.length ? [{ p, hours }] : [];
      });
      if (!cutHours.length) return { ...got, cut: "" };
      const rows = await Promise.all(cutHours.map(({ p, hours }) => this.cutRows(p, hours, s)));
      const inPeriod = rows.flat().filter((e) => e.received_at >= s.from && e.received_at < s.to);
      return {
        parts: got.parts,
        tail: [...got.tail, ...inPeriod],
        all: got.all,
        cut: `${cutHours.map(({ p, hours }) => `${p.id}:${hours.join(".")}`).join()}|${s.from}|${s.to}`,
      };
    } catch (e) {
      // a part merged away meanwhile: as read (the hours cut send the question to the scan)
      if (e instanceof Gone || e instanceof PartGoneError) return { ...got, cut: "" };
      throw e;
    }
  }

  /** A part's events received in the given hours, read from the part (the last few kept: a period's ends). */
  private cutRowsKept = new Map<string, Promise<StoredEvent[]>>();
  private cutRows(p: PartMeta, hours: number[], s: Scope): Promise<StoredEvent[]> {
    const key = `${p.id}|${hours.join(".")}`;
    let got = this.cutRowsKept.get(key);
    if (!got) {
      got = (async () => {
        const { kv } = this.deps;
        const batch = await decodeBatch(
          { n: p.rows, columns: await partColumns(kv, p) },
          await readBlob(kv, p),
        );
        // only the cut hours' rows are made records, not the whole part's
        const within = new Set(hours), t = (batch.cols.t as NumCol).values;
        const rows: number[] = [];
        for (let i = 0; i < batch.n; i++) if (within.has(Math.floor(t[i] / HOUR))) rows.push(i);
        return await reconstructEvents(batchOfRows(batch, rows), s.org, s.env, this.turn());
      })();
      got.catch(() => this.cutRowsKept.get(key) === got && this.cutRowsKept.delete(key));
      remember(this.cutRowsKept, key, got, 4);
    }
    return got;
  }

  /** Adds the raw tail's rollup to `loaded` (its new visitors numbered for this question); answers the visitor space. */
  private async addTail(
    loaded: RollupParts[],
    tail: StoredEvent[],
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
  private tail: { all: StoredEvent[]; count: number; building: Promise<TailRollup> | null } | null = null;

  /**
   * The raw tail's rollup (null: no tail in the period) and the visitor space with its new visitors numbered.
   * Built over the whole tail (`all`, the same array while its records are unchanged) and kept in the piece
   * share while that array and the visitor count stay (a new number would change the tail's numbering): at
   * 40,000 raw events the build took ~1-1.4 s, paid by every question before. When the period cuts one of
   * the whole tail's hours, the period's own events (`tail`) are built for this question only, as before.
   */
  private async tailRollup(tail: StoredEvent[], all: StoredEvent[], s: Scope, cut = "") {
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

  /** A rollup of raw events, giving the event loop turns while built. */
  private async buildTail(events: StoredEvent[], s: Scope): Promise<TailRollup> {
    const { kv } = this.deps;
    this.tailBuilds++;
    const turn = this.turn();
    const b = await buildEventBatch(Object.isFrozen(events) ? events : [...events], turn);
    const { numbers, size } = await visitorNumbersForReading(kv, s.org, s.env, batchVisitors(b));
    const rows = rowVisitors(b, numbers);
    return { rollup: await buildRollupTurning(b, (i) => rows[i], turn), space: size };
  }

  /** Retention from the totals rows' visitor sets (retention.ts), or null when the scan must answer. */
  async retention(s: Scope, o: RetentionOptions): Promise<RetentionResult | null> {
    if (retentionBlocker(s, o) !== null) return null;
    const { parts, tail, all, cut } = await this.inPeriod(s);
    this.asked++;
    let loaded: RollupParts[];
    try {
      const got = await inBatches(
        parts,
        4,
        (p) => this.part(p.id, { fields: [TOTAL], sets: [TOTAL], facts: false, ends: false }),
      );
      if (got.some((p) => p === null)) return null;
      loaded = got as RollupParts[];
    } catch (e) {
      if (e instanceof Gone) return null;
      throw e;
    }
    const space = await this.addTail(loaded, tail, all, s, cut);
    const inside = hoursInside(loaded, s, cut !== "");
    return inside ? retentionFromRollups(loaded, inside, s, o, space) : null;
  }

  /** Each question's answer from rollups, or null for those the scan must answer. */
  async answer(s: Scope, questions: AggregateOptions[]): Promise<(AggregateResult | null)[]> {
    const byAttr = questions.map((o) => attributionAsked(s, o));
    if (!byAttr.some(Boolean)) return await this.plainAnswer(s, questions);
    const attr = await this.attributionAnswers(s, questions.filter((_, i) => byAttr[i]));
    const rest = questions.filter((_, i) => !byAttr[i]);
    const plain = rest.length ? await this.plainAnswer(s, rest) : [];
    let a = 0, p = 0;
    return questions.map((_, i) => (byAttr[i] ? attr[a++] : plain[p++]));
  }

  /**
   * Sessions, visitors and conversions by attribution fields and entry page (attribution.ts): the period's
   * parts' fact rows in scope, joined into sessions, are kept flat per period (~21 bytes a row); each question
   * counts from them with the raw tail's rows added (null answers: the scan answers).
   */
  private async attributionAnswers(s: Scope, os: AggregateOptions[]): Promise<(AggregateResult | null)[]> {
    const none = os.map(() => null);
    const { parts, tail, all, cut } = await this.inPeriod(s);
    this.asked++;
    const goals = [...new Set(os.flatMap((o) => (o.goal ? [o.goal.event_type] : [])))];
    const needEntry = os.some((o) => o.breakdown?.includes("entry_page"));
    const traffic = new Set(s.traffic ?? ["human"]);
    let kept: AttrRows | null = null, hashes: AttrHashes | null = null;
    let answerKeys: string[] = [];
    let tailBuilt: { part: RollupParts | null; space: number } = { part: null, space: 0 };
    // each goal's visitors in the parts in scope (sorted numbers), kept per period like the rows
    const goalKept = new Map<string, Uint32Array>();
    try {
      await this.prefetchEntries(parts.map((p) => p.id));
      const heads = await inBatches(parts, 8, (p) => this.entry(p.id));
      if (heads.some((e) => e === null)) return none;
      const partInside = hoursInside(heads.map((e) => e!.head), s, cut !== "");
      if (!partInside) return none;
      const period = periodKey(parts, partInside, s, traffic);
      // the answers themselves, kept per period, question and raw tail: a warm ask of the same questions
      // counts nothing (behavior_sources' five over 1.72M rows took ~430 ms warm at 10M events)
      tailBuilt = await this.tailRollup(tail, all, s, cut);
      // (with rows of a raw tail or cut hours, the period's bounds too: they choose which of those rows count,
      // and the parts' hours inside, which name the period, can be the same for two periods)
      const stamp = tailBuilt.part ? `${this.stampOf(all, tailBuilt.space, cut)}|${s.from}-${s.to}` : "";
      answerKeys = os.map((o) =>
        `${period}|attrAnswer|${stamp}|${JSON.stringify([s.filters ?? [], s.timezone, o])}`
      );
      const hits = answerKeys.map((k) => this.cache.get(k) as AggregateResult | undefined);
      if (hits.every((h) => h !== undefined)) {
        for (const k of answerKeys) this.lastAsked.set(k, this.asked);
        return hits.map((h) => structuredClone(h!));
      }
      const key = `${period}|attr`;
      kept = (this.cache.get(key) as AttrRows | undefined) ?? null;
      this.lastAsked.set(key, this.asked);
      // the rows' id hashes (kept apart: only a raw tail's sessions need them, to find theirs in the parts)
      const tailRows = tail.length > 0;
      hashes = (this.cache.get(`${key}|h`) as AttrHashes | undefined) ?? null;
      if (hashes) this.lastAsked.set(`${key}|h`, this.asked);
      if (!kept || (needEntry && !kept.entry) || (tailRows && !hashes)) {
        const units = await this.attrUnits(parts, needEntry);
        if (!units) return none;
        const join = attributionJoin(units, partInside, s.touchpoint, traffic, 0, true);
        const built = flattenRows(
          units,
          join,
          needEntry ? sessionEntries(join, units.map((u) => u.ends)) : null,
        );
        hashes = { h1: built.h1, h2: built.h2 };
        kept = { ...built, h1: new Uint32Array(0), h2: new Uint32Array(0) };
        this.setKept(key, kept, attrRowsBytes(kept), false);
        // kept too when pieces can make room (never the rows: they are what every question reads)
        const w = hashes.h1.byteLength * 2;
        if (tailRows) this.setKept(`${key}|h`, hashes, w, true);
      }
      for (const type of goals) {
        goalKept.set(type, await this.goalMembers(parts, partInside, period, s, traffic, type));
      }
    } catch (e) {
      if (e instanceof Gone) return none;
      throw e;
    }
    let rows: AttrRows | null = kept;
    const tailPart = tailBuilt.part;
    const tailInside = tailPart ? hoursInside([tailPart], s)?.[0] ?? null : null;
    if (tailPart && !tailInside) return none;
    if (tailPart) {
      const f = tailPart.facts!;
      if (!f.attr || !f.multi || !f.tuples) return none;
      const unit: AttrUnit = {
        ...unitOf(tailPart),
        codes: f.attr,
        multi: f.multi,
        tuples: f.tuples,
        ends: f.ends,
      };
      const join = attributionJoin([unit], [tailInside!], s.touchpoint, traffic, 0, true);
      const own = flattenRows([unit], join, needEntry ? sessionEntries(join, [f.ends]) : null);
      rows = withTailRows(kept!, hashes!, own);
      if (!rows) {
        // a tail session also in the parts, its entry page asked: all joined together
        const units = await this.attrUnits(parts, true);
        if (!units) return none;
        const inside = hoursInside([...units, tailPart], s, cut !== "");
        if (!inside) return none;
        const both = [...units, unit];
        const all = attributionJoin(both, inside, s.touchpoint, traffic, 0, true);
        rows = flattenRows(both, all, sessionEntries(all, both.map((u) => u.ends)));
      }
    }
    // each goal's visitors in scope: the parts' kept ones and the raw tail's
    const marks = this.goalMarks(
      goals,
      goalKept,
      Math.max(rows!.visitors, tailBuilt.space),
      tailPart,
      tailInside,
      s,
      traffic,
    );
    const answers = os.map((o) =>
      answerAttribution(rows!, o.goal ? marks.get(o.goal.event_type)! : null, s, o)
    );
    answers.forEach((a, i) => {
      this.keep(answerKeys[i], structuredClone(a), 256 + a.rows.length * 160);
      this.lastAsked.set(answerKeys[i], this.asked);
    });
    return answers;
  }

  /**
   * The visitor numbers with an event of this type in the parts' hours in scope (sorted), from the event
   * type's rows and sets (read for this only: the members are what is kept, per period).
   */
  private async goalMembers(
    parts: { id: string }[],
    partInside: Set<number>[],
    period: string,
    s: Scope,
    traffic: Set<string>,
    type: string,
  ): Promise<Uint32Array> {
    const ev = ROLLUP_FIELDS.indexOf("event_type");
    const gkey = `${period}|goal|${type}`;
    let members = this.cache.get(gkey) as Uint32Array | undefined;
    this.lastAsked.set(gkey, this.asked);
    if (members) return members;
    const want = { fields: [ev], sets: [ev], facts: false, ends: false };
    const got = await inBatches(parts, 4, (p) => this.part(p.id, want, false));
    if (got.some((p) => p === null)) throw new Gone();
    const seen = new Set<number>();
    (got as RollupParts[]).forEach((p, pi) => {
      const r = p.field(ev);
      for (const i of rowsInScope(p, r, ev, partInside[pi], s, traffic)) {
        if (r.values[r.value[i]] === type) forEachMember(r.sets, r.visAt[i], r.viewAt[i], (v) => seen.add(v));
      }
    });
    members = Uint32Array.from(seen).sort();
    this.setKept(gkey, members, members.byteLength + 64, false);
    return members;
  }

  /** Each goal's visitors in scope: the parts' (`kept`) and the raw tail's, marked by visitor number. */
  private goalMarks(
    goals: string[],
    kept: Map<string, Uint32Array>,
    space: number,
    tailPart: RollupParts | null,
    tailInside: Set<number> | null,
    s: Scope,
    traffic: Set<string>,
  ): Map<string, Uint8Array> {
    const ev = ROLLUP_FIELDS.indexOf("event_type");
    const marks = new Map<string, Uint8Array>();
    for (const type of goals) {
      const mark = new Uint8Array(space + 1);
      for (const v of kept.get(type)!) if (v < mark.length) mark[v] = 1;
      if (tailPart) {
        const r = tailPart.field(ev);
        for (const i of rowsInScope(tailPart, r, ev, tailInside!, s, traffic)) {
          if (r.values[r.value[i]] !== type) continue;
          forEachMember(r.sets, r.visAt[i], r.viewAt[i], (v) => (v < mark.length ? mark[v] = 1 : 0));
        }
      }
      marks.set(type, mark);
    }
    return marks;
  }

  /**
   * Explain-a-change's attribution (first_touch.ts) from the parts' facts and first events, the raw tail's
   * beside, and pageviews per value from the hourly rows; null when the scan must answer (firstTouchBlocker,
   * hours cut, a part without first events yet). The answer is kept per period, question and raw tail.
   */
  async attribution(s: Scope, o: AttributionOptions): Promise<AttributionResult | null> {
    if (firstTouchBlocker(s, o) !== null) return null;
    const { parts, tail, all, cut } = await this.inPeriod(s);
    this.asked++;
    const traffic = new Set(s.traffic ?? ["human"]);
    const pvAsks: AggregateOptions[] = o.fields.length
      ? o.fields.map((f) => ({ metrics: ["pageviews"], breakdown: [f] }))
      : [{ metrics: ["pageviews"] }];
    try {
      await this.prefetchEntries(parts.map((p) => p.id));
      const heads = await inBatches(parts, 8, (p) => this.entry(p.id));
      if (heads.some((e) => e === null || !e.secs[FIRST_SEC])) return null;
      const partInside = hoursInside(heads.map((e) => e!.head), s, cut !== "");
      if (!partInside) return null;
      const period = periodKey(parts, partInside, s, traffic);
      const tailBuilt = await this.tailRollup(tail, all, s, cut);
      const tailPart = tailBuilt.part;
      // the answer as a whole, kept for this period, question and raw tail (its records and numbering)
      const key = `${period}|first|${JSON.stringify(o)}|${
        tailPart ? `${this.stampOf(all, tailBuilt.space, cut)}|${s.from}-${s.to}` : ""
      }`;
      const keptAnswer = this.cache.get(key) as AttributionResult | undefined;
      this.lastAsked.set(key, this.asked);
      if (keptAnswer) return structuredClone(keptAnswer);
      const tailInside = tailPart ? hoursInside([tailPart], s)?.[0] ?? null : null;
      if (tailPart && (!tailInside || !tailPart.facts?.firsts)) return null;
      const bySession = o.unit === "session";
      const goals = o.goal ? [o.goal.event_type] : [];
      // the goal's visitors, the first events and the pageviews per value read together (their KV reads and
      // decoding overlap)
      const [goalLists, units, pvs] = await Promise.all([
        Promise.all(goals.map((type) => this.goalMembers(parts, partInside, period, s, traffic, type))),
        this.firstUnits(parts, bySession),
        this.answer(s, pvAsks),
      ]);
      if (!units || pvs.some((r) => r === null)) return null;
      const goalKept = new Map(goals.map((type, i) => [type, goalLists[i]]));
      const inside = [...partInside];
      if (tailPart) {
        const f = tailPart.facts!;
        units.push({
          rows: firstRowsOf(f, null),
          ids: { h1: f.h1, h2: f.h2 },
          tps: tailPart.tps,
          traffics: tailPart.traffics,
        });
        inside.push(tailInside!);
      }
      const space = Math.max(tailBuilt.space, ...units.map((u) => maxOf(u.rows.vis) + 1));
      const marks = this.goalMarks(goals, goalKept, space, tailPart, tailInside, s, traffic);
      const pageviews: PageviewsOf = { total: (pvs[0]!.totals.pageviews as number) ?? 0, by: new Map() };
      o.fields.forEach((f, k) => {
        const by = new Map<string | null, number>();
        for (const r of pvs[k]!.rows) {
          const n = (r.metrics.pageviews as number) ?? 0;
          if (n) by.set((r.key[f] ?? null) as string | null, n);
        }
        pageviews.by.set(f, by);
      });
      const answer = firstTouch(
        units,
        inside,
        s,
        o,
        o.goal ? marks.get(o.goal.event_type)! : null,
        pageviews,
      );
      this.setKept(key, structuredClone(answer), answerBytes(answer), true);
      return answer;
    } catch (e) {
      if (e instanceof Gone) return null;
      throw e;
    }
  }

  /**
   * What names the raw rows a question adds to the parts: the raw tail (its stamp, or none) and the parts
   * whose cut hours' rows were taken (`inPeriod`).
   */
  private stampOf(all: StoredEvent[], count: number, cut: string): string {
    return `${all.length ? this.tailStamp(all, count) : `none:${count}`}|${cut}`;
  }

  /** Stamps of raw tails seen (the same records' array and visitor count: the same stamp). */
  private tailStamps = new WeakMap<StoredEvent[], Map<number, number>>();
  private stamps = 0;
  private tailStamp(all: StoredEvent[], count: number): number {
    let m = this.tailStamps.get(all);
    if (!m) this.tailStamps.set(all, m = new Map());
    let x = m.get(count);
    if (x === undefined) m.set(count, x = ++this.stamps);
    return x;
  }

  /**
   * Every part's first-event rows and (`ids`) their id hashes, read for this question (the answer is what is
   * kept); null when one lacks them.
   */
  private async firstUnits(parts: { id: string }[], ids: boolean): Promise<FirstUnit[] | null> {
    const got = await inBatches(parts, 4, async (p) => {
      const e = await this.entry(p.id);
      if (!e || !e.secs[FIRST_SEC] || (ids && !e.secs[FIRST_IDS_SEC])) return null;
      const [rows, hashes] = await readSections(this.deps.kv, [
        { partId: p.id, entry: e, sec: FIRST_SEC },
        ...(ids ? [{ partId: p.id, entry: e, sec: FIRST_IDS_SEC }] : []),
      ]);
      if (!rows || (ids && !hashes)) throw new Gone();
      this.bytesRead += rows.length + (hashes?.length ?? 0);
      return {
        rows: decodeFirsts(rows),
        ids: hashes ? decodeFirstIds(hashes) : null,
        tps: e.head.tps,
        traffics: e.head.traffics,
      };
    });
    return got.some((g) => g === null) ? null : got as FirstUnit[];
  }

  /** Every part's facts (not kept: their flat rows are), attributions and (`ends`) entries; null: one lacks them. */
  private async attrUnits(parts: { id: string }[], ends: boolean) {
    const want: PiecesAsked = { fields: [], sets: [], facts: true, ends };
    const out: (AttrUnit & { hours: RollupParts["hours"] })[] = [];
    for (let w = 0; w < parts.length; w += 32) {
      const window = parts.slice(w, w + 32);
      const got = await inBatches(window, 4, async (p) => {
        const part = await this.part(p.id, want, false);
        const e = await this.entry(p.id);
        if (!part || !e) return null;
        const a = await this.piece(
          `${p.id}/attr`,
          () => readSection(this.deps.kv, p.id, e, ATTR_SEC),
          decodeAttr,
          (x) => x.codes.byteLength + x.multi.row.byteLength * 3 + x.tuples.length * 160,
          false,
        );
        if (!a) return null;
        return {
          ...unitOf(part),
          hours: part.hours,
          codes: a.codes,
          multi: a.multi,
          tuples: a.tuples,
          ends: part.ends,
        };
      });
      for (const g of got) {
        if (!g) return null; // a part without attributions yet (the backfill adds them)
        out.push(g);
      }
    }
    return out;
  }

  /** Answers from the rollups' rows and facts (plainBlocker null), or null for those the scan must answer. */
  private async plainAnswer(s: Scope, questions: AggregateOptions[]): Promise<(AggregateResult | null)[]> {
    const served = questions.map((o) => plainBlocker(s, o) === null);
    const none = questions.map(() => null);
    if (!served.some(Boolean)) return none;
    const { parts, tail, all, cut } = await this.inPeriod(s);
    this.asked++;
    // what the questions read, together
    const asked: PiecesAsked = { fields: [], sets: [], facts: false, ends: false };
    questions.forEach((o, i) => {
      if (!served[i]) return;
      const p = piecesAsked(s, o);
      for (const f of p.fields) if (!asked.fields.includes(f)) asked.fields.push(f);
      for (const f of p.sets) if (!asked.sets.includes(f)) asked.sets.push(f);
      asked.facts ||= p.facts;
      asked.ends ||= p.ends;
    });
    // session figures come from one join of the period's sessions; bucketed ones and entries/exits join all
    // facts each time, the totals reuse the parts' join kept for the period (the raw tail's sessions amended)
    const full = questions.some((o, i) => served[i] && o.bucket !== undefined && SESSION_ASKED(o));
    // dropped events of sessions whose segments overlap need the device-time lists (~16 bytes a person's event)
    const dropped = questions.some((o, i) => served[i] && o.metrics.includes("dropped_events"));
    const traffic = new Set(s.traffic ?? ["human"]);
    let keptKey = "", kept: KeptSessions | undefined;
    // what a new join keeps: what is asked, and what the one it replaces had (questions alternate)
    let keepDropped = dropped, keepEnds = asked.ends;
    let entries: RollupEntry[] = [];
    try {
      if (asked.facts && !full) {
        await this.prefetchEntries(parts.map((p) => p.id));
        const got = await inBatches(parts, 8, (p) => this.entry(p.id));
        if (got.some((e) => e === null)) return none;
        entries = got as RollupEntry[];
        const partInside = hoursInside(entries.map((e) => e.head), s, cut !== "");
        if (!partInside) return none;
        keptKey = JSON.stringify([
          // a part's hours in a period are a run of its hours: the first, the last and the count name it
          parts.map((p, i) => {
            const h = [...partInside[i]];
            return `${p.id}:${Math.min(...h)}-${Math.max(...h)}-${h.length}`;
          }),
          s.touchpoint ?? null,
          [...traffic].sort(),
        ]);
        kept = this.cache.get(keptKey) as KeptSessions | undefined;
        this.lastAsked.set(keptKey, this.asked);
        if (kept && ((dropped && !kept.dropped) || (asked.ends && !kept.ends))) {
          keepDropped ||= kept.dropped;
          keepEnds ||= kept.ends !== null;
          kept = undefined;
        }
      }
    } catch (e) {
      if (e instanceof Gone) return none;
      throw e;
    }
    // fields whose visitor counts come from unions kept for the period read no sets (unions.ts)
    let period: string | null = null;
    let wide: boolean[] | null = null;
    const pinned = new Map<string, PeriodUnion>();
    try {
      const heads = await inBatches(parts, 8, (p) => this.entry(p.id));
      const partInside = heads.every((e) => e !== null)
        ? hoursInside(heads.map((e) => e!.head), s, cut !== "")
        : null;
      if (partInside) {
        period = periodKey(parts, partInside, s, traffic);
        // a part whose hours all lie in the period is read by its wide rows (wide.ts) when no question buckets
        if (!questions.some((o, i) => served[i] && o.bucket !== undefined)) {
          wide = heads.map((e, i) => e!.head.hours.every((h) => partInside[i].has(h.hour)));
        }
        const needs = new Map<number, boolean>();
        questions.forEach((o, i) => {
          if (!served[i]) return;
          const fit = keptUnionsFit(s, o), { rowField, totalField } = fieldsOf(s, o);
          const kinds = [false, true].filter((v) => o.metrics.includes(v ? "viewers" : "visitors"));
          const need = (f: number, ok: boolean) => {
            const covered = ok && kinds.every((v) => {
              const key = unionKey(period!, f, v), u = pinned.get(key) ?? this.unions.get(key);
              if (u) pinned.set(key, u);
              return u !== undefined;
            });
            needs.set(f, (needs.get(f) ?? false) || !covered);
          };
          if (!kinds.length) return;
          // one field for groups and totals (no breakdown, or a filter on it): both must be covered
          if (rowField === totalField) need(rowField, fit.totals && (!o.breakdown?.length || fit.byRows));
          else {
            need(rowField, fit.byRows);
            need(totalField, fit.totals);
          }
        });
        asked.sets = asked.sets.filter((f) => needs.get(f) !== false);
      }
    } catch (e) {
      if (e instanceof Gone) return none;
      throw e;
    }
    // lists sorted by a sum whose period's sums and values' unions are kept (kept_lists.ts) read no rows
    // of their field: the raw tail is built first and added on top
    const tailBuilt = await this.tailRollup(tail, all, s, cut);
    const tailInside = tailBuilt.part ? hoursInside([tailBuilt.part], s)?.[0] ?? null : null;
    if (tailBuilt.part && !tailInside) return none;
    const fromKept: ({ rows: Row[]; total_rows: number } | null)[] = questions.map(() => null);
    if (period) {
      questions.forEach((o, i) => {
        if (!served[i] || !keptListFits(s, o)) return;
        const f = keptListField(s, o), key = listKey(period!, f);
        const kl = this.cache.get(key) as KeptList | undefined;
        if (!kl) return;
        this.lastAsked.set(key, this.asked);
        const t = tailBuilt.part;
        const tailRows = t
          ? { r: t.field(f), rows: rowsInScope(t, t.field(f), f, tailInside!, s, traffic) }
          : null;
        fromKept[i] = rowsFromKept(kl, tailRows, o);
      });
      const still = new Set<number>();
      questions.forEach((o, i) => {
        if (served[i]) {
          for (const f of piecesAsked(s, fromKept[i] ? { metrics: o.metrics } : o).fields) still.add(f);
        }
      });
      asked.fields = asked.fields.filter((f) => still.has(f));
      asked.sets = asked.sets.filter((f) => still.has(f));
    }
    // the parts' totals without entries and exits come from their spans: the facts of only some blocks are read
    const spanPath = asked.facts && !full && !kept && !keepEnds;
    const spanFetch = spanPath ? this.spanSections(parts, entries) : null;
    let loaded: RollupParts[];
    try {
      const want = { ...asked, facts: asked.facts && !kept && !spanPath, ends: keepEnds && !kept };
      const got: (RollupParts | null)[] = [];
      // a window of parts' sections fetched together, then decoded (the window bounds the bytes held)
      for (let w = 0; w < parts.length; w += 32) {
        const window = parts.slice(w, w + 32), wideOf = window.map((_, x) => wide?.[w + x] ?? false);
        await this.prefetchEntries(window.map((p) => p.id));
        const pre = await this.prefetch(window.map((p) => p.id), want, wideOf);
        got.push(
          ...await inBatches(
            window.map((p, x) => ({ p, x })),
            4,
            ({ p, x }) => this.part(p.id, want, full, pre, wideOf[x]),
          ),
        );
      }
      if (got.some((p) => p === null)) return none; // a part without a rollup yet (the backfill adds it)
      loaded = got as RollupParts[];
    } catch (e) {
      if (e instanceof Gone) return none;
      throw e;
    }
    if (tailBuilt.part) loaded.push(tailBuilt.part);
    const space = tailBuilt.space;
    const inside = hoursInside(loaded, s, cut !== "");
    if (!inside) return none;
    let sessions: SessionAnswer | null = null;
    try {
      if (asked.facts && full) {
        const units = loaded.map(unitOf);
        const join = joinSessions(units, inside, s.touchpoint, traffic, space);
        const totals = sessionTotals(join, dropped ? await this.listsFor(join, loaded, parts) : []);
        const ends = asked.ends ? entriesAndExits(join, loaded.map((p) => p.ends)) : null;
        sessions = {
          ends,
          totals,
          perBucket: (bucketOf: (hour: number) => number, pv: boolean) =>
            sessionsPerBucket(join, units, bucketOf, pv),
        };
      } else if (asked.facts) {
        const n = parts.length;
        if (!kept && spanPath) {
          kept = await this.spanKept(parts, entries, inside.slice(0, n), s, traffic, space, spanFetch!);
          this.setKept(
            keptKey,
            kept,
            kept.keys.reduce((n, k) => n + keptKeyBytes(k), 0) + kept.engaged.byteLength + 4_096,
            false,
          );
        } else if (!kept) {
          const partUnits = loaded.slice(0, n);
          const join = joinSessions(partUnits.map(unitOf), inside.slice(0, n), s.touchpoint, traffic, space);
          const totals = sessionTotals(
            join,
            keepDropped ? await this.listsFor(join, partUnits, parts, false) : [],
          );
          const engaged = engagedCounts(join, space);
          const ends = keepEnds ? entriesAndExits(join, partUnits.map((p) => p.ends)) : null;
          kept = { totals, engaged, keys: unitKeys(join), dropped: keepDropped, ends };
          // kept in the one budget with the pieces: keys 8 bytes a session, engaged counts 2 a visitor number
          // (before any piece: the least recently used pieces make room)
          this.setKept(
            keptKey,
            kept,
            kept.keys.reduce((n, k) => n + keptKeyBytes(k), 0) + engaged.byteLength + 4_096,
            false,
          );
        }
        const { totals, ends } = loaded.length > n
          ? await this.withTail(kept, loaded, inside, parts, s, traffic, space, { dropped, ends: asked.ends })
          : kept;
        sessions = { ends, totals, perBucket: () => new Map() };
      }
    } catch (e) {
      if (e instanceof Gone) return none;
      throw e;
    }
    const known = this.knownVisitors(
      period ?? periodKey(parts, inside, s, traffic),
      parts.length,
      pinned,
      loaded,
      inside,
      s,
      traffic,
      space,
    );
    const n = parts.length;
    return questions.map((o, i) => {
      if (!served[i]) return null;
      const rows = fromKept[i];
      if (rows) {
        this.listsFromKept++;
        // the totals from the hours' totals rows (and their kept unions), the rows from the kept list
        const { totals } = answerFromRollups(loaded, inside, s, { metrics: o.metrics }, space, null, known);
        return { totals, ...rows };
      }
      const answer = answerFromRollups(
        loaded,
        inside,
        s,
        o,
        space,
        SESSION_ASKED(o) ? sessions : null,
        known,
      );
      if (period && keptListFits(s, o)) {
        this.keepList(period, loaded.slice(0, n), inside, s, o, space);
      }
      return answer;
    });
  }

  /** Keeps the list material of a question's field for its period (kept_lists.ts), in the one budget. */
  private keepList(
    period: string,
    parts: RollupParts[],
    inside: Set<number>[],
    s: Scope,
    o: AggregateOptions,
    space: number,
  ) {
    const f = keptListField(s, o), key = listKey(period, f);
    // built when a period's list is asked a second time: a question asked once pays no more than before
    if (!this.listAskedOnce.has(key)) return void remember(this.listAskedOnce, key, true, 64);
    const traffic = new Set(s.traffic ?? ["human"]);
    const before = this.cache.get(key) as KeptList | undefined;
    const kl = buildKeptList(
      parts,
      f,
      (pi, r) => rowsInScope(parts[pi], r, f, inside[pi], s, traffic),
      before,
      space,
      { visitors: o.metrics.includes("visitors"), viewers: o.metrics.includes("viewers") },
      (viewers) => this.unions.get(unionKey(period, f, viewers)),
    );
    if (!kl) return;
    // kept like the period's session totals: pieces make room (the field's rows, which a kept list spares)
    this.setKept(key, kl, keptListBytes(kl), true);
  }

  /**
   * The period's visitors per value of a field from kept unions (unions.ts): the parts' counted once per
   * period, touchpoint and traffic kinds, the raw tail's visitors added where the parts' union lacks them.
   */
  private knownVisitors(
    period: string,
    n: number,
    pinned: Map<string, PeriodUnion>,
    loaded: RollupParts[],
    inside: Set<number>[],
    s: Scope,
    traffic: Set<string>,
    space: number,
  ): KnownVisitors {
    const scoped = (pi: number, r: Rollup, f: number): number[] => {
      const part = loaded[pi];
      const tpOk = part.tps.map((tp) => !s.touchpoint || tp === s.touchpoint);
      const trOk = part.traffics.map((t) => t !== null && traffic.has(t));
      const out: number[] = [];
      for (const i of rowsOf(r, f)) {
        if (tpOk[r.tp[i]] && trOk[r.traffic[i]] && inside[pi].has(r.hour[i])) out.push(i);
      }
      return out;
    };
    const made = new Map<string, ((value: string | null) => number) | null>();
    return (f, viewers) => {
      const key = unionKey(period, f, viewers);
      if (made.has(key)) return made.get(key)!;
      let u = pinned.get(key) ?? this.unions.get(key);
      if (!u) {
        const built = buildUnion(loaded.slice(0, n), f, (pi, r) => scoped(pi, r, f), viewers, space);
        if (built && built.bytes <= this.unions.capacity) this.unions.set(key, built, built.bytes);
        u = built ?? undefined;
      }
      let out: ((value: string | null) => number) | null = null;
      if (u) {
        const parts = u;
        // the raw tail's visitors of each value that the parts' union lacks
        const extra = new Map<string | null, Set<number>>();
        if (loaded.length > n) {
          const r = loaded[n].field(f);
          for (const i of scoped(n, r, f)) {
            const value = r.values[r.value[i]], x = parts.ids.get(value) ?? -1;
            const from = viewers ? r.viewAt[i] : r.visAt[i], to = viewers ? r.visAt[i + 1] : r.viewAt[i];
            forEachMember(r.sets, from, to, (v) => {
              if (x >= 0 && holds(parts, v, x)) return;
              let set = extra.get(value);
              if (!set) extra.set(value, set = new Set());
              set.add(v);
            });
          }
        }
        out = (value) => (parts.counts.get(value) ?? 0) + (extra.get(value)?.size ?? 0);
      }
      made.set(key, out);
      return out;
    };
  }
}

/** A field's piece in the cache (and prefetch) and its sections: hourly rows, or wide ones (wide.ts). */
function pieceNames(id: string, f: number, wide: boolean) {
  return wide
    ? { rows: `${id}/w${f}`, sets: `${id}/ws${f}`, rowsSec: wideRowsSec(f), setsSec: wideSetsSec(f) }
    : { rows: `${id}/r${f}`, sets: `${id}/s${f}`, rowsSec: rowsSec(f), setsSec: setsSec(f) };
}

/** A period's parts with their hours in it, touchpoint and traffic kinds: what kept unions are keyed by. */
function periodKey(parts: { id: string }[], inside: Set<number>[], s: Scope, traffic: Set<string>): string {
  return JSON.stringify([
    parts.map((p, i) => {
      const h = [...inside[i]];
      return h.length ? `${p.id}:${Math.min(...h)}-${Math.max(...h)}-${h.length}` : `${p.id}:-`;
    }),
    s.touchpoint ?? null,
    [...traffic].sort(),
  ]);
}

const unionKey = (period: string, f: number, viewers: boolean) => `${period}|${f}|${viewers}`;
const listKey = (period: string, f: number) => `${period}|list|${f}`;

/** Part p's rows of field f in scope: touchpoint, traffic kinds and hours inside the period. */
function rowsInScope(
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

const SESSION_ASKED = (o: AggregateOptions) =>
  o.metrics.some((m) => SESSION_METRICS.has(m) || ENDS_METRICS.has(m));

/** The parts' session totals of a period, kept: with each visitor's engaged sessions and each part's session keys. */
interface KeptSessions {
  totals: SessionTotals;
  engaged: Uint16Array;
  /** per part: its sessions' keys, as numbers (a join's unitKeys) or as read from its rollup (spans.ts) */
  keys: (Float64Array | PartKeys)[];
  /** whether the totals' dropped events are counted (the lists were read) */
  dropped: boolean;
  /** entries and exits per page, when a question asked for them */
  ends: EntriesExits | null;
}

/** Whether kept keys may hold a session of visitor v with first id hash h1. */
const keptHolds = (k: Float64Array | PartKeys, v: number, h1: number) =>
  k instanceof Float64Array ? holdsKey(k, v, h1) : findKey(k, v, h1) >= 0;
/** Memory kept keys hold (read keys are views of their section's buffer). */
const keptKeyBytes = (k: Float64Array | PartKeys) =>
  k instanceof Float64Array ? k.byteLength : k.vis.buffer.byteLength;

const unitOf = (p: RollupParts) => ({ facts: p.facts!, tps: p.tps, traffics: p.traffics });

/** A field's rows decoded: arrays, strings, their sets when read, and the row index built over them. */
const rowsWeight = (r: Rollup) => r.sets.length + r.n * 64 + r.values.length * 40;

/** `fn` over `items`, at most `width` at a time, in order. */
async function inBatches<T, R>(items: T[], width: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return out;
}

function maxOf(a: Uint32Array): number {
  let m = -1;
  for (let i = 0; i < a.length; i++) if (a[i] > m) m = a[i];
  return m;
}

/** The bytes a kept attribution answer holds (to weigh it in the cache). */
const answerBytes = (a: AttributionResult) =>
  256 + Object.values(a.by).reduce((n, rows) => n + rows.length * 120, 0);
