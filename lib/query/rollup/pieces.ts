/**
 * A rollup cut into the pieces questions read separately: per field (and the hours' totals) its rows
 * (additive figures and value codes) and, apart, their visitor sets; the session facts; the facts' sorted
 * device-time lists (read only when segments of a session overlap). A question reads the pieces it asks
 * about: the overview's headline reads the totals and the facts, a list its field's rows and sets.
 */
import { type Rollup, ROLLUP_FIELDS, TOTAL } from "./build.ts";
import { FACT_LAYOUT, type FactEnds, type SessionFacts } from "./session_facts.ts";

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
    values,
    tps: r.tps,
    traffics: r.traffics,
    hours: r.hours,
    facts: emptyFacts(),
  };
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
    // a row's visitors then its viewers are one contiguous range: [visAt[i], visAt[i + 1])
    p.visAt[k] = o;
    p.viewAt[k] = o + (r.viewAt[i] - r.visAt[i]);
    sets.set(r.sets.subarray(r.visAt[i], r.visAt[i + 1]), o);
    o += r.visAt[i + 1] - r.visAt[i];
  });
  p.visAt[n] = p.viewAt[n] = o;
  p.sets = sets;
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
    values: [null],
    ...head,
    facts: emptyFacts(),
  };
}
