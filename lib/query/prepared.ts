/**
 * A batch ready for querying: its columns plus global visitor and session numbers (interned per
 * organization and environment, so the same visitor has one number in every part) and its session runs.
 * Rows are ordered by visitor, session, time, so a session is one contiguous run inside a batch.
 */
import type { Batch, NumCol, StrCol } from "../parts/columns.ts";
import { crawlerCategory, valueString } from "./naive.ts";
import type { Interner } from "./intern.ts";

export { Interner } from "./intern.ts";

export interface EvBatch {
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
  bytes: number;
}

export const PV = 1, LEAVE = 2, AUTO = 4, HUMAN = 8, RAGE = 16;

/** A column as values by code: row i has value values[codes[i]]; values[0] is null. */
export interface View {
  codes: ArrayLike<number>;
  values: (string | null)[];
}

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

/** Each row's value of a field as its process-wide number (interner.valueIds(field)); cached per batch. */
export function fieldIds(e: EvBatch, field: string): Int32Array {
  let ids = e.ids.get(field);
  if (ids) return ids;
  const v = eventView(e, field), numbering = e.interner.valueIds(field);
  const byCode = Int32Array.from(v.values, (s) => numbering.id(s));
  ids = new Int32Array(e.n);
  if (!v.codes.length) ids.fill(byCode[0]);
  else mapCodes(v.codes, byCode, ids);
  keepIds(e, field, ids);
  return ids;
}

/** Per-row numbers of the fields questions use, a bounded few per batch (the cache counts ~4 of them). */
export function keepIds(e: EvBatch, key: string, ids: Int32Array) {
  if (e.ids.size >= 8) e.ids.delete(e.ids.keys().next().value!);
  e.ids.set(key, ids);
}

/** Per session run: the field's value number when every row of the run has the same one, else -1. */
export function runValue(e: EvBatch, field: string): Int32Array {
  const key = `run:${field}`;
  let out = e.ids.get(key);
  if (out) return out;
  const ids = fieldIds(e, field), starts = e.runStart;
  out = new Int32Array(e.runSes.length);
  for (let k = 0; k < out.length; k++) {
    const g = ids[starts[k]];
    let i = starts[k] + 1;
    while (i < starts[k + 1] && ids[i] === g) i++;
    out[k] = i === starts[k + 1] ? g : -1;
  }
  keepIds(e, key, out);
  return out;
}

export interface RunSums {
  engSum: Float64Array;
  engN: Uint32Array;
  depthSum: Float64Array;
  depthN: Uint32Array;
  rage: Uint32Array;
}
const runSumsOf = new WeakMap<EvBatch, RunSums>();

/** Per session run: engagement and scroll depth sums of its page leaves, and its rage clicks. */
export function runSums(e: EvBatch): RunSums {
  let r = runSumsOf.get(e);
  if (r) return r;
  const n = e.runSes.length, starts = e.runStart, bits = e.bits, eng = e.eng, depth = e.depth;
  r = {
    engSum: new Float64Array(n),
    engN: new Uint32Array(n),
    depthSum: new Float64Array(n),
    depthN: new Uint32Array(n),
    rage: new Uint32Array(n),
  };
  for (let k = 0; k < n; k++) {
    for (let i = starts[k]; i < starts[k + 1]; i++) {
      if (bits[i] & PV) continue;
      if (bits[i] & LEAVE) {
        const x = eng[i], y = depth[i];
        if (x === x) {
          r.engSum[k] += x;
          r.engN[k]++;
        }
        if (y === y) {
          r.depthSum[k] += y;
          r.depthN[k]++;
        }
      } else if ((bits[i] & (AUTO | RAGE)) === (AUTO | RAGE)) r.rage[k]++;
    }
  }
  runSumsOf.set(e, r);
  return r;
}

const fullRunsOf = new WeakMap<Uint8Array, Uint8Array>();

export const NO_ROWS = 0, SOME_ROWS = 1, ALL_ROWS = 2;

/**
 * Per session run: ALL_ROWS when every row of the run is set in the mask (the run is summed whole),
 * NO_ROWS when none is (the run is skipped), SOME_ROWS otherwise.
 */
export function fullRuns(e: EvBatch, mask: Uint8Array): Uint8Array {
  let out = fullRunsOf.get(mask);
  if (out) return out;
  const starts = e.runStart;
  out = new Uint8Array(e.runSes.length);
  for (let k = 0; k < out.length; k++) {
    let set = 0;
    for (let i = starts[k]; i < starts[k + 1]; i++) set += mask[i];
    out[k] = set === 0 ? NO_ROWS : set === starts[k + 1] - starts[k] ? ALL_ROWS : SOME_ROWS;
  }
  fullRunsOf.set(mask, out);
  return out;
}

function mapCodes(codes: ArrayLike<number>, byCode: Int32Array, ids: Int32Array) {
  for (let i = 0; i < ids.length; i++) ids[i] = byCode[codes[i]];
}

const NONE: View = { codes: { length: 0 }, values: [null] };

function jsonView(c: StrCol, pick: (parsed: unknown) => unknown): View {
  return { codes: c.codes, values: [null, ...c.dict.map((s) => valueString(pick(JSON.parse(s))))] };
}

/** The string values of an event field in a batch (entry_page/exit_page are resolved by the caller). */
export function eventView(e: EvBatch, field: string): View {
  let v = e.views.get(field);
  if (v) return v;
  const cols = e.b.cols;
  const col = (name: string) => cols[name] as StrCol | undefined;
  if (field === "page") v = viewOf(col("page"));
  else if (field === "crawler_category") {
    const c = col("crawler");
    v = c ? { codes: c.codes, values: [null, ...c.dict.map(crawlerCategory)] } : NONE;
  } else if (field.startsWith("utm_")) {
    const k = field.slice(4);
    const c = col("utm");
    v = c ? jsonView(c, (u) => (u as Record<string, unknown> | null)?.[k] ?? null) : NONE;
  } else if (field.startsWith("prop:")) {
    const k = field.slice(5);
    const own = col(`p:${k}`);
    if (own) v = jsonView(own, (x) => x);
    else {
      const rest = col("p*");
      v = rest ? jsonView(rest, (o) => (o as Record<string, unknown>)[k] ?? null) : NONE;
    }
  } else v = viewOf(col(field));
  e.views.set(field, v);
  return v;
}

function viewOf(c: StrCol | undefined): View {
  return c ? { codes: c.codes, values: [null, ...c.dict] } : NONE;
}

/** Value at row i of a view (NONE has no codes: always null). */
export const viewAt = (v: View, i: number) => (v.codes.length ? v.values[v.codes[i]] : null);

/** Numbers of a property per code (NaN when the value is not a number), e.g. engagement_time_ms. */
export function numericProp(e: EvBatch, key: string): { codes: ArrayLike<number>; nums: Float64Array } {
  const cached = e.views.get(`#${key}`) as unknown as
    | { codes: ArrayLike<number>; nums: Float64Array }
    | undefined;
  if (cached) return cached;
  const cols = e.b.cols;
  const own = cols[`p:${key}`] as StrCol | undefined;
  const src = own ?? (cols["p*"] as StrCol | undefined);
  let out: { codes: ArrayLike<number>; nums: Float64Array };
  if (!src) out = { codes: new Uint8Array(e.n), nums: new Float64Array([NaN]) };
  else if (own?.dictJson) out = { codes: own.codes, nums: numbersOfJsonDict(own.dictJson) };
  else {
    const nums = new Float64Array(src.dict.length + 1).fill(NaN);
    src.dict.forEach((s, i) => {
      // a JSON number reads the same with Number(), which is much cheaper than JSON.parse
      const fast = own ? Number(s) : NaN;
      if (Number.isFinite(fast)) nums[i + 1] = fast;
      else {
        const parsed = JSON.parse(s);
        const x = own ? parsed : parsed?.[key];
        if (typeof x === "number" && Number.isFinite(x)) nums[i + 1] = x;
      }
    });
    out = { codes: src.codes, nums };
  }
  e.views.set(`#${key}`, out as unknown as View);
  return out;
}

const QUOTE = 34, COMMA = 44, MINUS = 45, ZERO = 48, NINE = 57;
const latin = new TextDecoder("latin1");

/**
 * Numbers of a property column's dictionary (a JSON array of JSON texts) straight from its bytes: entry k
 * at index k + 1, NaN where the value is not a number. Same answers as JSON.parse of each entry (digits
 * only take the fast path; anything else numeric goes through Number()), without making a string per entry.
 */
export function numbersOfJsonDict(json: Uint8Array): Float64Array {
  const out: number[] = [NaN];
  let i = json.indexOf(91) + 1; // "["
  while (i < json.length) {
    while (i < json.length && json[i] !== QUOTE && json[i] !== 93) i++;
    if (i >= json.length || json[i] === 93) break;
    const s = ++i; // entry text starts after its quote; a backslash means a string, object or escape
    let plain = true, digits = true;
    while (json[i] !== QUOTE) {
      const c = json[i];
      if (c === 92) {
        plain = false;
        i += 2;
        continue;
      }
      if (!((c >= ZERO && c <= NINE) || (c === MINUS && i === s))) digits = false;
      i++;
    }
    const e = i++;
    let x = NaN;
    if (plain && digits && e - s > (json[s] === MINUS ? 1 : 0) && e - s <= 15) {
      let acc = 0;
      for (let k = json[s] === MINUS ? s + 1 : s; k < e; k++) acc = acc * 10 + (json[k] - ZERO);
      x = json[s] === MINUS ? -acc : acc;
    } else if (plain && e > s) {
      const n = Number(latin.decode(json.subarray(s, e)));
      x = Number.isFinite(n) && /^-?[0-9.eE+-]+$/.test(latin.decode(json.subarray(s, e))) ? n : NaN;
    }
    out.push(x);
    while (i < json.length && json[i] !== COMMA && json[i] !== 93) i++;
  }
  return Float64Array.from(out);
}
