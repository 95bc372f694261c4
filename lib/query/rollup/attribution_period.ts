/**
 * A period's sources from the parts' runs (attribution_runs.ts) and the rows of the sessions runs cannot give
 * (`RunsPeriod`): runs whose span lies in the period and whose touchpoint and traffic kind are in scope are
 * taken whole but for their sessions another part also holds; those sessions, the sessions of spans the
 * period cuts and the sessions left out of runs are joined from their blocks' rows (attribution.ts), the raw
 * tail's with them. `answerRuns` counts one question from both, exactly as answerAttribution counts rows.
 */
import { hold } from "../../working_memory.ts";
import { sortAndPage } from "../order.ts";
import { release } from "../../parts/packed_arrays.ts";
import { releaseViews } from "./let_go.ts";
import type { AggregateOptions, AggregateResult, KeyValue, Row, Scope } from "../types.ts";
import {
  attributionFigures,
  attributionGroups,
  type AttrRows,
  type AttrUnit,
  type LeanFacts,
  Numbering,
  type Tally,
  tupleKey,
} from "./attribution.ts";
import type { AttrRuns } from "./attribution_runs.ts";
import type { VisitorRange } from "./first_touch.ts";
import { type FactEnds, MULTI_ATTR } from "./session_facts.ts";
import { findKey, keysInRange, type PartKeys } from "./spans.ts";
import { hourMask } from "./sessions.ts";
import type { FactAttr } from "./store.ts";

/**
 * The sessions a period takes as their parts counted them, by run: the parts' runs merged by signature and
 * whether they are people's (tuples, pages and signatures made global).
 */
export interface RunsPeriod {
  tuples: (string | null)[][];
  pages: (string | null)[];
  /** each signature's attributions: global tuple × 2 + (1: with a pageview of it) */
  sigs: Int32Array[];
  n: number;
  sig: Int32Array;
  human: Uint8Array;
  /** run r's sessions are [at[r], at[r + 1]) of `vis` and `entry` */
  at: Uint32Array;
  vis: Uint32Array;
  /** the session's entry page (global), or -1: no pageview */
  entry: Int32Array;
  /** a bound on the visitor numbers */
  visitors: number;
}

/** Where a period's kept sessions are, per part: the part's keys and each key's place in `vis` (-1: none). */
export interface RunsPlaces {
  keys: PartKeys[];
  pos: Int32Array[];
  /** rows per block of each part's facts (stored order) */
  blockRows: Uint32Array[];
}

/** Per part what a period takes: its runs (read), keys, and which keys another part also holds. */
export interface PartRuns {
  runs: AttrRuns;
  keys: PartKeys;
  shared: Uint8Array;
  tps: (string | null)[];
  traffics: (string | null)[];
}

/**
 * The sessions taken as their parts counted them (both hours inside, touchpoint and traffic kind in scope, no
 * other part holding them), and per part the blocks to read and which rows there join (`joins(p, vis, h1)`:
 * the row's session was not taken).
 */
export function takeRuns(
  parts: PartRuns[],
  inside: Set<number>[],
  touchpoint: string | null | undefined,
  traffic: Set<string>,
): {
  period: RunsPeriod;
  places: RunsPlaces;
  need: Set<number>[];
  joins: (p: number, vis: number, h1: number) => boolean;
} {
  const tuples = new Numbering<(string | null)[]>(tupleKey), pageNums = new Numbering<string | null>();
  const sigIds = new Map<string, number>(), sigs: Int32Array[] = [];
  const runIds = new Map<number, number>(), runSig: number[] = [], runHuman: number[] = [];
  const need = parts.map(() => new Set<number>());
  // per part, per key: 1 when its session is taken; per part run: its period run (-1: out of scope)
  const taken = parts.map((p) => new Uint8Array(p.keys.n));
  const runOf = parts.map((p) => new Int32Array(p.runs.n).fill(-1));
  const pageOf = parts.map((p) => new Int32Array(p.runs.pages.length + 1).fill(-2));
  const counts: number[] = [];
  parts.forEach((part, p) => {
    const { runs, keys, shared } = part;
    const tpOk = part.tps.map((tp) => !touchpoint || tp === touchpoint);
    const trOk = part.traffics.map((t) => t !== null && traffic.has(t));
    const tupleOf = runs.tuples.map((t) => tuples.of(t));
    const sigOf = runs.sigs.map((items) => {
      const global = items.map((it) => tupleOf[it >> 1] * 2 + (it & 1)).sort((a, b) => a - b);
      const key = global.join(",");
      let x = sigIds.get(key);
      if (x === undefined) sigIds.set(key, x = sigs.push(Int32Array.from(global)) - 1);
      return x;
    });
    const { base, inHour } = hourMask(inside[p]);
    const isIn = (h: number) => h >= base && h - base < inHour.length && inHour[h - base] === 1;
    for (let r = 0; r < runs.n; r++) {
      if (!tpOk[runs.tp[r]] || !trOk[runs.traffic[r]]) continue;
      const human = part.traffics[runs.traffic[r]] === "human" ? 1 : 0;
      const id = sigOf[runs.sig[r]] * 2 + human;
      let pr = runIds.get(id);
      if (pr === undefined) {
        runIds.set(id, pr = runSig.push(sigOf[runs.sig[r]]) - 1);
        runHuman.push(human);
        counts.push(0);
      }
      runOf[p][r] = pr;
      for (let i = runs.at[r]; i < runs.at[r + 1]; i++) {
        const x = runs.keys[i], a = runs.h0[i], b = runs.h1[i];
        if (isIn(a) && isIn(b)) {
          if (shared[x]) need[p].add(keys.block[x]);
          else {
            taken[p][x] = 1;
            counts[pr]++;
          }
          continue;
        }
        // a session the period cuts: its block's rows join
        for (let h = a; h <= b; h++) {
          if (isIn(h)) {
            need[p].add(keys.block[x]);
            break;
          }
        }
      }
    }
    for (let b = 0; b < runs.complex.length; b++) if (runs.complex[b]) need[p].add(b);
  });
  const n = runSig.length;
  const at = new Uint32Array(n + 1);
  for (let r = 0; r < n; r++) at[r + 1] = at[r] + counts[r];
  const total = at[n];
  const period: RunsPeriod = {
    tuples: tuples.list,
    pages: pageNums.list,
    sigs,
    n,
    sig: Int32Array.from(runSig),
    human: Uint8Array.from(runHuman),
    at,
    vis: new Uint32Array(total),
    entry: new Int32Array(total),
    visitors: 0,
  };
  const fill = at.slice(0, n), pos = parts.map((p) => new Int32Array(p.keys.n).fill(-1));
  // (by session of the period: what a question holds while it answers, lib/working_memory.ts)
  hold([period.vis, period.entry, at, fill, ...pos]);
  let visitors = 0;
  parts.forEach(({ runs, keys }, p) => {
    const pages = pageOf[p];
    for (let r = 0; r < runs.n; r++) {
      const pr = runOf[p][r];
      if (pr < 0) continue;
      for (let i = runs.at[r]; i < runs.at[r + 1]; i++) {
        const x = runs.keys[i];
        if (!taken[p][x]) continue;
        const o = fill[pr]++, v = keys.vis[x], code = runs.entry[i];
        if (v >= visitors) visitors = v + 1;
        if (pages[code] === -2) {
          const page = code === 0 ? null : runs.pages[code - 1];
          const g = pageNums.of(page);
          pages[code] = code === 0 ? -1 : g;
        }
        pos[p][x] = o;
        period.vis[o] = v;
        period.entry[o] = pages[code];
      }
    }
  });
  period.visitors = visitors;
  // (the fill marks were this build's alone)
  releaseViews([fill]);
  const joins = (p: number, vis: number, h1: number) => {
    const x = findKey(parts[p].keys, vis, h1);
    return x < 0 || !taken[p][x];
  };
  // (copied: the runs are let go once taken)
  const blockRows = parts.map((p) => p.runs.blockRows.slice());
  return { period, places: { keys: parts.map((p) => p.keys), pos, blockRows }, need, joins };
}

/**
 * A part's runs and keys of the visitors in `range` alone, in new buffers (the part's own are the caller's to let
 * go): its keys are sorted by visitor number, so the range's are one stretch of them, and each run keeps its
 * sessions among them (key indices into the stretch). A visitor's sessions all carry its number, so a pass over
 * the range takes, cuts and joins whole sessions, as one pass over every visitor would; what a block's rows
 * join is then the range's alone (the caller's `joins`).
 */
export function runsInRange(
  runs: AttrRuns,
  keys: PartKeys,
  range: VisitorRange,
): { runs: AttrRuns; keys: PartKeys } {
  const { keys: own, a, b } = keysInRange(keys, range);
  let m = 0;
  for (let i = 0; i < runs.keys.length; i++) if (runs.keys[i] >= a && runs.keys[i] < b) m++;
  const at = new Uint32Array(runs.n + 1), rk = new Uint32Array(m), h0 = new Uint32Array(m);
  const h1 = new Uint32Array(m), entry = new Uint32Array(m);
  let o = 0;
  for (let r = 0; r < runs.n; r++) {
    at[r] = o;
    for (let i = runs.at[r]; i < runs.at[r + 1]; i++) {
      const x = runs.keys[i];
      if (x < a || x >= b) continue;
      rk[o] = x - a;
      h0[o] = runs.h0[i];
      h1[o] = runs.h1[i];
      entry[o++] = runs.entry[i];
    }
  }
  at[runs.n] = o;
  return {
    runs: {
      ...runs,
      tp: runs.tp.slice(),
      traffic: runs.traffic.slice(),
      sig: runs.sig.slice(),
      at,
      keys: rk,
      h0,
      h1,
      entry,
      complex: runs.complex.slice(),
      blockRows: runs.blockRows.slice(),
    },
    keys: own,
  };
}

/**
 * A block's rows that join as an attribution unit: `rows` (indices in the block), the block's facts, and the
 * part's attributions and ends (stored order) from `offset`, the block's first row there (the ends from
 * `endsAt`: 0 when they are the block's own entries).
 */
export function blockUnit(
  facts: LeanFacts,
  rows: number[],
  attr: FactAttr,
  ends: FactEnds | null,
  offset: number,
  tps: (string | null)[],
  traffics: (string | null)[],
  endsAt = offset,
): AttrUnit {
  const n = rows.length;
  const pick = <T extends Uint32Array | Uint16Array | Uint8Array>(a: T, make: new (n: number) => T) => {
    const out = new make(n);
    for (let i = 0; i < n; i++) out[i] = a[rows[i]];
    return out;
  };
  const lean: LeanFacts = {
    n,
    vis: pick(facts.vis, Uint32Array),
    h1: pick(facts.h1, Uint32Array),
    h2: pick(facts.h2, Uint32Array),
    hour: pick(facts.hour, Uint32Array),
    tp: pick(facts.tp, Uint16Array),
    traffic: pick(facts.traffic, Uint8Array),
    pv: pick(facts.pv, Uint32Array),
  };
  const codes = new Uint32Array(n);
  const mRow: number[] = [], mCode: number[] = [], mPv: number[] = [];
  const m = attr.multi;
  rows.forEach((k, i) => {
    const at = offset + k;
    codes[i] = attr.codes[at];
    if (codes[i] !== MULTI_ATTR) return;
    // (the multi rows are in stored order)
    let lo = 0, hi = m.row.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (m.row[mid] < at) lo = mid + 1;
      else hi = mid;
    }
    for (let x = lo; x < m.row.length && m.row[x] === at; x++) {
      mRow.push(i);
      mCode.push(m.code[x]);
      mPv.push(m.pv[x]);
    }
  });
  let e: FactEnds | null = null;
  if (ends) {
    const pickE = <T extends Uint32Array | Float64Array>(a: T, make: new (n: number) => T) => {
      const out = new make(n);
      for (let i = 0; i < n; i++) out[i] = a[endsAt + rows[i]];
      return out;
    };
    // (only the entries are read of a unit's ends)
    e = {
      entT: pickE(ends.entT, Uint32Array),
      entDt: pickE(ends.entDt, Float64Array),
      entSeq: pickE(ends.entSeq, Float64Array),
      entPage: pickE(ends.entPage, Uint32Array),
      pages: ends.pages,
    } as FactEnds;
  }
  return {
    facts: lean,
    tps,
    traffics,
    codes,
    multi: { row: Uint32Array.from(mRow), code: Uint32Array.from(mCode), pv: Uint32Array.from(mPv) },
    tuples: attr.tuples,
    ends: e,
  };
}

/** Questions answered from runs (tests check the path was taken). */
export const runsAnswered = { count: 0 };

/**
 * One question's answer (attributionBlocker null) from a period's runs taken whole (`out`: their sessions
 * left out, marked by place in `period.vis`: a raw tail holds them too) and the joined rows (`rows.entry` set
 * when the breakdown has the entry page); `goal`: the visitor numbers with the goal event in scope.
 */
export function answerRuns(
  period: RunsPeriod,
  out: Uint8Array | null,
  rows: AttrRows,
  goal: Uint8Array | null,
  s: Scope,
  o: AggregateOptions,
  /** totals already counted for this scope, by goal (a batch's questions share them: each costs a pass over
   * every taken session) */
  totalsKept: Map<Uint8Array | null, Tally> = new Map(),
  /** marks shared by a batch's questions (one of 4 bytes a visitor number made per question was ~23 MB a
   * cold behavior_sources at 10M events) */
  scratch: RunsScratch = { stamp: 0 },
): AggregateResult {
  return runsAnswer([tallyRuns(period, out, rows, goal, s, o, totalsKept, scratch)], o);
}

/** One question's counts from a period's runs and joined rows (`answerRuns`), before figures and paging. */
export interface RunsTally {
  /** each group's key and counts (groups that counted no session left out) */
  keys: Record<string, KeyValue>[];
  tallies: Tally[];
  totals: Tally;
}

/**
 * One question's answer from the counts of one pass, or of passes over disjoint ranges of visitor numbers
 * added per group (a session, and a visitor with its conversions, is counted in its range's pass alone).
 */
export function runsAnswer(passes: RunsTally[], o: AggregateOptions): AggregateResult {
  const figures = (n: Tally) => attributionFigures(o.metrics, n);
  const result: Row[] = [];
  const totals = { sessions: 0, visitors: 0, conversions: 0 };
  if (passes.length === 1) {
    const p = passes[0];
    p.keys.forEach((key, g) => result.push({ key, metrics: figures(p.tallies[g]) }));
    return { totals: figures(p.totals), ...sortAndPage(result, o) };
  }
  const add = (to: Tally, n: Tally) => {
    to.sessions += n.sessions;
    to.visitors += n.visitors;
    to.conversions += n.conversions;
  };
  const byKey = new Map<string, { key: Record<string, KeyValue>; n: Tally }>();
  for (const p of passes) {
    add(totals, p.totals);
    p.keys.forEach((key, g) => {
      const id = JSON.stringify(Object.values(key));
      let was = byKey.get(id);
      if (!was) byKey.set(id, was = { key, n: { sessions: 0, visitors: 0, conversions: 0 } });
      add(was.n, p.tallies[g]);
    });
  }
  for (const { key, n } of byKey.values()) result.push({ key, metrics: figures(n) });
  return { totals: figures(totals), ...sortAndPage(result, o) };
}

/**
 * `answerRuns`' counts: `lo`, the first visitor number a pass over a range of them counts (its marks by
 * visitor start there).
 */
export function tallyRuns(
  period: RunsPeriod,
  out: Uint8Array | null,
  rows: AttrRows,
  goal: Uint8Array | null,
  s: Scope,
  o: AggregateOptions,
  totalsKept: Map<Uint8Array | null, Tally>,
  scratch: RunsScratch,
  lo = 0,
): RunsTally {
  runsAnswered.count++;
  // the joined rows' attributions and pages among the period's
  const tupleNums = new Numbering(tupleKey, period.tuples), pageNums = new Numbering(undefined, period.pages);
  const rowTuple = rows.tuples.map((t) => tupleNums.of(t)), rowPage = rows.pages.map((p) => pageNums.of(p));
  const tuples = tupleNums.list, pages = pageNums.list;
  const { entryAt, pvOnly, keys, attrGroup, withEntry } = attributionGroups(s, o, tuples, pages);
  // each signature's groups (by attribution values alone)
  const sigGroups = period.sigs.map((items) => {
    const gs: number[] = [];
    for (const it of items) {
      if (pvOnly && !(it & 1)) continue;
      const g = attrGroup[it >> 1];
      if (g >= 0 && !gs.includes(g)) gs.push(g);
    }
    return gs;
  });
  // per group its runs (whole: no entry page asked), its sessions one by one (by entry page) and its joined rows
  const runsOf: number[][] = [], sessionsOf: number[][] = [], rowsOf: number[][] = [];
  const listOf = (lists: number[][], g: number) => {
    while (lists.length <= g) lists.push([]);
    return lists[g];
  };
  const matchedRuns: number[] = [];
  for (let r = 0; r < period.n; r++) {
    const gs = sigGroups[period.sig[r]];
    if (!gs.length) continue;
    matchedRuns.push(r);
    for (const g of gs) {
      if (entryAt < 0) listOf(runsOf, g).push(r);
      else {
        for (let x = period.at[r]; x < period.at[r + 1]; x++) {
          listOf(sessionsOf, withEntry(g, period.entry[x])).push(x);
        }
      }
    }
  }
  const matchedRows: number[] = [];
  for (let i = 0; i < rows.n; i++) {
    const g = attrGroup[rowTuple[rows.attr[i] >> 2]];
    if (g < 0 || (pvOnly && !(rows.attr[i] & 2))) continue;
    matchedRows.push(i);
    const page = entryAt < 0 ? -1 : rows.entry![rows.sid[i]];
    listOf(rowsOf, withEntry(g, page < 0 ? -1 : rowPage[page])).push(i);
  }
  // (by entry page: whether each session taken is a people's)
  let human: Uint8Array | null = null;
  if (entryAt >= 0) {
    human = new Uint8Array(period.vis.length);
    for (let r = 0; r < period.n; r++) if (period.human[r]) human.fill(1, period.at[r], period.at[r + 1]);
  }
  const vLength = Math.max(period.visitors - lo, rows.visitors - lo, 0) + 1;
  if (!scratch.sessions || scratch.sessions.length < rows.sessions) {
    scratch.sessions = new Int32Array(rows.sessions);
  }
  if (!scratch.visitors || scratch.visitors.length < vLength) scratch.visitors = new Int32Array(vLength);
  const sMark = scratch.sessions, vMark = scratch.visitors;
  // this question's stamps come after those of the questions before it on the same marks
  const base = scratch.stamp;
  scratch.stamp += keys.length + 2;
  const tally = (own: number, runList: number[], sessionList: number[], rowList: number[]) => {
    const stamp = base + own;
    const n = { sessions: 0, visitors: 0, conversions: 0 };
    const visit = (v: number) => {
      if (vMark[v - lo] === stamp) return;
      vMark[v - lo] = stamp;
      n.visitors++;
      if (goal && goal[v]) n.conversions++;
    };
    // (indexed loops: `for of` made an iterator result per item until optimized, ~6 MB outliving young
    // collections in a cold crawl coverage at 10M events)
    for (let k = 0; k < runList.length; k++) {
      const r = runList[k], from = period.at[r], to = period.at[r + 1];
      if (!out && !period.human[r]) {
        n.sessions += to - from;
        continue;
      }
      for (let x = from; x < to; x++) {
        if (out && out[x]) continue;
        n.sessions++;
        if (period.human[r]) visit(period.vis[x]);
      }
    }
    for (let k = 0; k < sessionList.length; k++) {
      const x = sessionList[k];
      if (out && out[x]) continue;
      n.sessions++;
      if (human![x]) visit(period.vis[x]);
    }
    for (let k = 0; k < rowList.length; k++) {
      const i = rowList[k];
      if (sMark[rows.sid[i]] !== stamp) {
        sMark[rows.sid[i]] = stamp;
        n.sessions++;
      }
      if (rows.attr[i] & 1) visit(rows.vis[i]);
    }
    return n;
  };
  const counted: RunsTally = { keys: [], tallies: [], totals: { sessions: 0, visitors: 0, conversions: 0 } };
  for (let g = 0; g < keys.length; g++) {
    const rl = runsOf[g] ?? [], sl = sessionsOf[g] ?? [], wl = rowsOf[g] ?? [];
    if (!rl.length && !sl.length && !wl.length) continue;
    const n = tally(g + 1, rl, sl, wl);
    // (a group whose runs' sessions are all left out and with no row matched nothing: no row)
    if (!n.sessions) continue;
    counted.keys.push(keys[g]);
    counted.tallies.push(n);
  }
  let totals = totalsKept.get(goal);
  if (!totals) totalsKept.set(goal, totals = tally(keys.length + 1, matchedRuns, [], matchedRows));
  counted.totals = totals;
  if (human) release(human);
  return counted;
}

/** Marks by session and by visitor number that a batch's questions share, stamped past `stamp`. */
export interface RunsScratch {
  stamp: number;
  sessions?: Int32Array;
  visitors?: Int32Array;
}
