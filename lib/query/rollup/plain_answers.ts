/**
 * Aggregates from the rollups' rows and facts (plainBlocker null): the rows of the fields asked, visitor counts
 * from unions kept per period (unions.ts), lists kept per period (kept_lists.ts), and session figures from one
 * join of the period's sessions, kept per period (from the parts' spans where they allow, spans.ts), the raw
 * tail's sessions amended on top.
 */
import { inBatches } from "../../batches.ts";
import { Gone, periodKey, type RollupReader, rowsInScope, unitOf } from "./reader.ts";
import { release, releaseDecoded } from "../../parts/packed_arrays.ts";
import { releaseArraysOf } from "./let_go.ts";
import { hold, holdArraysOf, WorkingMemory } from "../../working_memory.ts";
import { inRanges, keysSplit, type Passes, passesFor } from "./passes.ts";
import type { VisitorRange } from "./first_touch.ts";
import type { AggregateOptions, AggregateResult, Row, Scope } from "../types.ts";
import {
  answerFromRollups,
  ENDS_METRICS,
  fieldsOf,
  hoursInside,
  keptUnionsFit,
  type KnownVisitors,
  onlyValue,
  type PiecesAsked,
  piecesAsked,
  plainBlocker,
  rowsOf,
  SESSION_METRICS,
  type SessionAnswer,
  setEnds,
} from "./answer.ts";
import { type Rollup, TOTAL } from "./build.ts";
import { type FactLists, type RollupParts, sliceFacts } from "./pieces.ts";
import { buildUnion, holds, type PeriodUnion, UnionBuilder } from "./unions.ts";
import { endsByParts } from "./plain_ends.ts";
import { bucketer } from "../../time/buckets.ts";
import { HOUR, type SessionFacts } from "./session_facts.ts";
import {
  type KeptList,
  KeptListBuild,
  keptListBytes,
  keptListField,
  keptListFits,
  type ListKinds,
  rowsFromKept,
} from "./kept_lists.ts";
import { forEachMember } from "../../parts/visitor_set.ts";
import {
  addShared,
  blockOf,
  BLOCKS,
  EDGE,
  emptyShared,
  keysInRange,
  keysWindow,
  localSessions,
  mayHoldKey,
  noKeys,
  type PartKeys,
  sharedHas,
  sharedKeys,
  sharedKeysBytes,
  type SharedSet,
  type SpanEnds,
  type Spans,
} from "./spans.ts";
import {
  addByPage,
  addEnds,
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
} from "./sessions.ts";
import {
  decodeBlockEnds,
  decodeFacts,
  decodeKeys,
  decodeLists,
  decodeShortKeys,
  decodeSpanEnds,
  decodeSpans,
  entriesSec,
  exitsSec,
  factsSec,
  hasBlockEnds,
  KEYS_SEC,
  listsSec,
  readSections,
  type RollupEntry,
  type SectionAsk,
  SHORT_KEYS_SEC,
  SPAN_ENDS_SEC,
  spansSecOf,
} from "./store.ts";

export class PlainAnswers {
  constructor(private r: RollupReader) {}

  /**
   * Kept lists (kept_lists.ts) under way, by list key: begun when a question answered a list from its rows,
   * built a slice at a time while no question is being answered (`slice`), and finished by the next question
   * asking the list after that answer, if not done by then. A question asked at the same time as the answer
   * that began one (a report's tools) does not finish it: it answers from the rows, as before.
   */
  private building = new Map<string, ListUnderWay>();

  /** Questions being answered now (a list under way is built only while there are none). */
  private answering = 0;

  private timer: ReturnType<typeof setTimeout> | null = null;

  /** When the last question was answered (performance.now()). */
  private lastAnswered = 0;

  /** Whether lists under way are built while the engine is idle (tests turn it off: an isolate frozen). */
  background = true;

  /** Kept lists built: in the background, and by a question that found one under way (tests read them). */
  readonly listBuilds = { background: 0, inAnswer: 0 };

  /**
   * The spans and keys of every part, fetched together (readSections: ten chunks a KV call) and begun before
   * the question's other pieces are decoded, so KV reads them meanwhile.
   */
  private spanSections(parts: { id: string }[], entries: RollupEntry[], ends: boolean) {
    // entries and exits from the spans' ends when every part has them and its blocks' ends (else part by part)
    const withEnds = ends && entries.every((e) => e.secs[SPAN_ENDS_SEC] !== undefined && hasBlockEnds(e));
    const asks: SectionAsk[] = [], partOf: number[] = [];
    parts.forEach((p, i) => {
      // the short keys where the part has them (the backfill adds them), else the whole ones
      const keySec = entries[i].secs[SHORT_KEYS_SEC] ? SHORT_KEYS_SEC : KEYS_SEC;
      const spanSec = spansSecOf(entries[i]);
      const secs = [...(spanSec ? [spanSec] : []), keySec, ...(withEnds ? [SPAN_ENDS_SEC] : [])];
      for (const sec of secs) {
        asks.push({ partId: p.id, entry: entries[i], sec });
        partOf.push(i);
      }
    });
    // read 32 parts at a time, each window after the one before, so spanKept decodes a window's keys while the
    // next is read (it waited for every part's keys and spans: ~10 MB at 10M events, its first ~200 ms idle)
    const windows: { from: number; read: Promise<(Uint8Array | null | undefined)[]> }[] = [];
    let before: Promise<unknown> = Promise.resolve();
    for (let from = 0; from < asks.length;) {
      let to = from;
      while (to < asks.length && partOf[to] < partOf[from] + 32) to++;
      const window = asks.slice(from, to);
      const read = before.then(() => readSections(this.r.deps.kv, window));
      // awaited by spanKept; a question that fails before then must not leave it rejected unobserved
      read.catch(() => {});
      windows.push({ from, read });
      before = read;
      from = to;
    }
    return { asks, partOf, windows, withEnds };
  }

  /**
   * The parts' session totals of a period from their spans (spans.ts): spans wholly inside are added as they
   * are; the blocks holding sessions to join (in two parts, spans cut by the period, sessions that are not
   * simple) are read, those sessions taken out of their spans as their part alone counted them and joined.
   * The keys as read and the engaged counts by visitor number are the question's while it counts
   * (lib/working_memory.ts). When they and the shared-key search's table would pass half of what it may still
   * hold (`sessionPasses`), the spans are added once (each part's keys let go once its spans are) and the
   * shared-key search and the joins are done in passes over ranges of visitor numbers (passes.ts `inRanges`):
   * each pass reads every part's keys again and keeps its range's, and a visitor's sessions all carry its
   * number, so the passes' contributions add up to one pass's. The keys are then not kept.
   */
  private async spanKept(
    parts: { id: string }[],
    entries: RollupEntry[],
    inside: Set<number>[],
    s: Scope,
    traffic: Set<string>,
    space: number,
    fetched: ReturnType<PlainAnswers["spanSections"]>,
  ): Promise<{ kept: KeptSessions; shared: SharedSet[]; ends: EntriesExits | null }> {
    const { asks, partOf, windows, withEnds } = fetched;
    const passes = sessionPasses(entries, space);
    const keys: PartKeys[] = [];
    const spanEnds: (SpanEnds | null)[] = parts.map(() => null);
    const totals: SessionTotals = {
      sessions: 0,
      withPageview: 0,
      bounces: 0,
      durationMs: 0,
      engagedVisitors: 0,
      dropped: 0,
    };
    let engaged = new Uint16Array(Math.max(1, space));
    hold([engaged]);
    const count = (v: number, by: number) => {
      if (v >= engaged.length) {
        const grown = new Uint16Array(Math.max(v + 1, engaged.length * 2));
        hold([grown]);
        grown.set(engaged);
        releaseDecoded(engaged);
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
    // entries and exits (when asked): the whole spans' per part and page code first, then per page
    const entN: Float64Array[] = parts.map(() => new Float64Array(0));
    const extN: Float64Array[] = parts.map(() => new Float64Array(0));
    /**
     * Part i's spans added: whole ones to the totals, the blocks of cut ones (and of sessions that are not
     * simple) to be joined. Done as each window of parts arrives, while KV reads the next (it waited for
     * every part, then walked them all before the shared-key search), and the spans let go at once (at 10M
     * events ~7 MB inflated were kept in the cache: fresh pages a first cold ask paid for, read by no later
     * question whose totals were kept).
     */
    const addSpans = (i: number, sp: Spans | null) => {
      const e = spanEnds[i];
      entN[i] = new Float64Array(e ? e.pages.length + 1 : 0);
      extN[i] = new Float64Array(e ? e.pages.length + 1 : 0);
      if (!sp) {
        // no spans (none written): every block is joined
        for (let b = 0; b < BLOCKS; b++) need[i].add(b);
        return;
      }
      const { tp, tr } = scoped[i], hours = entries[i].head.hours;
      const lo = hours.length ? hours[0].hour : 0, hi = hours.length ? hours[hours.length - 1].hour : 0;
      for (let g = 0; g < sp.n; g++) {
        if (!tp[sp.tp[g]] || !tr[sp.traffic[g]]) continue;
        if (whole(i, sp.h0[g], sp.h1[g])) {
          totals.sessions += sp.sessions[g];
          totals.withPageview += sp.withPageview[g];
          totals.bounces += sp.bounces[g];
          totals.durationMs += sp.durationMs[g];
          totals.dropped += sp.dropped[g];
          // (the visitor space sizes `engaged`: counted in place, `count` only when a number is past it)
          for (let x = sp.engAt[g], end = sp.engAt[g + 1]; x < end; x++) {
            const v = sp.engaged[x];
            if (v < engaged.length) engaged[v]++;
            else count(v, 1);
          }
          if (e) {
            for (let x = e.entAt[g]; x < e.entAt[g + 1]; x++) entN[i][e.entPage[x]] += e.entN[x];
            for (let x = e.extAt[g]; x < e.extAt[g + 1]; x++) extN[i][e.extPage[x]] += e.extN[x];
          }
        } else {
          for (const h of inside[i]) {
            if (h >= sp.h0[g] && h <= sp.h1[g]) {
              // a span's sessions lie in the block of its first hour or in the edge block (`block` names only
              // its first session's): both are joined, or the span's sessions in the other were counted by
              // neither the span nor the join (or taken out when shared without having been added)
              need[i].add(sp.block[g]);
              need[i].add(EDGE);
              need[i].add(blockOf(sp.h0[g], lo, hi));
              break;
            }
          }
        }
      }
      for (let b = 0; b < BLOCKS; b++) if (sp.complex[b]) need[i].add(b);
    };
    for (const { from, read } of windows) {
      const got = await read;
      for (const bytes of got) this.r.bytesRead += bytes?.length ?? 0;
      const byPart = new Map<number, number[]>();
      got.forEach((bytes, y) => {
        if (bytes === undefined) throw new Gone();
        const i = partOf[from + y], l = byPart.get(i);
        if (l) l.push(y);
        else byPart.set(i, [y]);
      });
      // part by part: its keys first (keyed spans name their engaged visitors by them), then its spans added
      for (const [i, ys] of byPart) {
        let k: PartKeys = noKeys(), sp: Spans | null = null;
        for (const y of ys) {
          const { sec } = asks[from + y], bytes = got[y];
          if (sec !== KEYS_SEC && sec !== SHORT_KEYS_SEC) continue;
          if (bytes) k = sec === KEYS_SEC ? decodeKeys(bytes) : decodeShortKeys(bytes);
          holdArraysOf(k);
        }
        keys[i] = k;
        for (const y of ys) {
          const { sec } = asks[from + y], bytes = got[y];
          if (sec === KEYS_SEC || sec === SHORT_KEYS_SEC) continue;
          if (sec === SPAN_ENDS_SEC) {
            if (!bytes) throw new Gone();
            spanEnds[i] = decodeSpanEnds(bytes);
          } else if (bytes) sp = decodeSpans(bytes, k);
        }
        // (each decoded into buffers of its own: the stored bytes are let go now, packed_arrays.ts `release`)
        for (const y of ys) release(got[y]);
        addSpans(i, sp);
        releaseDecoded(sp?.engaged);
        // (in passes each pass reads the keys again: these are let go once the spans are added)
        if (passes.several) {
          releaseArraysOf(k);
          keys[i] = noKeys();
        }
      }
    }
    // blocks read for a cut span or a session that is not simple have every row decided by the part's own
    // join; the others are read only for sessions also in another part: just those rows, found by key
    const general = need;
    // the joins' entries and exits: the taken-out sessions' as their parts counted them off, the joined ones' on
    const joinedEnds: EntriesExits = { entries: new Map(), exits: new Map() };
    /**
     * The sessions shared between parts (`shared`: flags by key, from the keys of `range`'s visitors, or of
     * all) and those of the blocks every row of which joins (of `range`'s visitors): taken out of the totals as
     * their parts alone counted them, joined and added. Returns the shared keys found, by part.
     */
    const joinRange = async (
      keysIn: PartKeys[],
      shared: Uint8Array[],
      range: VisitorRange | null,
    ): Promise<SharedSet[]> => {
      const lo = range?.lo ?? 0, hi = range?.hi ?? Infinity;
      const needHere = general.map((b) => new Set(b));
      const sharedSet = keysIn.map((k, i) => {
        const set = emptyShared();
        for (let x = 0; x < k.n; x++) {
          if (!shared[i][x]) continue;
          needHere[i].add(k.block[x]);
          addShared(set, k, x);
        }
        return set;
      });
      // the blocks to join, as units; per row: joined, and taken out of its span first
      const wanted: { i: number; b: number }[] = [];
      for (let i = 0; i < parts.length; i++) {
        for (const b of [...needHere[i]].sort((x, y) => x - y)) {
          if (entries[i].secs[factsSec(b)]) wanted.push({ i, b });
        }
      }
      // with the spans' ends, each block's entries and exits beside its facts
      const secsOf = (b: number) => withEnds ? [factsSec(b), entriesSec(b), exitsSec(b)] : [factsSec(b)];
      const read = await readSections(
        this.r.deps.kv,
        wanted.flatMap(({ i, b }) =>
          secsOf(b).map((sec) => ({ partId: parts[i].id, entry: entries[i], sec }))
        ),
      );
      const per = withEnds ? 3 : 1;
      // each block decoded, its rows the joins take (masks below) copied out and the block let go at once: the
      // next block's inflate reuses its memory (at 10M events ~500 blocks, 11.5 MB inflated, were all held for
      // the joins' ~4,500 sessions: fresh pages, ~2,900 first touches)
      const subMasks: Uint8Array[] = [];
      const units = wanted.map((w, x) => {
        const [bytes, ent, ext] = read.slice(x * per, x * per + per);
        if (!bytes || (withEnds && (!ent || !ext))) throw new Gone();
        this.r.bytesRead += bytes.length + (ent?.length ?? 0) + (ext?.length ?? 0);
        const f = decodeFacts(bytes), ends = withEnds ? decodeBlockEnds(ent!, ext!) : null;
        for (const b of [bytes, ent, ext]) release(b);
        const set = sharedSet[w.i];
        const join = new Uint8Array(f.n), sub = new Uint8Array(f.n);
        if (!general[w.i].has(w.b)) {
          // every session in scope here is simple and counted whole in its span: only those in another part join
          for (let r = 0; r < f.n; r++) if (sharedHas(set, f.vis[r], f.h1[r])) join[r] = sub[r] = 1;
        } else {
          const head = entries[w.i].head;
          const l = localSessions(f, head.tps, head.traffics, null);
          const slot = l.join.slots[0], j = l.join.j, { tp, tr } = scoped[w.i];
          for (let r = 0; r < f.n; r++) {
            // (a pass's: its range's visitors alone)
            if (f.vis[r] < lo || f.vis[r] >= hi) continue;
            const x = slot[r];
            if (x < 0 || !l.simple[x] || !tp[l.tp[x]] || !tr[l.traffic[x]] || !whole(w.i, l.h0[x], l.h1[x])) {
              join[r] = 1;
              continue;
            }
            // counted in its span: joined only when the session is in another part too
            if (sharedHas(set, j.vis[x], j.h1[x])) join[r] = sub[r] = 1;
          }
        }
        const rows: number[] = [];
        for (let r = 0; r < f.n; r++) if (join[r]) rows.push(r);
        const taken = sliceFacts({ ...f, ends }, rows);
        subMasks.push(Uint8Array.from(rows, (r) => sub[r]));
        releaseDecoded(f.vis);
        releaseDecoded(ends?.entDt);
        releaseDecoded(ends?.extDt);
        return { ...w, facts: taken, ends: taken.ends, rows };
      });
      // (every row kept is joined)
      const joinMasks = null;
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
          this.r.deps.kv,
          want.map((u) => ({ partId: parts[u.i].id, entry: entries[u.i], sec: listsSec(u.b) })),
        );
        got.forEach((bytes, x) => {
          if (bytes === undefined) throw new Gone();
          this.r.bytesRead += bytes?.length ?? 0;
          listsRead.set(want[x], bytes ? sliceLists(decodeLists(bytes), want[x].rows) : null);
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
        if (withEnds) addEnds(joinedEnds, entriesAndExits(alone, of.map((u) => u.ends)), -1);
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
      if (withEnds) addEnds(joinedEnds, entriesAndExits(joined, units.map((u) => u.ends)));
      // the blocks' facts, lists and ends were read for these joins alone (nothing kept holds a view on them):
      // let go now, so the next question's sections reuse their memory (packed_arrays.ts `release`)
      for (const u of units) {
        releaseArraysOf(u.facts);
        releaseArraysOf(u.ends);
      }
      for (const l of listsRead.values()) releaseArraysOf(l);
      return sharedSet;
    };
    let sharedOut: SharedSet[];
    if (!passes.several) {
      sharedOut = await joinRange(keys, sharedKeys(keys, space), null);
    } else {
      sharedOut = parts.map(() => emptyShared());
      const done = await inRanges(
        passes,
        overviewInPasses,
        async (range, atOnce) => {
          // (a question refused meanwhile, its other pieces past the limit, has ended: its count goes no further)
          if (WorkingMemory.room() === Infinity) return null;
          const mine = await this.keysOfRange(parts, entries, range, atOnce);
          try {
            // (a pass's keys searched from its first number, a smaller window at a time: a smaller table)
            const width = Math.min(range.hi, space) - range.lo;
            const shared = sharedKeys(mine, space, keysWindow(width), range.lo);
            const got = await joinRange(mine, shared, range);
            got.forEach((set, i) => {
              for (const x of set.full) sharedOut[i].full.add(x);
              for (const x of set.short) sharedOut[i].short.add(x);
            });
            return true;
          } finally {
            for (const k of mine) releaseArraysOf(k);
          }
        },
        (n, atOnce) => keysSplit(this.r, parts, entries, passes.space, n, atOnce),
      );
      if (!done) throw new Gone();
      overviewInPasses.answers++;
    }
    for (let v = 0; v < engaged.length; v++) if (engaged[v] > 0) totals.engagedVisitors++;
    let ends: EntriesExits | null = null;
    if (withEnds) {
      ends = { entries: new Map(), exits: new Map() };
      addByPage(ends.entries, entN, spanEnds);
      addByPage(ends.exits, extN, spanEnds);
      addEnds(ends, joinedEnds);
      for (const m of [ends.entries, ends.exits]) for (const [page, c] of m) if (c === 0) m.delete(page);
    }
    // the parts' keys are kept as read (no second copy as numbers), unless read in passes (then not kept)
    return {
      kept: { totals, engaged, keys: passes.several ? null : keys, dropped: true, ends: null },
      shared: sharedOut,
      ends,
    };
  }

  /** Every part's keys of the visitors in `range` (each part's read whole, `atOnce` at a time, then cut). */
  private async keysOfRange(
    parts: { id: string }[],
    entries: RollupEntry[],
    range: VisitorRange,
    atOnce: number,
  ): Promise<PartKeys[]> {
    return await inBatches(parts, atOnce, async (p, i) => {
      const whole = await this.partKeys(p, entries[i]);
      holdArraysOf(whole);
      const mine = keysInRange(whole, range).keys;
      releaseArraysOf(whole);
      holdArraysOf(mine);
      return mine;
    });
  }

  /** A part's session keys as the totals read them (the short ones where the part has them), decoded. */
  private async partKeys(p: { id: string }, entry: RollupEntry): Promise<PartKeys> {
    const sec = entry.secs[SHORT_KEYS_SEC] ? SHORT_KEYS_SEC : KEYS_SEC;
    const [bytes] = await readSections(this.r.deps.kv, [{ partId: p.id, entry, sec }]);
    if (bytes === undefined) throw new Gone();
    this.r.bytesRead += bytes?.length ?? 0;
    if (!bytes) return noKeys();
    const k = sec === KEYS_SEC ? decodeKeys(bytes) : decodeShortKeys(bytes);
    release(bytes);
    return k;
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
    const holdsOne = (keys: Float64Array | PartKeys) => {
      for (const [v, l] of only) if (l.some((h1, x) => x % 2 === 0 && keptHolds(keys, v, h1))) return true;
      return false;
    };
    if (kept.keys) kept.keys.forEach((keys, ri) => holdsOne(keys) && hit.push(ri));
    else {
      // (totals counted in passes keep no keys: each part's read again, one at a time, and let go)
      for (let ri = 0; ri < n; ri++) {
        const entry = await this.r.entry(parts[ri].id);
        if (!entry) throw new Gone();
        const keys = await this.partKeys(parts[ri], entry);
        holdArraysOf(keys);
        if (holdsOne(keys)) hit.push(ri);
        releaseArraysOf(keys);
      }
    }
    const units: RollupParts[] = [];
    for (const ri of hit) {
      const p = await this.r.part(parts[ri].id, { fields: [], sets: [], facts: true, ends: want.ends });
      if (!p) throw new Gone();
      units.push(p);
    }
    const ids = hit.map((ri) => parts[ri]);
    const hours = hit.map((ri) => inside[ri]);
    const alone = joinSessions(units.map(unitOf), hours, s.touchpoint, traffic, space, only);
    const before = sessionTotals(alone, want.dropped ? await this.r.listsFor(alone, units, ids) : []);
    const all = [...units, tail];
    const both = joinSessions(all.map(unitOf), [...hours, inside[n]], s.touchpoint, traffic, space, only);
    const after = sessionTotals(
      both,
      want.dropped ? await this.r.listsFor(both, all, [...ids, { id: "" }]) : [],
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

  /** Answers from the rollups' rows and facts (plainBlocker null), or null for those the scan must answer. */
  async answer(s: Scope, questions: AggregateOptions[]): Promise<(AggregateResult | null)[]> {
    this.answering++;
    try {
      return await this.answerNow(s, questions);
    } finally {
      this.answering--;
      this.lastAnswered = performance.now();
      if (this.building.size) this.later();
    }
  }

  private async answerNow(s: Scope, questions: AggregateOptions[]): Promise<(AggregateResult | null)[]> {
    const served = questions.map((o) => plainBlocker(s, o) === null);
    const none = questions.map(() => null);
    if (!served.some(Boolean)) return none;
    const { parts, tail, all, cut } = await this.r.inPeriod(s);
    // (this question's number: a list answered before it began was asked earlier, not at once with it)
    const began = ++this.r.asked;
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
        await this.r.prefetchEntries(parts.map((p) => p.id));
        const got = await inBatches(parts, 8, (p) => this.r.entry(p.id));
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
        kept = this.r.cache.get(keptKey) as KeptSessions | undefined;
        this.r.lastAsked.set(keptKey, this.r.asked);
        if (kept && ((dropped && !kept.dropped) || (asked.ends && !kept.ends))) {
          keepDropped ||= kept.dropped;
          keepEnds ||= kept.ends !== null;
          kept = undefined;
        }
      }
    } catch (e) {
      if (this.r.gone(e)) return none;
      throw e;
    }
    // fields whose visitor counts come from unions kept for the period read no sets (unions.ts)
    let period: string | null = null;
    let wide: boolean[] | null = null;
    const pinned = new Map<string, PeriodUnion>();
    // unions the answers will count, built while the parts are read (each window's parts added while the next
    // window is read from KV) instead of once all are read
    const building: { key: string; f: number; viewers: boolean; b?: UnionBuilder }[] = [];
    let periodInside: Set<number>[] | null = null;
    try {
      const heads = await inBatches(parts, 8, (p) => this.r.entry(p.id));
      const partInside = periodInside = heads.every((e) => e !== null)
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
          const only = onlyValue(s, o);
          const need = (f: number, ok: boolean, bucket?: AggregateOptions["bucket"]) => {
            const covered = ok && kinds.every((v) => {
              const key = unionKey(period!, f, v, bucket, s.timezone, bucket ? only : undefined);
              const u = pinned.get(key) ?? this.r.unions.get(key);
              if (u) pinned.set(key, u);
              // (a period's union the answers will count: built as the parts are read)
              else if (!bucket && !building.some((x) => x.key === key)) {
                building.push({ key, f, viewers: v });
              }
              return u !== undefined;
            });
            needs.set(f, (needs.get(f) ?? false) || !covered);
          };
          if (!kinds.length) return;
          if (fit.byBucket) {
            // a trend: its buckets' unions and the period's (its totals) must both be kept
            need(rowField, true, o.bucket);
            need(rowField, true);
          } // one field for groups and totals (no breakdown, or a filter on it): both must be covered
          else if (rowField === totalField) {
            need(rowField, fit.totals && (!o.breakdown?.length || fit.byRows));
          } else {
            need(rowField, fit.byRows);
            need(totalField, fit.totals);
          }
        });
        asked.sets = asked.sets.filter((f) => needs.get(f) !== false);
      }
    } catch (e) {
      if (this.r.gone(e)) return none;
      throw e;
    }
    // lists sorted by a sum whose period's sums and values' unions are kept (kept_lists.ts) read no rows
    // of their field: the raw tail is built first and added on top
    const tailBuilt = await this.r.tailRollup(tail, all, s, cut);
    const tailInside = tailBuilt.part ? hoursInside([tailBuilt.part], s)?.[0] ?? null : null;
    if (tailBuilt.part && !tailInside) return none;
    type More = Parameters<typeof rowsFromKept>[3];
    const fromKept: ((more: More) => { rows: Row[]; total_rows: number } | null)[] = [];
    if (period) {
      questions.forEach((o, i) => {
        if (!served[i] || !keptListFits(s, o)) return;
        const f = keptListField(s, o), key = listKey(period!, f);
        // a list under way since an answer given before this question began: finished now (the rest of its
        // slices, most often all of them when asked back to back), and this question answered from it
        const going = this.building.get(key);
        if (going && going.answered < began && covers(going.build.kinds, o)) {
          this.finishList(key, going, false);
        }
        const kl = this.r.cache.get(key) as KeptList | undefined;
        // (a kind asked whose unions were not built: a question of that kind reads the rows and builds them)
        if (
          !kl || o.metrics.some((m) => (m === "visitors" && !kl.visitors) || (m === "viewers" && !kl.viewers))
        ) {
          return;
        }
        this.r.lastAsked.set(key, this.r.asked);
        const t = tailBuilt.part;
        const tailRows = t
          ? { r: t.field(f), rows: rowsInScope(t, t.field(f), f, tailInside!, s, traffic) }
          : null;
        fromKept[i] = (more) => rowsFromKept(kl, tailRows, o, more);
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
    // the parts' totals come from their spans (the facts of only some blocks are read), entries and exits
    // part by part (plain_ends.ts)
    // (the period's totals another question counted while this one read its entries: kept by now)
    if (asked.facts && !full && !kept) {
      const now = this.r.cache.get(keptKey) as KeptSessions | undefined;
      if (now && !(dropped && !now.dropped) && !(asked.ends && !now.ends)) kept = now;
    }
    const spanPath = asked.facts && !full && !kept;
    // and counted meanwhile: the keys' join waits on KV twice (the keys, then the facts of the blocks they
    // name) while the parts' rows wait and decode in between
    const spanInside = spanPath ? hoursInside(entries.map((e) => e.head), s, cut !== "") : null;
    // once for questions asked at once over the same period (a report's tools): the totals are the same (the
    // key names the parts' hours, touchpoint and traffic kinds); a question wanting entries and exits shares
    // only a count that makes them (else it would count them part by part: endsByParts reads every block)
    const totalsKey = `totals ${keptKey}`, withEndsKey = `${totalsKey} ends`;
    const spanCount = spanInside
      ? (keepEnds ? undefined : this.r.underWay.get(withEndsKey) as ReturnType<PlainAnswers["spanKept"]>) ??
        this.r.shared(
          keepEnds ? withEndsKey : totalsKey,
          () =>
            this.spanKept(
              parts,
              entries,
              spanInside,
              s,
              traffic,
              tailBuilt.space,
              this.spanSections(parts, entries, keepEnds),
            ).then((got) => {
              // kept before the shared count settles: a question looking after it finds the result kept
              // (kept in the one budget with the pieces: keys as read, engaged counts 2 bytes a visitor number)
              if (got.ends) got.kept.ends = got.ends;
              this.r.setKept(keptKey, got.kept, keptWeight(got.kept), false);
              return got;
            }),
        )
      : null;
    // (awaited below; a question that returns before then must not leave it rejected unobserved)
    spanCount?.catch(() => {});
    let loaded: RollupParts[];
    try {
      const want = {
        ...asked,
        facts: asked.facts && !kept && !spanPath,
        ends: keepEnds && !kept && !spanPath,
      };
      const got: (RollupParts | null)[] = [];
      // a window of parts' sections fetched together, then decoded (the window bounds the bytes held)
      // the next windows' sections are read while this one decodes (three windows' stored bytes held)
      const fetchWindow = async (w: number) => {
        const window = parts.slice(w, w + 32), wideOf = window.map((_, x) => wide?.[w + x] ?? false);
        await this.r.prefetchEntries(window.map((p) => p.id));
        return await this.r.prefetch(window.map((p) => p.id), want, wideOf);
      };
      // two windows ahead: the span path's keys and fact blocks share KV with these reads, and a window
      // fetched only once the one before was in hand left the thread idle while both waited
      const ahead: Promise<Map<string, Uint8Array>>[] = [];
      const fetchAhead = (w: number) => {
        if (w >= parts.length) return;
        const f = fetchWindow(w);
        f.catch(() => {});
        ahead.push(f);
      };
      fetchAhead(0);
      fetchAhead(32);
      for (let w = 0; w < parts.length; w += 32) {
        const window = parts.slice(w, w + 32), wideOf = window.map((_, x) => wide?.[w + x] ?? false);
        const pre = await ahead.shift()!;
        fetchAhead(w + 64);
        const read = await inBatches(
          window.map((p, x) => ({ p, x })),
          4,
          ({ p, x }) => this.r.part(p.id, want, full, pre, wideOf[x]),
        );
        got.push(...read);
        // the unions being built take this window's parts (only of fields whose sets were read)
        read.forEach((p, x) => {
          if (!p || !periodInside) return;
          for (const u of building) {
            if (!want.sets.includes(u.f)) continue;
            const r = p.field(u.f);
            (u.b ??= new UnionBuilder(u.viewers, tailBuilt.space))
              .add(r, this.scopedRows(p, r, u.f, periodInside[w + x], s, traffic));
          }
        });
      }
      if (got.some((p) => p === null)) return none; // a part without a rollup yet (the backfill adds it)
      loaded = got as RollupParts[];
      for (const u of building) {
        if (!want.sets.includes(u.f) || !u.b) continue;
        const built = u.b.done();
        if (!built) continue;
        pinned.set(u.key, built);
        if (built.bytes <= this.r.unions.capacity) this.r.unions.set(u.key, built, built.bytes);
      }
    } catch (e) {
      if (this.r.gone(e)) return none;
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
        const totals = sessionTotals(join, dropped ? await this.r.listsFor(join, loaded, parts) : []);
        const ends = asked.ends ? entriesAndExits(join, loaded.map((p) => p.ends)) : null;
        sessions = {
          ends,
          totals,
          perBucket: (bucketOf: (hour: number) => number, pv: boolean) =>
            sessionsPerBucket(join, units, bucketOf, pv),
        };
      } else if (asked.facts) {
        const n = parts.length;
        if (!kept) {
          // (the span path: counted while the parts were read)
          const got = await spanCount!;
          kept = got.kept;
          if (keepEnds && !kept.ends) {
            // (a count shared with a question that did not want them: counted part by part)
            kept.ends = await endsByParts(this.r, parts, inside.slice(0, n), got.shared, s, traffic, space);
            this.r.setKept(keptKey, kept, keptWeight(kept), false);
          }
        }
        const { totals, ends } = loaded.length > n
          ? await this.withTail(kept, loaded, inside, parts, s, traffic, space, { dropped, ends: asked.ends })
          : kept;
        sessions = { ends, totals, perBucket: () => new Map() };
      }
    } catch (e) {
      if (this.r.gone(e)) return none;
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
    if (asked.sets.includes(TOTAL)) {
      // the totals' counts a kept union would give are counted into one now, so the next ask reads no sets
      // for them: a list's totals (the page list's viewers) are computed only when read, which a tool may never
      // do, and each warm overview at 10M events read the month's totals sets again for them
      questions.forEach((o, i) => {
        const fit = keptUnionsFit(s, o);
        if (!served[i] || !(fit.totals || fit.byBucket)) return;
        for (const v of [false, true]) {
          if (!o.metrics.includes(v ? "viewers" : "visitors")) continue;
          known(TOTAL, v);
          if (fit.byBucket) known(fieldsOf(s, o).rowField, v, o.bucket, onlyValue(s, o));
        }
      });
    }
    return questions.map((o, i) => {
      if (!served[i]) return null;
      // a page's entries and exits from the kept session totals (with the raw tail's sessions amended)
      const asks = SESSION_ASKED(o) ? sessions : null, ends = asks?.ends;
      const rows = fromKept[i]?.(
        ends ? (m, page, pv) => setEnds(m, o, pv, ends, (x) => x.get(page) ?? 0) : null,
      );
      if (rows) {
        this.r.listsFromKept++;
        // the totals from the hours' totals rows (and their kept unions), the rows from the kept list
        const { totals } = answerFromRollups(loaded, inside, s, { metrics: o.metrics }, space, asks, known);
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
        this.beginList(period, parts, loaded.slice(0, n), inside, s, o, space, pinned);
      }
      return answer;
    });
  }

  /**
   * Begins the kept list of a question's field for its period (kept_lists.ts), from the rows it read: built a
   * slice at a time while no question is answered, or finished by the next question asking it after this
   * answer. Built at the first answer and not when the list is asked again (the ask after the cold one paid
   * for it: ~0.2-0.4 s at 10M events), yet not by the answer itself: questions asked at once (a weekly report's
   * overview and pages tool both list the week's pages) and a question asked once pay no more than before.
   * If the build never runs (an isolate frozen once its response is sent), the next ask does it.
   */
  private beginList(
    period: string,
    ids: { id: string }[],
    parts: RollupParts[],
    inside: Set<number>[],
    s: Scope,
    o: AggregateOptions,
    space: number,
    /** unions this question counted (those too large for the unions' share are not kept there) */
    pinned: Map<string, PeriodUnion>,
  ) {
    const f = keptListField(s, o), key = listKey(period, f);
    const asked = { visitors: o.metrics.includes("visitors"), viewers: o.metrics.includes("viewers") };
    const going = this.building.get(key);
    if (going && covers(going.build.kinds, o)) return;
    // (an earlier list's other kind stays: a list of visitors asked after one of viewers keeps both)
    const before = this.r.cache.peek(key) as KeptList | undefined;
    const kinds = {
      visitors: asked.visitors || (going?.build.kinds.visitors ?? false),
      viewers: asked.viewers || (going?.build.kinds.viewers ?? false),
    };
    const traffic = new Set(s.traffic ?? ["human"]);
    const build = new KeptListBuild(
      parts,
      f,
      (pi, r) => rowsInScope(parts[pi], r, f, inside[pi], s, traffic),
      before,
      space,
      kinds,
      (viewers) =>
        pinned.get(unionKey(period, f, viewers)) ?? this.r.unions.get(unionKey(period, f, viewers)),
    );
    this.building.delete(key);
    this.building.set(key, {
      build,
      f,
      answered: this.r.asked,
      ids: ids.map((p) => p.id),
      // the parts' entries as read: a part written again meanwhile (its entry read anew) lets the build go
      entries: ids.map((p) => this.r.cache.peek(p.id)),
    });
    // a list under way holds its question's rows (most kept in the cache anyway): a few at a time, none that
    // 16 questions have passed
    for (const [k, g] of this.building) {
      if (this.building.size > MAX_LISTS_UNDER_WAY || g.answered < this.r.asked - 16) this.building.delete(k);
    }
    this.later();
  }

  /** A list under way finished (the slices left) and kept, unless a part was written again since. */
  private finishList(key: string, going: ListUnderWay, background: boolean) {
    this.building.delete(key);
    if (going.ids.some((id, i) => this.r.cache.peek(id) !== going.entries[i])) return;
    const kl = going.build.finish();
    if (!kl) return;
    this.listBuilds[background ? "background" : "inAnswer"]++;
    // kept like the period's session totals: pieces make room (the field's rows, which a kept list spares)
    this.r.setKept(key, kl, keptListBytes(kl), true);
    // and those rows are the first to make room for others later (they stayed pinned for 16 questions, so at
    // 10M events the overview's bots list and totals rows found no room and were read again every warm ask)
    this.r.spare(going.ids, going.f);
  }

  /**
   * A slice of the lists under way once no question has been answered for IDLE_MS (`answer` calls again when
   * one ends): not in the short gaps between a tool's or a report's questions, whose cold asks would pay for
   * lists that may never be asked again, but in the pause before the next tool call.
   */
  private later(delay = IDLE_MS) {
    if (this.timer !== null || !this.background || !this.building.size) return;
    const due = performance.now() + delay;
    const timer = this.timer = setTimeout(() => {
      this.timer = null;
      // a timer late by more than a slice: the thread was busy with other work (a scan, a tool's other
      // questions): not idle, looked at again later
      if (performance.now() - due > SLICE_MS * 2) this.later();
      else this.slice();
    }, delay);
    Deno.unrefTimer(timer);
  }

  /** Builds the oldest list under way for a few milliseconds (a request waits at most about that long). */
  private slice() {
    if (this.answering > 0 || !this.background) return;
    const idle = performance.now() - this.lastAnswered;
    if (idle < IDLE_MS) return this.later(IDLE_MS - idle);
    const first = this.building.entries().next();
    if (first.done) return;
    const [key, going] = first.value;
    if (going.build.step(performance.now() + SLICE_MS)) this.finishList(key, going, true);
    this.later(0);
  }

  /** Resolves once no list is under way, or none is built in the background (tests). */
  async settled(): Promise<void> {
    while (this.background && this.building.size) await new Promise((r) => setTimeout(r, 1));
  }

  /** A part's rows of field f in scope (touchpoint, traffic kinds, hours inside; `only`: of that value). */
  private scopedRows(
    part: RollupParts,
    r: Rollup,
    f: number,
    inside: Set<number>,
    s: Scope,
    traffic: Set<string>,
    only?: string,
  ): number[] {
    const tpOk = part.tps.map((tp) => !s.touchpoint || tp === s.touchpoint);
    const trOk = part.traffics.map((t) => t !== null && traffic.has(t));
    const code = only === undefined ? -1 : r.values.indexOf(only);
    const out: number[] = [];
    if (only !== undefined && code < 0) return out;
    for (const i of rowsOf(r, f)) {
      if (code >= 0 && r.value[i] !== code) continue;
      if (tpOk[r.tp[i]] && trOk[r.traffic[i]] && inside.has(r.hour[i])) out.push(i);
    }
    return out;
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
    const scoped = (pi: number, r: Rollup, f: number, only?: string): number[] =>
      this.scopedRows(loaded[pi], r, f, inside[pi], s, traffic, only);
    const made = new Map<string, ((value: string | null) => number) | null>();
    return (f, viewers, bucket, only) => {
      if (!bucket) only = undefined;
      const key = unionKey(period, f, viewers, bucket, s.timezone, only);
      if (made.has(key)) return made.get(key)!;
      // a trend's unions are by bucket label (an hour's bucket computed once)
      const bucketOf = bucket ? bucketer(bucket, s.timezone) : null, labels = new Map<number, string>();
      const keyOf = bucketOf
        ? (r: Rollup, i: number) => {
          let l = labels.get(r.hour[i]);
          if (l === undefined) labels.set(r.hour[i], l = String(bucketOf(r.hour[i] * HOUR)));
          return l;
        }
        : null;
      let u = pinned.get(key) ?? this.r.unions.get(key);
      if (!u) {
        const built = buildUnion(
          loaded.slice(0, n),
          f,
          (pi, r) => scoped(pi, r, f, only),
          viewers,
          space,
          keyOf,
        );
        if (built && built.bytes <= this.r.unions.capacity) this.r.unions.set(key, built, built.bytes);
        u = built ?? undefined;
      }
      let out: ((value: string | null) => number) | null = null;
      if (u) {
        const parts = u;
        // the raw tail's visitors of each value that the parts' union lacks
        const extra = new Map<string | null, Set<number>>();
        if (loaded.length > n) {
          const r = loaded[n].field(f);
          for (const i of scoped(n, r, f, only)) {
            const value = keyOf ? keyOf(r, i) : r.values[r.value[i]], x = parts.ids.get(value) ?? -1;
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

const unionKey = (
  period: string,
  f: number,
  viewers: boolean,
  bucket?: AggregateOptions["bucket"],
  timezone?: string,
  only?: string,
) =>
  `${period}|${f}|${viewers}` + (bucket ? `|${bucket}|${timezone}` : "") +
  (only === undefined ? "" : `|${JSON.stringify(only)}`);
const listKey = (period: string, f: number) => `${period}|list|${f}`;

/** A kept list under way (plain_answers.ts `beginList`). */
interface ListUnderWay {
  build: KeptListBuild;
  f: number;
  /** the question count when the answer that began it was given */
  answered: number;
  ids: string[];
  entries: unknown[];
}

/** The most lists under way at once (each holds its question's rows of the field until built). */
const MAX_LISTS_UNDER_WAY = 8;

/** A slice of a list's build in the background, in ms: a request arriving meanwhile waits about that long. */
const SLICE_MS = 4;

/** How long no question must have been answered before lists are built in the background, in ms. */
const IDLE_MS = 100;

/** Whether a list built for these kinds serves a question's visitor counts. */
const covers = (kinds: ListKinds, o: AggregateOptions) =>
  (kinds.visitors || !o.metrics.includes("visitors")) && (kinds.viewers || !o.metrics.includes("viewers"));

const SESSION_ASKED = (o: AggregateOptions) =>
  o.metrics.some((m) => SESSION_METRICS.has(m) || ENDS_METRICS.has(m));

/** Overview session totals counted in passes over visitor ranges, and the passes (tests read them). */
export const overviewInPasses = { answers: 0, passes: 0 };

/**
 * Whether a period's session totals (`spanKept`) take passes over ranges of visitor numbers: one pass holds
 * every part's keys decoded (10 bytes a key: short keys are 8 stored inflated, whole ones 9), the engaged
 * counts (2 bytes a visitor number) and the shared-key search's table; each of several its range's keys
 * copied (and the parts read whole while they are cut: `inRanges`) and a smaller table.
 */
function sessionPasses(entries: RollupEntry[], space: number): Passes {
  const short = entries.every((e) => e.secs[SHORT_KEYS_SEC] !== undefined);
  const decoded = (raw: number) => raw * (short ? 10 / 8 : 10 / 9);
  return passesFor(
    entries,
    [short ? SHORT_KEYS_SEC : KEYS_SEC],
    space,
    ([raw]) => decoded(raw) + space * 2 + sharedKeysBytes(decoded(raw) / 10, space),
    ([raw], count) =>
      (decoded(raw) * 1.5) / count +
      sharedKeysBytes(decoded(raw) / 10 / count, space / count, keysWindow(space / count)),
  );
}

/** The parts' session totals of a period, kept: with each visitor's engaged sessions and each part's session keys. */
interface KeptSessions {
  totals: SessionTotals;
  engaged: Uint16Array;
  /**
   * per part: its sessions' keys, as numbers (a join's unitKeys) or as read from its rollup (spans.ts); null
   * when the totals were counted in passes (`spanKept`): not kept, read again part by part when needed
   */
  keys: (Float64Array | PartKeys)[] | null;
  /** whether the totals' dropped events are counted (the lists were read) */
  dropped: boolean;
  /** entries and exits per page, when a question asked for them */
  ends: EntriesExits | null;
}

/** Whether kept keys may hold a session of visitor v with first id hash h1. */
const keptHolds = (k: Float64Array | PartKeys, v: number, h1: number) =>
  k instanceof Float64Array ? holdsKey(k, v, h1) : mayHoldKey(k, v, h1);
/** Memory kept keys hold (read keys are views of their section's buffer, short keys of one buffer of their own). */
const keptKeyBytes = (k: Float64Array | PartKeys) =>
  k instanceof Float64Array ? k.byteLength : k.vis.buffer.byteLength;

/** A period's kept session totals' memory: keys as read, engaged counts 2 bytes a visitor number, ends. */
const keptWeight = (kept: KeptSessions): number =>
  (kept.keys ?? []).reduce((n, k) => n + keptKeyBytes(k), 0) + kept.engaged.byteLength + 4_096 +
  (kept.ends ? (kept.ends.entries.size + kept.ends.exits.size) * 80 : 0);

/** A block's device-time lists for some of its rows (`rows`, ascending), the block's own let go at once. */
function sliceLists(l: FactLists, rows: number[]): FactLists {
  let size = 0;
  for (const r of rows) size += l.listAt[r + 1] - l.listAt[r];
  const out: FactLists = {
    listAt: new Uint32Array(rows.length + 1),
    listDt: new Float64Array(size),
    listSeq: new Float64Array(size),
  };
  let o = 0;
  rows.forEach((r, i) => {
    out.listAt[i] = o;
    const a = l.listAt[r], b = l.listAt[r + 1];
    out.listDt.set(l.listDt.subarray(a, b), o);
    out.listSeq.set(l.listSeq.subarray(a, b), o);
    o += b - a;
  });
  out.listAt[rows.length] = o;
  releaseDecoded(l.listAt);
  return out;
}
