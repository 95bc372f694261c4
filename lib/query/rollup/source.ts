/**
 * Where rollup answers read from: the pieces of the parts' rollups a question asks about (pieces.ts: a
 * field's rows, their visitor sets, the session facts, their lists), each read from KV and decoded once and
 * cached by part id and piece (parts are immutable), and a rollup of the raw tail built per question, its
 * visitors numbered as the parts' are (ids not numbered yet get numbers past all given ones, for this
 * question only).
 */
import type { Deps } from "../../deps.ts";
import { Lru } from "../../lru.ts";
import { buildEventBatch } from "../../parts/event_batch.ts";
import { turns } from "../../turns.ts";
import { visitorCount, visitorNumbersForReading } from "../../parts/visitor_numbers.ts";
import type { Source } from "../columns/source.ts";
import type { AggregateOptions, AggregateResult, Scope } from "../types.ts";
import {
  answerFromRollups,
  hoursInside,
  type PiecesAsked,
  piecesAsked,
  rollupBlocker,
  SESSION_METRICS,
  type SessionAnswer,
} from "./answer.ts";
import { batchVisitors, buildRollup, type Rollup, rowVisitors } from "./build.ts";
import { emptyPiece, type FactLists, type RollupParts, wholeParts } from "./pieces.ts";
import type { SessionFacts } from "./session_facts.ts";
import { joinSessions, overlapUnits, sessionsPerBucket, sessionTotals } from "./sessions.ts";
import {
  decodeFacts,
  decodeLists,
  decodeRows,
  decodeSets,
  FACTS_SEC,
  LISTS_SEC,
  readEntry,
  readSection,
  type RollupEntry,
  rowsSec,
  setsSec,
} from "./store.ts";

/** Decoded rollups kept: a quarter of the one budget (PART_CACHE_MB); the engine gives parts the rest. */
export const rollupCacheBytes = (budget: number): number => Math.floor(budget / 4);

/** A piece as cached: a field's rows (their sets filled in once read), the facts, their lists, an entry. */
type Piece = Rollup | SessionFacts | FactLists | RollupEntry;

/** A part or piece gone while reading (a merge): the question re-plans (the scan answers it). */
class Gone extends Error {}

export class RollupSource {
  private cache: Lru<Piece>;
  constructor(
    private deps: Deps,
    private source: Source,
    bytes = rollupCacheBytes(deps.config.partCacheBytes),
  ) {
    this.cache = new Lru(bytes);
  }

  /** Questions asked, and the last question that read each kept piece. */
  private asked = 0;
  private lastAsked = new Map<string, number>();
  /** KV bytes read for pieces (the bench reports a cold question's). */
  bytesRead = 0;

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

  /** A piece from the cache, or read and decoded (null: the part's rollup has no such section). */
  private async piece<P extends Piece>(
    key: string,
    read: () => Promise<Uint8Array | null | undefined>,
    decode: (bytes: Uint8Array) => P,
    weigh: (p: P) => number,
  ): Promise<P | null> {
    const hit = this.cache.get(key) as P | undefined;
    this.lastAsked.set(key, this.asked);
    if (hit) return hit;
    const bytes = await read();
    if (bytes === undefined) throw new Gone();
    if (bytes === null) return null;
    this.bytesRead += bytes.length;
    const p = decode(bytes);
    this.keep(key, p, weigh(p));
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

  /** A part's rollup with the pieces asked loaded, or null when it has none (yet). */
  private async part(id: string, asked: PiecesAsked): Promise<RollupParts | null> {
    const { kv } = this.deps;
    const e = await this.entry(id);
    if (!e) return null;
    const fields = new Map<number, Rollup>();
    for (const f of asked.fields) {
      const rows = await this.piece(
        `${id}/r${f}`,
        () => readSection(kv, id, e, rowsSec(f)),
        (b) => decodeRows(b, e.head, f),
        rowsWeight,
      );
      const r = rows ?? emptyPiece(e.head, f);
      if (asked.sets && rows && !rows.sets.length && e.secs[setsSec(f)]) {
        // the sets of a field's rows are read once and kept with them
        const bytes = await readSection(kv, id, e, setsSec(f));
        if (!bytes) throw new Gone();
        this.bytesRead += bytes.length;
        rows.sets = decodeSets(bytes);
        if (this.cache.get(`${id}/r${f}`) === rows) this.cache.set(`${id}/r${f}`, rows, rowsWeight(rows));
      }
      fields.set(f, r);
    }
    const facts = asked.facts
      ? await this.piece(`${id}/facts`, () => readSection(kv, id, e, FACTS_SEC), decodeFacts, (f) => f.n * 72)
      : null;
    return {
      ...e.head,
      field: (f) => fields.get(f) ?? emptyPiece(e.head, f),
      facts,
      lists: null,
    };
  }

  /** The device-time lists of a part's facts (only for sessions whose segments overlap). */
  private lists(id: string, e: RollupEntry): Promise<FactLists | null> {
    return this.piece(
      `${id}/lists`,
      () => readSection(this.deps.kv, id, e, LISTS_SEC),
      decodeLists,
      (l) => l.listDt.length * 16 + l.listAt.length * 4,
    );
  }

  /** Each question's answer from rollups, or null for those the scan must answer. */
  async answer(s: Scope, questions: AggregateOptions[]): Promise<(AggregateResult | null)[]> {
    const served = questions.map((o) => rollupBlocker(s, o) === null);
    const none = questions.map(() => null);
    if (!served.some(Boolean)) return none;
    const { kv } = this.deps;
    const { parts, tail } = await this.source.partsAndTail(s.org, s.env, s.from, s.to);
    this.asked++;
    // what the questions read, together
    const asked: PiecesAsked = { fields: [], sets: false, facts: false };
    questions.forEach((o, i) => {
      if (!served[i]) return;
      const p = piecesAsked(s, o);
      for (const f of p.fields) if (!asked.fields.includes(f)) asked.fields.push(f);
      asked.sets ||= p.sets;
      asked.facts ||= p.facts;
    });
    let loaded: RollupParts[];
    try {
      const got = await inBatches(parts, 4, (p) => this.part(p.id, asked));
      if (got.some((p) => p === null)) return none; // a part without a rollup yet (the backfill adds it)
      loaded = got as RollupParts[];
    } catch (e) {
      if (e instanceof Gone) return none;
      throw e;
    }
    let space: number;
    if (tail.length) {
      const b = await buildEventBatch(tail, turns()); // a large tail yields to the event loop while built
      const { numbers, size } = await visitorNumbersForReading(kv, s.org, s.env, batchVisitors(b));
      const rows = rowVisitors(b, numbers);
      loaded.push(wholeParts(buildRollup(b, (i) => rows[i])));
      space = size;
    } else space = await visitorCount(kv, s.org, s.env);
    const inside = hoursInside(loaded, s);
    if (!inside) return none;
    let sessions: SessionAnswer | null = null;
    if (asked.facts) {
      const units = loaded.map((p) => ({ facts: p.facts!, tps: p.tps, traffics: p.traffics }));
      const join = joinSessions(units, inside, s.touchpoint, new Set(s.traffic ?? ["human"]), space);
      const lists: (FactLists | null)[] = loaded.map((p) => p.lists);
      try {
        for (const ri of overlapUnits(join)) {
          if (lists[ri]) continue;
          const e = await this.entry(parts[ri].id);
          if (!e) throw new Gone();
          lists[ri] = await this.lists(parts[ri].id, e);
        }
      } catch (e) {
        if (e instanceof Gone) return none;
        throw e;
      }
      const totals = sessionTotals(join, lists);
      sessions = {
        totals,
        perBucket: (bucketOf: (hour: number) => number) => sessionsPerBucket(join, units, bucketOf),
      };
    }
    return questions.map((o, i) =>
      served[i] ? answerFromRollups(loaded, inside, s, o, space, SESSION_ASKED(o) ? sessions : null) : null
    );
  }
}

const SESSION_ASKED = (o: AggregateOptions) => o.metrics.some((m) => SESSION_METRICS.has(m));

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
