/**
 * A batch ready for querying: its columns plus global visitor and session numbers (interned per
 * organization and environment, so the same visitor has one number in every part) and its session runs.
 * Rows are ordered by visitor, session, time, so a session is one contiguous run inside a batch.
 */
import type { Batch, NumCol, StrCol } from "../../parts/columns.ts";
import { batchBytes } from "../../parts/codec.ts";
import type { Interner } from "./intern.ts";
import { eventView, numericProp, type View, type Viewable } from "./views.ts";

export interface EvBatch extends Viewable {
  b: Batch;
  n: number;
  t: Float64Array;
  dt: Float64Array;
  seq: Float64Array;
  vis: Uint32Array;
  ses: Uint32Array;
  /** session runs: rows runStart[k] .. runStart[k+1]-1 belong to session runSes[k] of visitor runVis[k] */
  runStart: Uint32Array;
  runSes: Uint32Array;
  runVis: Uint32Array;
  /** per session run: its pageviews and its human rows (a run is summed whole when all its rows match) */
  runPv: Uint32Array;
  runHuman: Uint32Array;
  views: Map<string, View>;
  /** per field: each row's value as a process-wide number (see fieldIds) */
  ids: Map<string, Int32Array>;
  interner: Interner;
  /** rows in scope, by scope (a few recent scopes are kept: questions come in groups over one period) */
  scopeMasks: Map<string, Uint8Array>;
  /** per row: 1 pageview, 2 pageleave, 4 autocapture, 8 human traffic, 16 rage click */
  bits: Uint8Array;
  /** per row: engagement_time_ms / depth_percent of the event, NaN when absent or not a number */
  eng: Float64Array;
  depth: Float64Array;
  /** the decoded size told up front (every column decoded): see `heldBytes` for what it holds */
  bytes: number;
  /** per-row arrays made on first use (engagement, scroll depth), for `heldBytes` */
  made: Float64Array[];
}

/**
 * Bytes a batch holds now: its columns as read so far (codec.ts batchBytes), its row and run arrays, the
 * per-row numbers and scope masks questions kept with it, and its views' strings (roughly). The part cache
 * weighs a kept part by this, again each time a question takes it (columns decode as questions read
 * them): weighed by `bytes` (every column decoded, dictionaries as strings) a 1M-event month's parts
 * counted 162-170 MB for ~100-120 held, and what questions derive and keep beside them (a cohort's
 * members, session facts) was pushed out and made again by every question under a cohort.
 */
export function heldBytes(e: EvBatch): number {
  let n = batchBytes(e.b);
  for (const a of [e.vis, e.ses, e.runStart, e.runSes, e.runVis, e.runPv, e.runHuman, e.bits]) {
    n += a.byteLength;
  }
  for (const a of e.made) n += a.byteLength;
  for (const a of e.ids.values()) n += a.byteLength;
  for (const a of e.scopeMasks.values()) n += a.byteLength;
  for (const v of e.views.values()) n += viewBytes(v);
  return n;
}

/** A view's string values (or a numeric property's numbers), counted once a view: views do not change. */
const viewSizes = new WeakMap<object, number>();
function viewBytes(view: object): number {
  let n = viewSizes.get(view);
  if (n !== undefined) return n;
  // its codes are a column's, counted with the columns
  const v = view as { values?: unknown; nums?: Float64Array };
  n = v.nums?.byteLength ?? 0;
  if (Array.isArray(v.values)) {
    for (const s of v.values) {
      n += typeof s === "string" ? 16 + 2 * s.length : 8;
    }
  }
  viewSizes.set(view, n);
  return n;
}

export const PV = 1, LEAVE = 2, AUTO = 4, HUMAN = 8, RAGE = 16;

/**
 * `decodedBytes`: the batch's columns' decoded size when known up front (parts decode columns lazily;
 * touching every column to measure it would decode them all).
 */
export function prepareEvents(b: Batch, interner: Interner, decodedBytes?: number): EvBatch {
  const n = b.n;
  const anon = b.cols.anon as StrCol, session = b.cols.session as StrCol;
  const vis = new Uint32Array(n), ses = new Uint32Array(n);
  const starts: number[] = [], runSes: number[] = [], runVis: number[] = [];
  let pa = -1, ps = -1, v = 0;
  // a part's dictionaries are packed bytes: numbered without making strings (see intern.ts)
  const visOf = new Int32Array(anon.packed ? anon.packed.offsets.length : anon.dict.length + 1).fill(-1);
  for (let i = 0; i < n; i++) {
    const a = anon.codes[i], s = session.codes[i];
    if (a !== pa || s !== ps) {
      if (a !== pa) {
        v = visOf[a];
        if (v < 0) {
          v = visOf[a] = anon.packed
            ? interner.visBytes(anon.packed.bytes, anon.packed.offsets[a - 1], anon.packed.offsets[a])
            : interner.vis(anon.dict[a - 1]);
        }
      }
      const sid = session.packed
        ? interner.sesBytes(v, session.packed.bytes, session.packed.offsets[s - 1], session.packed.offsets[s])
        : interner.ses(v, session.dict[s - 1]);
      starts.push(i);
      runSes.push(sid);
      runVis.push(v);
      pa = a;
      ps = s;
    }
    vis[i] = v;
    ses[i] = runSes[runSes.length - 1];
  }
  starts.push(n);
  const num = (c: string) => (b.cols[c] as NumCol).values;
  // decoded size: codes and numbers, dictionaries (strings take about twice their UTF-8 size), row arrays
  const columns = decodedBytes !== undefined ? decodedBytes : Object.values(b.cols).reduce(
    (s, c) =>
      s +
      (c.kind === "num"
        ? c.values.byteLength
        : c.codes.byteLength + 3 * (c.dictBytes ?? 32 * c.codes.length)),
    0,
  );
  const bytes = columns + 12 * starts.length + 4 * n;
  // device time, sequence number, engagement and scroll depth are read by few questions: made on first use
  let dt: Float64Array | undefined, seq: Float64Array | undefined;
  let eng: Float64Array | undefined, depth: Float64Array | undefined;
  const perRow = (key: string) => {
    const p = numericProp(out, key), v = new Float64Array(n);
    for (let i = 0; i < n; i++) v[i] = p.nums[p.codes[i] ?? 0];
    out.made.push(v);
    return v;
  };
  const out: EvBatch = {
    b,
    n,
    bits: new Uint8Array(n),
    get eng() {
      return eng ??= perRow("engagement_time_ms");
    },
    get depth() {
      return depth ??= perRow("depth_percent");
    },
    t: num("t"),
    get dt() {
      return dt ??= num("dt");
    },
    get seq() {
      return seq ??= num("seq");
    },
    vis,
    ses,
    runStart: Uint32Array.from(starts),
    runSes: Uint32Array.from(runSes),
    runVis: Uint32Array.from(runVis),
    runPv: new Uint32Array(runVis.length),
    runHuman: new Uint32Array(runVis.length),
    views: new Map(),
    ids: new Map(),
    interner,
    scopeMasks: new Map(),
    bytes: bytes + 33 * n,
    made: [],
  };
  const et = eventView(out, "event_type"),
    tr = eventView(out, "traffic"),
    rage = eventView(out, "prop:rage_click");
  const etBits = Uint8Array.from(
    et.values,
    (v) => (v === "$pageview" ? PV : v === "$pageleave" ? LEAVE : v === "$autocapture" ? AUTO : 0),
  );
  const humanBits = Uint8Array.from(tr.values, (v) => (v === "human" ? HUMAN : 0));
  const rageBits = Uint8Array.from(rage.values, (v) => (v === "true" ? RAGE : 0));
  const bits = out.bits;
  tableBits(bits, et.codes, etBits);
  tableBits(bits, tr.codes, humanBits);
  if (rage.codes.length) tableBits(bits, rage.codes, rageBits);
  for (let k = 0; k < runVis.length; k++) {
    let pv = 0, human = 0;
    for (let i = starts[k]; i < starts[k + 1]; i++) {
      pv += bits[i] & PV;
      human += (bits[i] & HUMAN) >> 3;
    }
    out.runPv[k] = pv;
    out.runHuman[k] = human;
  }
  return out;
}

/** bits[i] |= table[codes[i]] */
function tableBits(bits: Uint8Array, codes: ArrayLike<number>, table: Uint8Array) {
  for (let i = 0; i < bits.length; i++) bits[i] |= table[codes[i]];
}
