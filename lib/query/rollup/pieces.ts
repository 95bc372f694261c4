/**
 * A rollup cut into the pieces questions read separately: per field (and the hours' totals) its rows
 * (additive figures and value codes) and, apart, their visitor sets; the session facts; the facts' sorted
 * device-time lists (read only when segments of a session overlap). A question reads the pieces it asks
 * about: the overview's headline reads the totals and the facts, a list its field's rows and sets.
 */
import { type Rollup, ROLLUP_FIELDS, TOTAL } from "./build.ts";
import { addRowReporters, NO_REPORTERS, packReporters } from "./reporters.ts";
import { ENDS_LAYOUT, FACT_LAYOUT, type FactEnds, type SessionFacts } from "./session_facts.ts";

/** What every piece of a part's rollup shares: its hours (with their receive-time ranges), touchpoints, traffic kinds. */
export interface RollupHead {
  hours: Rollup["hours"];
  tps: (string | null)[];
  traffics: (string | null)[];
}

/** The sorted (device time, number) lists of the session facts' people's rows. */
export interface FactLists {
  listAt: Uint32Array;
  listDt: Float64Array;
  listSeq: Float64Array;
}

/**
 * A part's rollup as questions read it: `field(f)` is a Rollup holding only field f's rows (TOTAL: the hours'
 * totals), with their visitor sets when asked for; `facts` the session facts without their lists; `lists`
 * those lists (null until read).
 */
export interface RollupParts extends RollupHead {
  field(f: number): Rollup;
  facts: SessionFacts | null;
  lists: FactLists | null;
  /** each fact row's first and last pageview, when asked for */
  ends: FactEnds | null;
}

export const EMPTY_SETS = new Uint8Array(0);

/** Facts with no rows (pieces of fields carry these). */
export function emptyFacts(): SessionFacts {
  const f = Object.fromEntries(FACT_LAYOUT.map(([name, T]) => [name, new T(0)])) as unknown as SessionFacts;
  f.n = 0;
  f.listAt = new Uint32Array(1);
  f.listDt = new Float64Array(0);
  f.listSeq = new Float64Array(0);
  f.ends = null;
  return f;
}

/**
 * The facts every decoded field piece carries (it has none): one frozen object, not ~20 empty arrays made per
 * piece (a cold overview at 10M events decodes ~3,000 pieces).
 */
export const NO_FACTS: SessionFacts = Object.freeze(emptyFacts());

/** The fields a rollup has rows for: each field index and TOTAL. */
export const PIECE_FIELDS: number[] = [TOTAL, ...ROLLUP_FIELDS.map((_, i) => i)];

/** Field f's rows of a whole rollup as a rollup of their own (values renumbered, sets copied). */
export function fieldPiece(r: Rollup, f: number): Rollup {
  const idx: number[] = [];
  for (let i = 0; i < r.n; i++) if (r.field[i] === f) idx.push(i);
  const n = idx.length;
  const values: (string | null)[] = [null];
  const local = new Map<number, number>([[0, 0]]);
  const p: Rollup = {
    n,
    hour: new Uint32Array(n),
    tp: new Uint16Array(n),
    traffic: new Uint8Array(n),
    field: new Uint8Array(n).fill(f),
    value: new Uint32Array(n),
    events: new Uint32Array(n),
    pageviews: new Uint32Array(n),
    rage: new Uint32Array(n),
    engN: new Uint32Array(n),
    scrollN: new Uint32Array(n),
    engSum: new Float64Array(n),
    scrollSum: new Float64Array(n),
    visAt: new Uint32Array(n + 1),
    viewAt: new Uint32Array(n + 1),
    sets: EMPTY_SETS,
    repAt: NO_REPORTERS,
    rep: NO_REPORTERS,
    values,
    tps: r.tps,
    traffics: r.traffics,
    hours: r.hours,
    facts: emptyFacts(),
  };
  const reps: number[][] = [];
  let bytes = 0;
  for (let k = 0; k < n; k++) bytes += r.visAt[idx[k] + 1] - r.visAt[idx[k]];
  const sets = new Uint8Array(bytes);
  let o = 0;
  idx.forEach((i, k) => {
    p.hour[k] = r.hour[i];
    p.tp[k] = r.tp[i];
    p.traffic[k] = r.traffic[i];
    let v = local.get(r.value[i]);
    if (v === undefined) local.set(r.value[i], v = values.push(r.values[r.value[i]]) - 1);
    p.value[k] = v;
    p.events[k] = r.events[i];
    p.pageviews[k] = r.pageviews[i];
    p.rage[k] = r.rage[i];
    p.engN[k] = r.engN[i];
    p.scrollN[k] = r.scrollN[i];
    p.engSum[k] = r.engSum[i];
    p.scrollSum[k] = r.scrollSum[i];
    const rep: number[] = [];
    addRowReporters(rep, r, i);
    reps.push(rep);
    // a row's visitors then its viewers are one contiguous range: [visAt[i], visAt[i + 1])
    p.visAt[k] = o;
    p.viewAt[k] = o + (r.viewAt[i] - r.visAt[i]);
    sets.set(r.sets.subarray(r.visAt[i], r.visAt[i + 1]), o);
    o += r.visAt[i + 1] - r.visAt[i];
  });
  p.visAt[n] = p.viewAt[n] = o;
  p.sets = sets;
  Object.assign(p, packReporters(reps));
  return p;
}

/** A whole rollup (the raw tail's, built per question) as parts: every field's rows are in it. */
export function wholeParts(r: Rollup): RollupParts {
  return {
    hours: r.hours,
    tps: r.tps,
    traffics: r.traffics,
    field: () => r,
    facts: r.facts,
    lists: { listAt: r.facts.listAt, listDt: r.facts.listDt, listSeq: r.facts.listSeq },
    ends: r.facts.ends,
  };
}

/** A field's piece with no rows (the part has no value of it in scope). */
export function emptyPiece(head: RollupHead, f: number): Rollup {
  const z = new Uint32Array(0);
  return {
    n: 0,
    hour: z,
    tp: new Uint16Array(0),
    traffic: new Uint8Array(0),
    field: new Uint8Array(0).fill(f),
    value: z,
    events: z,
    pageviews: z,
    rage: z,
    engN: z,
    scrollN: z,
    engSum: new Float64Array(0),
    scrollSum: new Float64Array(0),
    visAt: new Uint32Array(1),
    viewAt: new Uint32Array(1),
    sets: EMPTY_SETS,
    repAt: NO_REPORTERS,
    rep: NO_REPORTERS,
    values: [null],
    ...head,
    facts: emptyFacts(),
  };
}

/** Fact rows `rows` of f, in that order, with their lists and ends (a block of the stored facts). */
export function sliceFacts(f: SessionFacts, rows: ArrayLike<number>): SessionFacts {
  const n = rows.length;
  const out = Object.fromEntries(FACT_LAYOUT.map(([name, T]) => {
    const from = f[name] as unknown as ArrayLike<number>, to = new T(n) as unknown as number[];
    for (let i = 0; i < n; i++) to[i] = from[rows[i]];
    return [name, to];
  })) as unknown as SessionFacts;
  out.n = n;
  out.listAt = new Uint32Array(n + 1);
  let size = 0;
  for (let i = 0; i < n; i++) size += f.listAt[rows[i] + 1] - f.listAt[rows[i]];
  out.listDt = new Float64Array(size);
  out.listSeq = new Float64Array(size);
  let o = 0;
  for (let i = 0; i < n; i++) {
    out.listAt[i] = o;
    const a = f.listAt[rows[i]], b = f.listAt[rows[i] + 1];
    out.listDt.set(f.listDt.subarray(a, b), o);
    out.listSeq.set(f.listSeq.subarray(a, b), o);
    o += b - a;
  }
  out.listAt[n] = o;
  out.ends = null;
  if (f.ends) {
    const e = f.ends, ends = { pages: e.pages } as Record<string, unknown>;
    for (const [name, T] of ENDS_LAYOUT) {
      const from = e[name] as ArrayLike<number>, to = new T(n) as unknown as number[];
      for (let i = 0; i < n; i++) to[i] = from[rows[i]];
      ends[name] = to;
    }
    out.ends = ends as unknown as FactEnds;
  }
  return out;
}

/** Blocks of facts (lists aside) as one, in order. */
export function concatFacts(blocks: SessionFacts[]): SessionFacts {
  if (blocks.length === 1) return blocks[0];
  const n = blocks.reduce((s, b) => s + b.n, 0);
  const out = Object.fromEntries(FACT_LAYOUT.map(([name, T]) => {
    const to = new T(n) as unknown as { set(a: ArrayLike<number>, o: number): void };
    let o = 0;
    for (const b of blocks) {
      to.set(b[name] as unknown as ArrayLike<number>, o);
      o += b.n;
    }
    return [name, to];
  })) as unknown as SessionFacts;
  out.n = n;
  out.listAt = new Uint32Array(n + 1);
  out.listDt = new Float64Array(0);
  out.listSeq = new Float64Array(0);
  out.ends = null;
  return out;
}

/** Blocks' device-time lists as one, in order (`counts[i]`: block i's fact rows). */
export function concatLists(blocks: (FactLists | null)[], counts: number[]): FactLists {
  const n = counts.reduce((s, c) => s + c, 0);
  const size = blocks.reduce((s, b) => s + (b ? b.listDt.length : 0), 0);
  const out: FactLists = {
    listAt: new Uint32Array(n + 1),
    listDt: new Float64Array(size),
    listSeq: new Float64Array(size),
  };
  let row = 0, o = 0;
  blocks.forEach((b, i) => {
    for (let k = 0; k < counts[i]; k++) out.listAt[row + k] = o + (b ? b.listAt[k] : 0);
    if (b) {
      out.listDt.set(b.listDt, o);
      out.listSeq.set(b.listSeq, o);
      o += b.listDt.length;
    }
    row += counts[i];
  });
  out.listAt[n] = o;
  return out;
}
