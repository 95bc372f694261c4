/**
 * Where answers come from: published parts (decoded once, cached) plus the raw tail not compacted yet.
 * The part index is read before and after the raw tail; if a compaction published or merged in
 * between, the read is repeated, so a row is never missed nor counted twice. Raw keys of a part that is
 * still `pending` (published, raw keys not yet deleted) are skipped.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { holdBytes, WorkingMemory } from "../../working_memory.ts";
import type { Deps } from "../../deps.ts";
import { Budget } from "./budget.ts";
import { COLD_COLUMNS, columnRange, decodeBatch } from "../../parts/codec.ts";
import type { Batch, NumCol, StrCol } from "../../parts/columns.ts";
import { buildEventBatch } from "../../parts/event_batch.ts";
import { release } from "../../parts/packed_arrays.ts";
import { buildHitBatch } from "../../parts/hit_batch.ts";
import {
  indexStamp,
  listParts,
  partColumns,
  PartGoneError,
  type PartKind,
  type PartMeta,
  readRange,
} from "../../parts/store.ts";
import type { EnvName, StoredEvent, Verification } from "../../store/records.ts";
import { verificationOutcomes } from "../../parts/build.ts";
import { type EvBatch, heldBytes, prepareEvents } from "./batch.ts";
import { Interner } from "./intern.ts";
import type { RawWhere } from "../../store/readable.ts";
import { type RawTail, readEventTail, readHitTail, sameRecords } from "../../store/raw_tail.ts";
import { type Turn, turns } from "../../turns.ts";
import { remember } from "../../lru.ts";
import { newestOf } from "../../parts/arrivals.ts";

export interface HitBatch {
  b: Batch;
  /** effective verification per row where it differs from the part's column (later outcomes) */
  overrides: Map<number, Verification>;
}

/** What a question over a time range reads: the parts' batches, then the raw tail's (when any) last. */
export interface EventLoad {
  batches: EvBatch[];
  /** batches that are parts (the rest, at most one, is the raw tail) */
  parts: number;
  rawRows: number;
  /** the parts read (immutable: a merge or a new part has a new id) and the range of their rows' times */
  partIds: string[];
  partSpan: { min: number; max: number } | null;
  /** the raw tail's events, in the order read */
  tailIds: string[];
}

/** What a stream read: the parts covering its range (all of them, also those `pick` left out), the tail. */
export interface StreamRead {
  /** parts visited */
  parts: number;
  rawRows: number;
  partIds: string[];
  partSpan: { min: number; max: number } | null;
  tailIds: string[];
}

const spanOf = (parts: readonly PartMeta[]) =>
  parts.length
    ? { min: Math.min(...parts.map((p) => p.min_t)), max: Math.max(...parts.map((p) => p.max_t)) }
    : null;

/** The ids of a kept part of the tail (frozen: its ids are made once), in its order. */
const tailIdsOf = new WeakMap<readonly StoredEvent[], string[]>();
function idsOf(events: StoredEvent[]): string[] {
  if (!Object.isFrozen(events)) return events.map((e) => e.id);
  let ids = tailIdsOf.get(events);
  if (!ids) tailIdsOf.set(events, ids = events.map((e) => e.id));
  return ids;
}

/** The question a load runs in, when its caller named one (Source.question). */
const questions = new AsyncLocalStorage<{ source: Source; asked: number }>();

/**
 * Decoded bytes the scan holds per row (measured: 168 MB for 990k rows at 1M events, 1.6 GB for the 10M site's
 * 10M rows): what a period's parts would take decoded, and what a streamed part is counted at while read ahead.
 */
const DECODED_BYTES_PER_ROW = 170;

/** Verification outcomes looked up between two turns of the event loop. */
const OUTCOME_SLICE = 2_000;

/** Reads of one question over a changing part list before it gives up (~2.6 s of pauses in all). */
const READ_ATTEMPTS = 8;

/**
 * A raw tail as last read and what was built from it, kept while later reads find the same records: a tool
 * asks several questions, and a large tail took seconds to build for each (issue 32: 10k raw hits, 1.7 s).
 */
interface KeptTail<R> {
  /** its records frozen: a batch built from them is built once (parts/event_batch.ts) */
  tail: RawTail<R>;
  /** the parts of the tail questions asked for (frozen, see `inRange`) */
  ranges?: R[][];
  /** the records' receive times: least and greatest */
  span?: { min: number; max: number };
  /** the events' batch, its visitors numbered by the interner of that generation */
  ev?: { generation: number; batch: Promise<EvBatch> };
  hit?: Promise<Batch>;
  /** the hit batch's late outcomes as last joined (see `lateOutcomes`): one for a question's loads */
  late?: Promise<LateJoin>;
}

/**
 * A batch's rows that were pending when built, and the outcomes found for them so far. Outcomes are final,
 * so a later join only looks up the rows still without one (the raw tail's batch is kept across questions:
 * 36,000 pending hits were scanned and looked up again by each of a question's seven loads).
 */
interface LateJoin {
  found: Map<number, Verification>;
  /** pending rows without an outcome yet */
  open: number[];
  /** a join under way: the next waits for it, then looks up what it left open */
  running?: Promise<void>;
}

/**
 * Memory a kept raw tail is counted at per record: the decoded record and its share of the built batch
 * (roughly: 40,000 raw events held ~80 MB, as many hits ~45 MB). Kept tails live in the one budget as
 * decoded parts do (columns/budget.ts), touched again when a question is done with them: among what
 * questions derive they were pushed out by what the very question over them derived (two 40,000-record
 * tails weigh about half the budget), and each question read and built them again.
 */
const TAIL_ROW_BYTES = 1_500;

/**
 * The kept tail batch as one question's own: the same columns, but its own scope masks (scope keys are cut to
 * the parts' time range, which a tail's rows lie outside, so one question's mask is not another's).
 */
const ownMasks = (b: EvBatch): EvBatch =>
  Object.defineProperties({}, {
    ...Object.getOwnPropertyDescriptors(b),
    scopeMasks: { value: new Map(), writable: true, enumerable: true, configurable: true },
  }) as EvBatch;

/** Where a consistent read stands: numbers (`ask`) of its load's question and of its listing of the parts. */
interface ReadPoint {
  asked: number;
  listed: number;
  listing: string;
}

/**
 * A kind's part index as listed while its stamp (`indexStamp`) held: its parts (frozen: every reader of the
 * kept listing gets this one array) and `listing`, its entries' versionstamps, for raw tail reads to tell
 * whether they saw the same index.
 */
interface Indexed {
  stamp: string;
  parts: readonly PartMeta[];
  listing: string;
}

export class Source {
  /** decoded parts, kept raw tails and what questions derived and keep (`keep`): one budget */
  private cache: Budget;
  private interners = new Map<string, Interner>();
  private outcomes = new Map<string, Verification>(); // final outcomes seen for pending rows
  private loading = new Map<string, Promise<EvBatch>>();
  // deno-lint-ignore no-explicit-any
  private tailReads = new Map<string, { started: number; listing: string; done: Promise<KeptTail<any>> }>();
  private asked = 0;
  /**
   * The last listing of each environment's and kind's part index, kept while its stamp holds: a read looks
   * at the stamp (one small get) and lists the parts only when the index changed (a warm overview at 10M
   * events listed its 214 parts ~14 times: ~20 of its ~60 ms).
   */
  private indexes = new Map<string, Indexed>();
  /**
   * Looks at the index under way, by environment and kind, with how many had started before each: a
   * question may share one (`listing`) instead of looking again (questions asked at once each looked twice).
   */
  private listingsUnderWay = new Map<string, { nth: number; indexed: Promise<Indexed> }>();
  private listingsStarted = 0;
  /** time columns of the last parts `windowRows` looked into (a window's ends move little between asks) */
  private timeColumns = new Map<string, Float64Array>();
  /** bytes of parts streams are reading ahead and not keeping (counted in the budget: see `stream`) */
  private streaming = 0;
  constructor(private deps: Deps) {
    // the visitor and session numbering grows with every visitor read (at 10M events 111 MB): counted in the
    // budget whole, parts and kept data make room for it. (It was counted past an eighth of the budget only
    // while parts were weighed as if every column were decoded: 184 MB counted for 114 MB held at 1M events.
    // Parts are weighed by what they hold now: batch.ts heldBytes.)
    this.cache = new Budget(
      deps.config.partCacheBytes,
      () => this.numberingBytes() + this.streaming + this.working.total,
    );
    // what questions hold while they answer is counted in the budget too: kept parts and derived data make
    // room for it (lib/working_memory.ts); one question alone may hold the scan's share, at least 8 MB
    this.working = new WorkingMemory(
      deps.config.questionMemoryBytes || Math.max(8 * 1048576, deps.config.partCacheBytes),
      () => this.cache.fit(),
      deps.config.questionMemoryBytes ? "QUESTION_MEMORY_MB" : "PART_CACHE_MB",
    );
  }

  /** What the questions answering now hold beyond the caches (lib/working_memory.ts). */
  readonly working: WorkingMemory;

  /** Memory the environments' visitor and session numberings hold. */
  numberingBytes(): number {
    let n = 0;
    for (const i of this.interners.values()) n += i.bytes;
    return n;
  }

  /** The bytes of decoded parts this source keeps at most. */
  get partCapacity(): number {
    return this.cache.capacity;
  }

  /**
   * Whether `rows` rows of parts, decoded, leave room in the budget for a scan to hold them: at most half of
   * it, the other half for what questions keep (engine.ts siteFits, scan/contexts.ts tooLarge).
   */
  scanHolds(rows: number): boolean {
    return rows * DECODED_BYTES_PER_ROW <= this.partCapacity / 2;
  }

  /** Bytes of decoded parts, kept raw tails and kept derived data held. */
  get cacheBytes() {
    return this.cache.listed;
  }

  /** Bytes the budget counts: `cacheBytes` and the visitor and session numbering. */
  get heldBytes() {
    return this.cache.used;
  }

  /**
   * Keeps what a question derived for later ones (a period's visitor order and session facts, a cohort's
   * members) in the same budget as the decoded parts, weighed in bytes: one cache, least recently used out.
   * Something heavier than the whole budget is not kept. Keeping under a key again re-weighs it.
   */
  keep(key: string, value: unknown, bytes: number): void {
    this.cache.setKept(key, value, bytes);
  }

  /** What `keep` kept under a key, while the budget still holds it. */
  kept<T>(key: string): T | undefined {
    return this.cache.kept(key) as T | undefined;
  }

  interner(org: string, env: EnvName): Interner {
    const k = `${org}|${env}`;
    let i = this.interners.get(k);
    if (!i || i.visitorCount > 5_000_000) {
      // a fresh numbering invalidates prepared batches of this environment: their cache keys carry it
      const fresh = new Interner();
      fresh.generation = (i?.generation ?? 0) + 1;
      this.interners.set(k, i = fresh);
    }
    return i;
  }

  /**
   * Runs `read` over the listed parts until the list is the same after it as before. A compaction that
   * keeps publishing (a large backlog) gets growing pauses to finish; if it still changes the list every
   * time, the read fails rather than answer from a moment rows may be missing from. Not private: tested.
   */
  async consistent<T>(
    org: string,
    env: EnvName,
    kind: PartKind,
    read: (parts: readonly PartMeta[], at: ReadPoint) => Promise<T>,
    asked?: number,
  ): Promise<T> {
    for (let attempt = 1;; attempt++) {
      // any listing under way will do before the read: the read starts once it has answered
      const before = await this.listing(org, env, kind, 0);
      // a raw tail read this attempt uses must have started after `before` was listed, or after a listing
      // equal to it: one started earlier (by another load) may hold the raw rows of a part `before` already
      // lists as done, counted twice then
      const listed = this.ask();
      const at = { asked: asked ?? listed, listed, listing: before.listing };
      try {
        const out = await read(before.parts, at);
        // after it, only a look started since the read ended tells whether the parts changed during it
        const after = await this.listing(org, env, kind, this.listingsStarted);
        if (after.listing === before.listing) return out;
      } catch (err) {
        if (!(err instanceof PartGoneError)) throw err;
      }
      if (attempt >= READ_ATTEMPTS) {
        throw new Error(`parts of ${kind} changed during each of ${READ_ATTEMPTS} reads; try again`);
      }
      await new Promise((r) => setTimeout(r, Math.min(1000, 25 * 2 ** attempt)));
    }
  }

  /**
   * The parts of a kind as they are now: a look under way that was the `from`-th or a later one started is
   * shared, else a new one is started.
   */
  private listing(org: string, env: EnvName, kind: PartKind, from: number): Promise<Indexed> {
    const key = `${org}|${env}|${kind}`;
    const going = this.listingsUnderWay.get(key);
    if (going && going.nth >= from) return going.indexed;
    const mine = { nth: this.listingsStarted++, indexed: this.indexNow(org, env, kind, key) };
    this.listingsUnderWay.set(key, mine);
    const done = () => {
      if (this.listingsUnderWay.get(key) === mine) this.listingsUnderWay.delete(key);
    };
    mine.indexed.then(done, done);
    return mine.indexed;
  }

  /**
   * The index as it is now: the kept listing while the stamp read now is the one it was listed under, else a
   * new listing (made after the stamp was read, so if the stamp still holds later, nothing changed since).
   */
  private async indexNow(org: string, env: EnvName, kind: PartKind, key: string): Promise<Indexed> {
    const stamp = await indexStamp(this.deps.kv, org, env, kind);
    const kept = this.indexes.get(key);
    if (kept?.stamp === stamp) return kept;
    const listed = await listParts(this.deps.kv, org, env, kind);
    const fresh = {
      stamp,
      parts: Object.freeze(listed.map((p) => p.meta)),
      listing: listed.map((p) => p.versionstamp).join(),
    };
    // kept unless a look that began later kept its own meanwhile (this stamp may be the older); the newest 64
    // environments and kinds (an instance serving many organizations keeps no listing of each forever)
    if (this.indexes.get(key) === kept) remember(this.indexes, key, fresh, 64);
    return fresh;
  }

  /**
   * The columns passing `only` of a part, reading only the chunks that hold them. `keep`: the batch goes into
   * the cache: its unread columns hold copies of their own stored bytes and the range read is let go at once
   * (codec.ts `decodeBatch`).
   */
  private async partBatch(p: PartMeta, only: (name: string) => boolean, keep = false) {
    const columns = await partColumns(this.deps.kv, p);
    const { from, to } = columnRange(columns, only);
    const { base, bytes } = await readRange(this.deps.kv, p, from, to);
    // decoded size: numbers as Float64, codes as stored, dictionaries ~3x their bytes once strings
    const decodedBytes = columns.reduce((sum, c) => {
      if (!only(c.name)) return sum;
      if (c.kind === "num") return sum + 8 * p.rows;
      return sum + c.width * p.rows + 3 * Math.max(0, c.bytes - c.width * p.rows);
    }, 0);
    const batch = await decodeBatch({ n: p.rows, columns }, bytes, only, base, keep);
    if (keep) release(bytes);
    return { batch, decodedBytes };
  }

  private async pendingIds(parts: readonly PartMeta[]): Promise<Set<string>> {
    const ids = new Set<string>();
    for (const p of parts.filter((x) => x.pending)) {
      const { batch } = await this.partBatch(p, (c) => c === "id");
      for (const id of (batch.cols.id as StrCol).dict) ids.add(id);
    }
    return ids;
  }

  private where(org: string, env: EnvName): RawWhere {
    return { org, env, log: this.deps.log, now: this.deps.clock.now() };
  }

  /**
   * The raw tail of an environment, read whole: the one place it is read. A load at `at` (taken by
   * `consistent` after it listed the parts) may use a read that started after it, or one started after an
   * equal listing: it holds every write done before, and no raw row of a part published before that listing
   * (the load's own check that the list did not change covers the time between). When a new read finds the records of
   * the kept one, the kept one comes back, with what was built from it.
   */
  private rawTail<R extends { id: string }>(
    kind: PartKind,
    org: string,
    env: EnvName,
    at: ReadPoint,
    read: (kv: Deno.Kv, w: RawWhere, known?: RawTail<R>) => Promise<RawTail<R>>,
  ): Promise<KeptTail<R>> {
    const k = `tail|${kind}|${org}|${env}`;
    const reading = this.tailReads.get(k);
    // the loads of one question, started together, list the same parts: they share one read
    const fresh = reading && reading.started > at.asked; // holds every write done before the question
    if (fresh && (reading.started > at.listed || reading.listing === at.listing)) return reading.done;
    const started = this.ask();
    const done = (async () => {
      // a record that cannot be read is moved aside (lib/store/readable.ts): the answer leaves it out
      // the records of the kept read that are unchanged are not decoded again
      const known = (this.cache.part(k) as KeptTail<R> | undefined)?.tail;
      const tail = await read(this.deps.kv, this.where(org, env), known);
      const kept = this.cache.part(k) as KeptTail<R> | undefined;
      if (kept && sameRecords(kept.tail, tail)) return kept;
      Object.freeze(tail.records);
      const fresh: KeptTail<R> = { tail };
      this.cache.setPart(k, fresh, tail.records.length * TAIL_ROW_BYTES);
      return fresh;
    })();
    this.tailReads.set(k, { started, listing: at.listing, done });
    done.catch(() => this.tailReads.get(k)?.done === done && this.tailReads.delete(k));
    return done;
  }

  /** Marks a kept tail as just used (the budget lets go of what was used longest ago first). */
  private touchTail(kind: PartKind, org: string, env: EnvName): void {
    this.cache.part(`tail|${kind}|${org}|${env}`);
  }

  /**
   * Runs `asking` as one question: the loads it makes count as asked when it began, so they share a raw
   * tail read started after that (a tool's loads come in waves: each wave listed the whole tail again, 40,000
   * records two or three times per answer). The answer still holds every write done before the question.
   */
  question<T>(asking: () => Promise<T>): Promise<T> {
    return questions.run({ source: this, asked: this.ask() }, asking);
  }

  /** The number of the question a load belongs to: the one it runs in (`question`), else a new one. */
  private questionNumber(): number {
    const q = questions.getStore();
    return q?.source === this ? q.asked : this.ask();
  }

  /** Orders questions and raw reads: a read started after a question began sees what was written before. */
  private ask(): number {
    return ++this.asked;
  }

  /** The raw tail's events without those of a part being published (`skip`: its raw keys go next). */
  private async eventTail(org: string, env: EnvName, at: ReadPoint, parts: readonly PartMeta[]) {
    const kept = await this.rawTail("ev", org, env, at, readEventTail);
    const skip = await this.pendingIds(parts);
    const events = kept.tail.records;
    return { kept, skip, events: skip.size ? events.filter((e) => !skip.has(e.id)) : events };
  }

  /**
   * The tail's events received in [from, to), frozen, and the same array as an earlier question's when it
   * holds the same events (the whole tail when all are in it): what is built from it is built once.
   */
  private inRange(kept: KeptTail<StoredEvent>, events: StoredEvent[], from: number, to: number) {
    if (Object.isFrozen(events)) {
      // the kept records' receive times, spanned once: a range holding them all needs no pass over them
      const span = kept.span ??= events.reduce(
        (s, e) => ({ min: Math.min(s.min, e.received_at), max: Math.max(s.max, e.received_at) }),
        { min: Infinity, max: -Infinity },
      );
      if (span.min >= from && span.max < to) return events;
    }
    const asked = events.filter((e) => e.received_at >= from && e.received_at < to);
    if (asked.length === events.length && Object.isFrozen(events)) return events;
    const ranges = kept.ranges ??= [];
    const same = ranges.find((r) => r.length === asked.length && r.every((e, i) => e === asked[i]));
    if (same) return same;
    if (ranges.length >= 4) ranges.shift();
    ranges.push(Object.freeze(asked) as StoredEvent[]);
    return asked;
  }

  /**
   * The tail's batch, built once per read and visitor numbering, giving the event loop turns meanwhile (a
   * large tail takes seconds); with `skip`, built for this question only.
   */
  private async eventTailBatch(
    kept: KeptTail<StoredEvent>,
    events: StoredEvent[],
    skip: Set<string>,
    interner: Interner,
  ): Promise<EvBatch> {
    // the kept records are frozen: their batch is the one rollups and property rollups build (event_batch.ts)
    const build = async () =>
      prepareEvents(await buildEventBatch(Object.isFrozen(events) ? events : [...events], turns()), interner);
    if (skip.size) return await build();
    if (kept.ev?.generation !== interner.generation) {
      const batch = build();
      kept.ev = { generation: interner.generation, batch };
      batch.catch(() => kept.ev?.batch === batch && delete kept.ev);
    }
    return ownMasks(await kept.ev.batch);
  }

  /**
   * The parts covering [from, to) and the raw tail's events received in it, read as consistently as `events`
   * reads them, without reading any part's columns (rollups answer from their own keys).
   */
  partsAndTail(
    org: string,
    env: EnvName,
    from: number,
    to: number,
  ): Promise<{ parts: PartMeta[]; tail: StoredEvent[]; all: StoredEvent[] }> {
    const question = this.questionNumber();
    return this.consistent(org, env, "ev", async (parts, at) => {
      const { kept, events } = await this.eventTail(org, env, at, parts);
      return {
        parts: parts.filter((p) => p.min_t < to && p.max_t >= from),
        tail: this.inRange(kept, events, from, to),
        // the whole tail: the same array while its records are unchanged, so what is built from it can be kept
        all: events,
      };
    }, question).finally(() => this.touchTail("ev", org, env));
  }

  /**
   * Event batches covering [from, to) (they may hold rows outside it; callers mask by time). The raw tail's
   * batch, when it has events in [from, to), is last and holds the whole tail; `rawRows` counts those events.
   */
  events(org: string, env: EnvName, from: number, to: number): Promise<EventLoad> {
    const interner = this.interner(org, env);
    const question = this.questionNumber();
    let held = 0; // (a read done again over a changed part list counts only what it adds)
    return this.consistent(org, env, "ev", async (parts, at) => {
      const { kept, skip, events } = await this.eventTail(org, env, at, parts);
      const used = parts.filter((p) => p.min_t < to && p.max_t >= from);
      // what of the period's parts, decoded, the budget cannot keep is this question's own while it answers:
      // counted before any is read, so a period past the limit is refused instead of decoded (a month of 10M
      // events scanned held ~1.6 GB)
      let rows = 0;
      for (const p of used) rows += p.rows;
      const beyond = rows * DECODED_BYTES_PER_ROW - this.cache.capacity;
      if (beyond > held) {
        holdBytes(beyond - held);
        held = beyond;
      }
      const batches = await Promise.all(used.map((p) => this.eventPart(org, env, p, interner)));
      // the tail's events of the question (those the cohort cache compares); the batch holds the whole tail
      const asked = this.inRange(kept, events, from, to);
      if (asked.length) batches.push(await this.eventTailBatch(kept, events, skip, interner));
      return {
        batches,
        parts: used.length,
        rawRows: asked.length,
        partIds: used.map((p) => p.id),
        partSpan: spanOf(used),
        tailIds: idsOf(asked),
      };
    }, question).finally(() => this.touchTail("ev", org, env));
  }

  /** Rows of the parts covering [from, to) by the part index alone (no column read): what a scan would hold. */
  async periodRows(org: string, env: EnvName, from: number, to: number): Promise<number> {
    let rows = 0;
    for (const meta of await this.indexedParts(org, env)) {
      if (meta.min_t < to && meta.max_t >= from) rows += meta.rows;
    }
    return rows;
  }

  /** The newest receive time folded into a kind's parts (null: none), from the kept index listing. */
  async newestArrival(org: string, env: EnvName, kind: PartKind): Promise<number | null> {
    return newestOf((await this.listing(org, env, kind, 0)).parts);
  }

  /**
   * The event part index for sizing (which path a question takes, never what it reads: each read looks at
   * the index itself, consistently): the kept listing while the index's stamp holds.
   */
  async indexedParts(org: string, env: EnvName): Promise<readonly PartMeta[]> {
    return (await this.listing(org, env, "ev", 0)).parts;
  }

  /**
   * The batches `events` would give, one at a time: each part covering [from, to) that `pick` takes (newest
   * first with `newestFirst`), then the raw tail's batch when it has events in [from, to). When the parts
   * visited would not all fit the cache, none is kept: each is let go once visited (the next one is read
   * meanwhile), so a question holds one or two parts, not its period. Read as consistently as `events`: when the part list changed meanwhile, `begin` is
   * called again and the batches are visited again, so a visitor starts its state in `begin`.
   */
  stream(
    org: string,
    env: EnvName,
    from: number,
    to: number,
    o: {
      newestFirst?: boolean;
      pick?: (p: PartMeta) => boolean;
      /**
       * each part read for this stream alone (never from or into the cache, never shared with another load):
       * the visitor owns the batch and may free its buffers once done with it (cohort/members.ts)
       */
      own?: boolean;
      /**
       * with `own`: makes each part's batch from its columns instead of numbering every row (a cohort's
       * question cuts a part to its members' rows first: cohort/members.ts)
       */
      prepare?: (b: Batch, interner: Interner) => EvBatch;
      begin: () => void;
      /** `part`: the part a batch is of (none for the raw tail) */
      visit: (e: EvBatch, tail: boolean, part?: PartMeta) => void | Promise<void>;
    },
  ): Promise<StreamRead> {
    const interner = this.interner(org, env);
    const question = this.questionNumber();
    return this.consistent(org, env, "ev", async (parts, at) => {
      o.begin();
      const { kept, skip, events } = await this.eventTail(org, env, at, parts);
      const used = parts.filter((p) => p.min_t < to && p.max_t >= from && (!o.pick || o.pick(p)));
      if (o.newestFirst) used.sort((a, b) => b.max_t - a.max_t || b.min_t - a.min_t);
      // parts that would not all fit the budget are not kept: read in the same order by every question,
      // each would push out the one read first and none be found again (at 10M events the cache held 190
      // MB of parts no later question found), while what questions keep was pushed out with them
      let rows = 0;
      for (const p of used) rows += p.rows;
      const keep = !o.own && rows * DECODED_BYTES_PER_ROW + this.numberingBytes() <= this.cache.capacity;
      // parts read ahead while one is visited (KV reads and inflating overlap the visit): as many as fit a
      // quarter of the budget by their rows, at least one. Parts not kept are counted in the budget while
      // read and visited (kept parts and derived data make room), so a stream stays within it too
      const ahead: Promise<EvBatch>[] = [];
      let next = 0, aheadRows = 0, counted = 0;
      const count = (bytes: number) => {
        if (keep) return;
        counted += bytes;
        this.streaming += bytes;
        if (bytes > 0) this.cache.fit();
      };
      const fill = () => {
        while (
          next < used.length &&
          (ahead.length === 0 ||
            (aheadRows + used[next].rows) * DECODED_BYTES_PER_ROW <= this.cache.capacity / 4)
        ) {
          const p = used[next++];
          aheadRows += p.rows;
          count(p.rows * DECODED_BYTES_PER_ROW);
          const loading = o.own
            ? this.ownPart(p, interner, o.prepare)
            : this.eventPart(org, env, p, interner, keep);
          loading.catch(() => {}); // a failed read is thrown where it is awaited
          ahead.push(loading);
        }
      };
      try {
        for (let k = 0; k < used.length; k++) {
          fill();
          const batch = await ahead.shift()!;
          aheadRows -= used[k].rows;
          fill();
          await o.visit(batch, false, used[k]);
          count(-used[k].rows * DECODED_BYTES_PER_ROW);
        }
      } finally {
        this.streaming -= counted;
      }
      const asked = this.inRange(kept, events, from, to);
      if (asked.length) await o.visit(await this.eventTailBatch(kept, events, skip, interner), true);
      const covering = parts.filter((p) => p.min_t < to && p.max_t >= from);
      return {
        parts: used.length,
        rawRows: asked.length,
        partIds: covering.map((p) => p.id),
        partSpan: spanOf(covering),
        tailIds: idsOf(asked),
      };
    }, question).finally(() => this.touchTail("ev", org, env));
  }

  /** A part's batch read for one stream alone (`stream` `own`): not from the cache, not kept, not shared. */
  private async ownPart(
    p: PartMeta,
    interner: Interner,
    prepare?: (b: Batch, interner: Interner) => EvBatch,
  ): Promise<EvBatch> {
    const { batch, decodedBytes } = await this.partBatch(p, (c) => c !== "id" && !COLD_COLUMNS.has(c));
    return prepare ? prepare(batch, interner) : prepareEvents(batch, interner, decodedBytes);
  }

  /**
   * The time range [min, max] of the rows of the parts covering [from, to) that lie inside it (as
   * scan/ctx.ts `rowsSpan` over their batches), and those parts' ids, without decoding the parts: a part
   * wholly inside by its index entry, one an end cuts by its time column alone (the last few kept). For
   * keys of what depends only on those rows (cohort/cache.ts), when the parts are not held decoded.
   */
  windowRows(
    org: string,
    env: EnvName,
    from: number,
    to: number,
  ): Promise<{ partIds: string[]; min: number; max: number }> {
    // read consistently: a part merged away meanwhile is looked at again in the new listing
    return this.consistent(org, env, "ev", async (listed) => {
      const parts = listed.filter((p) => p.min_t < to && p.max_t >= from);
      let min = Infinity, max = -Infinity;
      for (const p of parts) {
        if (p.min_t >= from && p.max_t < to) {
          min = Math.min(min, p.min_t);
          max = Math.max(max, p.max_t);
          continue;
        }
        let t = this.timeColumns.get(p.id);
        if (!t) {
          const { batch } = await this.partBatch(p, (c) => c === "t");
          remember(this.timeColumns, p.id, t = (batch.cols.t as NumCol).values, 4);
        }
        for (let i = 0; i < t.length; i++) {
          const x = t[i];
          if (x < from || x >= to) continue;
          if (x < min) min = x;
          if (x > max) max = x;
        }
      }
      return { partIds: parts.map((p) => p.id), min, max };
    });
  }

  /** A part's batch: from the cache, else read (and kept in the cache unless `keep` is false). */
  private eventPart(
    org: string,
    env: EnvName,
    p: PartMeta,
    interner: Interner,
    keep = true,
  ): Promise<EvBatch> {
    const key = `ev|${org}|${env}|${p.id}|${interner.generation}`;
    const hit = this.cache.part(key) as EvBatch | undefined;
    if (hit) {
      // weighed again: the columns the last questions read are held now too
      this.cache.setPart(key, hit, heldBytes(hit));
      return Promise.resolve(hit);
    }
    // questions asked together (a tool's several aggregates) share one load of a part
    let loading = this.loading.get(key);
    if (!loading) {
      loading = this.partBatch(p, (c) => c !== "id" && !COLD_COLUMNS.has(c), keep).then(
        ({ batch, decodedBytes }) => {
          const prepared = prepareEvents(batch, interner, decodedBytes);
          if (keep) this.cache.setPart(key, prepared, heldBytes(prepared));
          return prepared;
        },
      ).finally(() => this.loading.delete(key));
      this.loading.set(key, loading);
    }
    return loading;
  }

  /**
   * Hit batches whose corrected timestamps may fall in [from, to), with verification outcomes joined (rows
   * outside it too: callers mask by time). The raw tail's batch is built once per read, with the outcomes
   * its hits arrived with; later ones are joined per question as for a part's pending rows.
   */
  hits(org: string, env: EnvName, from: number, to: number): Promise<HitBatch[]> {
    const question = this.questionNumber();
    return this.consistent(org, env, "hit", async (parts, at) => {
      const kept = await this.rawTail("hit", org, env, at, readHitTail);
      const skip = await this.pendingIds(parts);
      const out: HitBatch[] = [];
      for (const p of parts.filter((x) => x.min_t < to && x.max_t >= from)) {
        const key = `hit|${org}|${env}|${p.id}`;
        let b = this.cache.part(key) as Batch | undefined;
        if (!b) {
          // ids only for the late-outcome join of rows still pending when the part was built
          const pending = p.pending_verification > 0;
          ({ batch: b } = await this.partBatch(
            p,
            (c) => (c !== "id" || pending) && !COLD_COLUMNS.has(c),
            true,
          ));
          this.cache.setPart(key, b, p.bytes * 6);
        }
        out.push({ b, overrides: p.pending_verification ? await this.lateOutcomes(org, b) : new Map() });
      }
      const raw = kept.tail.records;
      const tail = skip.size ? raw.filter((h) => !skip.has(h.id)) : raw;
      if (tail.length) {
        const build = () => buildHitBatch([...tail], (h) => h.verification, turns());
        if (skip.size) {
          const b = await build();
          out.push({ b, overrides: await this.lateOutcomes(org, b) });
        } else {
          const building = kept.hit ??= build();
          building.catch(() => kept.hit === building && delete kept.hit);
          const b = await building;
          // the loads of a question share the join: each looks up only what the last one left open
          const joining = kept.late ??= this.pendingRows(b).then((open) => ({ found: new Map(), open }));
          out.push({ b, overrides: await this.lateOutcomes(org, b, await joining) });
        }
      }
      return out;
    }, question).finally(() => this.touchTail("hit", org, env));
  }

  /** Rows of a batch that were pending when it was built. */
  private async pendingRows(b: Batch, turn: Turn = turns()): Promise<number[]> {
    const ver = b.cols.verification as StrCol;
    const pendingCode = ver.dict.indexOf("pending") + 1;
    const rows: number[] = [];
    // a large raw tail is tens of thousands of rows: the event loop gets its turns meanwhile (issue 32)
    for (let i = 0; i < b.n; i++) {
      if (ver.codes[i] === pendingCode) rows.push(i);
      if ((i & 4095) === 4095) await turn();
    }
    return rows;
  }

  /**
   * Outcomes stored after a batch was built, for its rows that were pending then; with `join`, only for its
   * open rows, and what is found is added to it (the answer is `join.found`: callers only read it).
   */
  private async lateOutcomes(
    org: string,
    b: Batch,
    join?: LateJoin,
    turn: Turn = turns(),
  ): Promise<Map<number, Verification>> {
    const j: LateJoin = join ?? { found: new Map(), open: await this.pendingRows(b, turn) };
    while (j.running) await j.running;
    if (!j.open.length) return j.found;
    const running = j.running = this.lookUpOpen(org, b, j, turn);
    try {
      await running;
    } finally {
      if (j.running === running) delete j.running;
    }
    return j.found;
  }

  /** Looks up the outcomes of `j`'s open rows, moving those found to `j.found`. */
  private async lookUpOpen(org: string, b: Batch, j: LateJoin, turn: Turn): Promise<void> {
    const ids = b.cols.id as StrCol;
    const idOf = (i: number) => ids.dict[ids.codes[i] - 1];
    const unknown: string[] = [];
    for (let k = 0; k < j.open.length; k++) {
      const id = idOf(j.open[k]);
      if (!this.outcomes.has(id)) unknown.push(id);
      if ((k & 4095) === 4095) await turn();
    }
    // in slices: the keys of 36,000 pending hits were made and read at once (half a second without a turn)
    const fetched = new Map<string, Verification>();
    for (let at = 0; at < unknown.length; at += OUTCOME_SLICE) {
      const got = await verificationOutcomes(this.deps.kv, org, unknown.slice(at, at + OUTCOME_SLICE));
      for (const [id, o] of got) fetched.set(id, o);
      await turn();
    }
    const known = (id: string) => fetched.get(id) ?? this.outcomes.get(id);
    for (const [id, o] of fetched) {
      if (this.outcomes.size > 1_000_000) this.outcomes.clear(); // the join below reads `fetched` first
      this.outcomes.set(id, o);
    }
    const open: number[] = [];
    for (let k = 0; k < j.open.length; k++) {
      const i = j.open[k], o = known(idOf(i));
      if (o) j.found.set(i, o);
      else open.push(i);
      if ((k & 4095) === 4095) await turn();
    }
    j.open = open;
  }
}
