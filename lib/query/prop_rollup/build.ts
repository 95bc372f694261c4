/**
 * Event property rollups of a batch of events (a part at compaction, or at question time a part without one,
 * or the raw tail): per UTC hour of receive time × touchpoint × traffic kind × event type (a "group"), rows of
 *  - the group's totals (key TOTAL_KEY): its events and people's visitors;
 *  - per property key the group's events carried (key present, whatever its value): an ANY row, a row per
 *    value (the value as filters read it: strings as they are, other JSON as text; JSON null is null), and
 *    a null row (events of the group where the value reads null: the key absent or null).
 * Each row has its event count and the exact set of its people's visitor numbers (lib/parts/visitor_set.ts).
 * A key the group never carried has no rows: its null row is the group's totals row.
 *
 * Bounded: an (event type, key) with more than `cap` hourly value rows in the part (durations, amounts in
 * cents) keeps its value rows merged over the part's hours (`whole`: a period holding every hour of the part
 * takes them; a part the period cuts is read for that key); past `wholeCap` distinct values or `valueBytes`
 * of value text (ids, timestamps) its value rows are not kept (`scan`: a question about that key's values
 * reads the part instead, answer.ts). ANY, null and totals rows are kept for every key, so the keys'
 * events and visitors always come from the table. An event type of more than NAME_CAP distinct names, or
 * of more than NULL_CELLS_CAP null-row adds, is counted first and not built (`tooWide`: its totals rows
 * only; questions about its keys scan), so a build's work is bounded by its input, not input × names. Values are kept whole (the tool cuts them when it shows
 * them, but two values that share their first 200 characters are two rows of the scan's answer).
 */
import type { Batch, NumCol, StrCol } from "../../parts/columns.ts";
import { encodeSet } from "../../parts/visitor_set.ts";
import { eventView, type Viewable } from "../columns/views.ts";
import { valueString } from "../columns/values.ts";
import { runSteps, runTurning, type Steps } from "../rollup/steps.ts";
import type { Turn } from "../../turns.ts";

export const HOUR_MS = 3_600_000;
/** The key code of a group's totals row. */
export const TOTAL_KEY = 0xffff;
/** The value code of a key's ANY row (the key present); 0 is null. */
export const ANY = 0xffffffff;
/** Hourly value rows of an (event type, key) a part keeps at most (more: merged over the part's hours). */
export const VALUE_CAP = 2_048;
/** Distinct values of an (event type, key) a part keeps merged at most (more: the pair is scanned). */
export const WHOLE_CAP = 16_384;
/** The hour of a row merged over all the part's hours. */
export const WHOLE = 0xffffffff;
/** Bytes of value text of an (event type, key) a part keeps at most. */
export const VALUE_BYTES_CAP = 256 * 1024;
/** Distinct property names of one event type a table keeps at most (more: the event type is `tooWide`). */
export const NAME_CAP = 2_048;
/**
 * Null-row adds of one event type a build makes at most (per hourly group its rows × its names, less the
 * pairs its rows carry; more: `tooWide`). Each is a look-up and at worst a visitor number kept: this bounds a
 * build's work and memory where names are many and sparse (680 events of 90 names each of their own: 41M).
 */
export const NULL_CELLS_CAP = 4_000_000;
/** Units of work (rows, pairs, names) between the build's pauses. */
const WORK_A_TURN = 16_384;

export interface PropRollup {
  n: number;
  /** each epoch hour with rows, with the receive-time range of its rows */
  hours: { hour: number; min: number; max: number }[];
  tps: (string | null)[];
  trs: (string | null)[];
  ets: (string | null)[];
  keys: string[];
  /** value by code; code 0 is null */
  values: (string | null)[];
  /** [event type code, key code] pairs (flattened) whose value rows are not kept */
  scan: number[];
  /** pairs whose value rows are kept merged over the part's hours (hour WHOLE) */
  whole: number[];
  /**
   * event type codes with more property names than a table keeps of one (NAME_CAP), or too many null rows
   * (NULL_CELLS_CAP): their totals rows are kept, no key rows; questions about their keys scan (absent in
   * tables written before: none)
   */
  tooWide?: number[];
  /** rows sorted by event type, key, value, hour, touchpoint, traffic */
  hour: Uint32Array;
  tp: Uint16Array;
  tr: Uint8Array;
  et: Uint16Array;
  key: Uint16Array;
  value: Uint32Array;
  events: Uint32Array;
  /** row i's visitors: sets[setAt[i], setAt[i + 1]) */
  setAt: Uint32Array;
  sets: Uint8Array;
}

export interface BuildOptions {
  /** hourly value rows kept per (event type, key); Infinity: all (question-time builds) */
  cap?: number;
  /** distinct values kept merged per (event type, key) past `cap` */
  wholeCap?: number;
  valueBytes?: number;
  /** only rows of this event type */
  eventType?: string;
  /** only these property keys (the totals rows are kept) */
  keys?: ReadonlySet<string>;
  /** names of one event type kept at most (default NAME_CAP) and null-row adds (NULL_CELLS_CAP); tests */
  nameCap?: number;
  nullCap?: number;
  /** only rows received in [from, to) */
  from?: number;
  to?: number;
}

interface Acc {
  g: number;
  k: number;
  v: number;
  events: number;
  last: number;
  vis: number[];
}

/**
 * A batch with more property names than key codes (65,534; 66 events of 1,000 names each are enough): it
 * has no table, and questions about it scan. Thrown, not cut: a table missing names would answer wrong.
 */
export class PropTableTooWide extends Error {
  constructor(keys: number) {
    super(`a batch with ${keys} property keys: at most ${TOTAL_KEY - 1} fit a table`);
  }
}

const textOf = (json: string): string | null => valueString(JSON.parse(json));

/** The property rollup of a batch; `visitorOf(i)` is row i's dense visitor number. */
export function buildPropRollup(
  b: Batch,
  visitorOf: (row: number) => number,
  o: BuildOptions = {},
): PropRollup {
  return runSteps(propRollupSteps(b, visitorOf, o));
}

/**
 * `buildPropRollup`, awaiting `turn` every WORK_A_TURN units of work (compaction, and question-time builds:
 * requests share the event loop).
 */
export function buildPropRollupTurning(
  b: Batch,
  visitorOf: (row: number) => number,
  turn: Turn,
  o: BuildOptions = {},
): Promise<PropRollup> {
  return runTurning(propRollupSteps(b, visitorOf, o), turn);
}

function* propRollupSteps(
  b: Batch,
  visitorOf: (row: number) => number,
  o: BuildOptions,
): Steps<PropRollup> {
  const cap = o.cap ?? VALUE_CAP,
    capBytes = o.valueBytes ?? VALUE_BYTES_CAP,
    wholeCap = o.wholeCap ?? WHOLE_CAP,
    nameCap = o.nameCap ?? NAME_CAP,
    nullCap = o.nullCap ?? NULL_CELLS_CAP;
  const v: Viewable = { b, n: b.n, views: new Map() };
  const t = (b.cols.t as NumCol).values;
  const tpV = eventView(v, "touchpoint"), trV = eventView(v, "traffic"), etV = eventView(v, "event_type");
  const keys: string[] = [], keyCode = new Map<string, number>();
  const kc = (k: string) => {
    let c = keyCode.get(k);
    if (c === undefined) keyCode.set(k, c = keys.push(k) - 1);
    return c;
  };
  const values: (string | null)[] = [null], valueCode = new Map<string, number>();
  const vc = (s: string | null) => {
    if (s === null) return 0;
    let c = valueCode.get(s);
    if (c === undefined) valueCode.set(s, c = values.push(s) - 1);
    return c;
  };
  const wanted = (k: string) => o.keys === undefined || o.keys.has(k);
  const etOnly = o.eventType === undefined ? -1 : etV.values.indexOf(o.eventType);
  const from = o.from ?? -Infinity, to = o.to ?? Infinity;
  const nTp = tpV.values.length, nTr = trV.values.length, nEt = etV.values.length;
  const trCodes = trV.codes, tpCodes = tpV.codes, etCodes = etV.codes;
  const inScope = (i: number) => {
    const ti = t[i];
    if (ti < from || ti >= to) return false;
    const et = etCodes.length ? etCodes[i] : 0;
    return etOnly >= 0 ? et === etOnly : o.eventType === undefined;
  };
  // First, counted before anything is built: per event type its distinct property names and the null rows'
  // adds (per hourly group: its rows × its names − the pairs its rows carry). An event type past NAME_CAP
  // names or NULL_CELLS_CAP null adds is `wide`: only its totals rows are kept, its questions scan. Only the
  // rest column's entries rows in scope use are parsed (a question about one event type never reads another's
  // names). Before, a part of 680 events of 90 distinct names each (61,200 names, under the key codes' limit)
  // was built whole: 41M null-row adds in one synchronous stretch (13 s), ~300 MB of visitor lists.
  const ownCols = Object.keys(b.cols).filter((name) => name.startsWith("p:") && wanted(name.slice(2)));
  const restCol = b.cols["p*"] as StrCol | undefined;
  const restParsed: (string[] | undefined)[] = [];
  const restValues: (unknown[] | undefined)[] = [];
  const restNames = (code: number): string[] => {
    let names = restParsed[code];
    if (names === undefined) {
      const obj = JSON.parse(restCol!.dict[code - 1]) as Record<string, unknown>;
      names = [];
      const vals: unknown[] = [];
      for (const k in obj) {
        if (Object.hasOwn(obj, k) && wanted(k)) {
          names.push(k);
          vals.push(obj[k]);
        }
      }
      restParsed[code] = names;
      restValues[code] = vals;
      work += names.length;
    }
    return names;
  };
  let work = 0;
  const etNames: Set<string>[] = Array.from({ length: Math.max(1, nEt) }, () => new Set());
  const nameOrder = new Set<string>();
  const etNull = new Float64Array(Math.max(1, nEt));
  {
    const groupNames = new Map<number, { et: number; rows: number; pairs: number; names: Set<string> }>();
    for (let i = 0; i < b.n; i++) {
      if (work >= WORK_A_TURN) {
        work = 0;
        yield;
      }
      work++;
      if (!inScope(i)) continue;
      const et = etCodes.length ? etCodes[i] : 0;
      const tp = tpCodes.length ? tpCodes[i] : 0, tr = trCodes.length ? trCodes[i] : 0;
      const gk = ((Math.floor(t[i] / HOUR_MS) * nTp + tp) * nTr + tr) * nEt + et;
      let g = groupNames.get(gk);
      if (!g) groupNames.set(gk, g = { et, rows: 0, pairs: 0, names: new Set() });
      g.rows++;
      const names = etNames[et];
      for (const name of ownCols) {
        if ((b.cols[name] as StrCol).codes[i]) {
          g.pairs++;
          g.names.add(name.slice(2));
          names.add(name.slice(2));
          nameOrder.add(name.slice(2));
        }
      }
      const rc = restCol ? restCol.codes[i] : 0;
      if (rc) {
        for (const k of restNames(rc)) {
          g.pairs++;
          g.names.add(k);
          names.add(k);
          nameOrder.add(k);
        }
        work += restParsed[rc]!.length;
      }
    }
    for (const g of groupNames.values()) etNull[g.et] += g.rows * g.names.size - g.pairs;
  }
  const wideEt = new Uint8Array(Math.max(1, nEt));
  let keptNames = 0;
  for (let et = 0; et < etNames.length; et++) {
    if (etNames[et].size > nameCap || etNull[et] > nullCap) wideEt[et] = 1;
    else keptNames += etNames[et].size;
  }
  // past the key codes (many event types near the cap): the widest event types go too, until the rest fit
  const byNames = etNames.map((_, et) => et).filter((et) => !wideEt[et])
    .sort((x, y) => etNames[y].size - etNames[x].size);
  for (const et of byNames) {
    if (keptNames < TOTAL_KEY) break;
    wideEt[et] = 1;
    keptNames -= etNames[et].size;
  }
  const keptNameSet = new Set<string>();
  etNames.forEach((names, et) => {
    if (!wideEt[et]) { for (const k of names) keptNameSet.add(k); }
  });
  // key codes: the kept event types' names, in the order rows first carried them
  for (const k of nameOrder) if (keptNameSet.has(k)) kc(k);
  const nK = keys.length;
  if (nK >= TOTAL_KEY) throw new PropTableTooWide(nK); // (never: the widest event types went above)
  // own columns: a key each, a value code per dictionary code (coded when a kept row first uses it); the rest
  // column: (key code, value code) pairs per dictionary code, made when a kept row first uses it
  const own: { k: number; codes: ArrayLike<number>; vals: Uint32Array; dict: string[] }[] = [];
  for (const name of ownCols) {
    const col = b.cols[name] as StrCol;
    const k = keyCode.get(name.slice(2));
    if (k !== undefined) {
      own.push({ k, codes: col.codes, vals: new Uint32Array(col.dict.length + 1), dict: col.dict });
    }
  }
  const restPairs: (number[] | undefined)[] = [];
  const pairsOfRest = (code: number): number[] => {
    let p = restPairs[code];
    if (p === undefined) {
      const names = restNames(code), vals = restValues[code]!;
      p = [];
      for (let j = 0; j < names.length; j++) p.push(keyCode.get(names[j])!, vc(valueString(vals[j])));
      restPairs[code] = p;
      work += names.length;
    }
    return p;
  };
  const keptRow = (i: number) => inScope(i) && !wideEt[etCodes.length ? etCodes[i] : 0];
  // value codes of the rows kept (their number is known before the rows are made)
  for (let i = 0; i < b.n; i++) {
    if (work >= WORK_A_TURN) {
      work = 0;
      yield;
    }
    work++;
    if (!keptRow(i)) continue;
    for (const c of own) {
      const code = c.codes[i];
      if (code && !c.vals[code]) c.vals[code] = vc(textOf(c.dict[code - 1])) + 1; // + 1: coded
    }
    const rc = restCol ? restCol.codes[i] : 0;
    if (rc) pairsOfRest(rc);
  }
  for (const c of own) for (let d = 0; d < c.vals.length; d++) if (c.vals[d]) c.vals[d]--;
  const nV = values.length;
  const groups = new Map<number, number>(); // group number by (hour, tp, tr, et)
  const groupOf: [number, number, number, number][] = [];
  const groupKeys: Set<number>[] = [];
  const hours = new Map<number, { hour: number; min: number; max: number }>();
  // rows in the order they were made (their order decides the kept values' numbering); a group's totals,
  // ANY and null rows by slot (most adds: no map look-up), value rows in a map
  const accs: Acc[] = [];
  const fixed: (Acc | undefined)[] = [];
  const byValue = new Map<number, Acc>();
  const make = (g: number, k: number, v: number) => {
    const a: Acc = { g, k, v, events: 0, last: -1, vis: [] };
    accs.push(a);
    return a;
  };
  const add = (g: number, k: number, val: number, human: boolean, vis: number) => {
    const gk = g * (nK + 1) + (k === TOTAL_KEY ? nK : k);
    let a: Acc | undefined;
    if (val === ANY || val === 0) {
      const slot = gk * 2 + (val === 0 ? 0 : 1);
      a = fixed[slot];
      if (!a) fixed[slot] = a = make(g, k, val);
    } else {
      const id = gk * (nV + 1) + val;
      a = byValue.get(id);
      if (!a) byValue.set(id, a = make(g, k, val));
    }
    a.events++;
    if (human && a.last !== vis) {
      a.last = vis;
      a.vis.push(vis);
    }
  };
  // rows in scope with their group and pairs, for the null rows (a group's keys are known after one pass)
  const rowsIn: number[] = [], rowGroup: number[] = [], pairAt: number[] = [0], pairs: number[] = [];
  const humanTr = Uint8Array.from(trV.values, (s) => (s === "human" ? 1 : 0));
  for (let i = 0; i < b.n; i++) {
    if (work >= WORK_A_TURN) {
      work = 0;
      yield;
    }
    work++;
    if (!inScope(i)) continue;
    const ti = t[i];
    const et = etCodes.length ? etCodes[i] : 0;
    const h = Math.floor(ti / HOUR_MS);
    const span = hours.get(h);
    if (!span) hours.set(h, { hour: h, min: ti, max: ti });
    else {
      if (ti < span.min) span.min = ti;
      if (ti > span.max) span.max = ti;
    }
    const tp = tpCodes.length ? tpCodes[i] : 0, tr = trCodes.length ? trCodes[i] : 0;
    const gk = ((h * nTp + tp) * nTr + tr) * nEt + et;
    let g = groups.get(gk);
    if (g === undefined) {
      groups.set(gk, g = groupOf.length);
      groupOf.push([h, tp, tr, et]);
      groupKeys.push(new Set());
    }
    const human = humanTr[tr] === 1, vis = human ? visitorOf(i) : -1;
    add(g, TOTAL_KEY, 0, human, vis);
    if (wideEt[et]) continue; // a wide event type: its totals only
    for (const c of own) {
      const code = c.codes[i];
      if (code) pairs.push(c.k, c.vals[code]);
    }
    const rc = restCol ? restCol.codes[i] : 0;
    if (rc) { for (const x of pairsOfRest(rc)) pairs.push(x); }
    const start = pairAt[pairAt.length - 1], keysOfGroup = groupKeys[g];
    for (let p = start; p < pairs.length; p += 2) {
      keysOfGroup.add(pairs[p]);
      add(g, pairs[p], ANY, human, vis);
      add(g, pairs[p], pairs[p + 1], human, vis);
    }
    work += pairs.length - start;
    rowsIn.push(i);
    rowGroup.push(g);
    pairAt.push(pairs.length);
  }
  // null rows: keys of the row's group the row lacks (its value null is counted above); the row's own keys
  // are marked first (one look-up a key, not a walk over its pairs)
  const has = new Int32Array(nK + 1).fill(-1);
  for (let r = 0; r < rowsIn.length; r++) {
    if (work >= WORK_A_TURN) {
      work = 0;
      yield;
    }
    const g = rowGroup[r];
    const ks = groupKeys[g];
    work += 1 + ks.size;
    if (ks.size === 0) continue;
    for (let p = pairAt[r]; p < pairAt[r + 1]; p += 2) has[pairs[p]] = r;
    const tr = groupOf[g][2], human = humanTr[tr] === 1, vis = human ? visitorOf(rowsIn[r]) : -1;
    for (const k of ks) if (has[k] !== r) add(g, k, 0, human, vis);
  }
  // (event type, key) pairs past the cap: their value rows go
  const distinct = new Map<number, { n: number; bytes: number }>();
  for (const a of accs) {
    if (a.k === TOTAL_KEY || a.v === 0 || a.v === ANY) continue;
    const pk = groupOf[a.g][3] * (nK + 1) + a.k;
    let d = distinct.get(pk);
    if (!d) distinct.set(pk, d = { n: 0, bytes: 0 });
    d.n++; // a value counts once per group here: an upper bound of the distinct values
    d.bytes += (values[a.v] as string).length;
  }
  // past the cap in hourly rows: a pair's value rows merged over the part's hours (`whole`), or, past
  // WHOLE_CAP distinct values (or the bytes cap), not kept (`scan`)
  // (one pass over the rows for all the pairs past the cap: a pass each was pairs × rows)
  const over = new Map<number, { seen: Set<number>; bytes: number }>();
  for (const [pk, d] of distinct) if (d.n > cap) over.set(pk, { seen: new Set(), bytes: 0 });
  if (over.size) {
    for (const a of accs) {
      if (++work >= WORK_A_TURN) {
        work = 0;
        yield;
      }
      if (a.k === TOTAL_KEY || a.v === 0 || a.v === ANY) continue;
      const o = over.get(groupOf[a.g][3] * (nK + 1) + a.k);
      if (!o || o.seen.has(a.v)) continue;
      o.seen.add(a.v);
      o.bytes += (values[a.v] as string).length;
    }
  }
  const wholePairs = new Set<number>(), scanPairs = new Set<number>();
  for (const [pk, o] of over) {
    if (o.seen.size > wholeCap || o.bytes > capBytes) scanPairs.add(pk);
    else wholePairs.add(pk);
  }
  const kept: Acc[] = [];
  const merged = new Map<string, Acc>(), wholeGroups = new Map<string, number>();
  for (const a of accs) {
    const value = a.k !== TOTAL_KEY && a.v !== 0 && a.v !== ANY;
    const pk = groupOf[a.g][3] * (nK + 1) + a.k;
    if (value && scanPairs.has(pk)) continue;
    if (!value || !wholePairs.has(pk)) {
      kept.push(a);
      continue;
    }
    const [, tp, tr, et] = groupOf[a.g];
    const gk = `${tp}|${tr}|${et}`;
    let g = wholeGroups.get(gk);
    if (g === undefined) wholeGroups.set(gk, g = groupOf.push([WHOLE, tp, tr, et]) - 1);
    const mk = `${g}|${a.k}|${a.v}`;
    const m = merged.get(mk);
    if (!m) merged.set(mk, { ...a, g, vis: [...a.vis] });
    else {
      m.events += a.events;
      for (const x of a.vis) m.vis.push(x);
    }
  }
  for (const m of merged.values()) kept.push(m);
  return assemble(kept, groupOf, {
    hours: [...hours.values()].sort((x, y) => x.hour - y.hour),
    tps: tpV.values,
    trs: trV.values,
    ets: etV.values,
    keys,
    values,
    scan: [...scanPairs].flatMap((pk) => [Math.floor(pk / (nK + 1)), pk % (nK + 1)]),
    whole: [...wholePairs].flatMap((pk) => [Math.floor(pk / (nK + 1)), pk % (nK + 1)]),
    tooWide: [...wideEt.keys()].filter((et) => wideEt[et] && et < etV.values.length && etNames[et].size > 0),
  });
}

type Dicts = Pick<
  PropRollup,
  "hours" | "tps" | "trs" | "ets" | "keys" | "values" | "scan" | "whole" | "tooWide"
>;

/** Rows in their order (event type, key, value, hour, touchpoint, traffic), values renumbered to those kept. */
function assemble(accs: Acc[], groupOf: [number, number, number, number][], d: Dicts): PropRollup {
  const used = new Uint32Array(d.values.length);
  const values: (string | null)[] = [null];
  for (const a of accs) {
    if (a.v !== 0 && a.v !== ANY && !used[a.v]) used[a.v] = values.push(d.values[a.v]) - 1;
  }
  const valueOf = (a: Acc) => (a.v === ANY ? ANY : a.v === 0 ? 0 : used[a.v]);
  // sorted by (event type, key, value with ANY first, hour, touchpoint, traffic), compared as four numbers a
  // row made once (a comparator reading each row's group and value code again cost more than the rest)
  const m = accs.length;
  const k1 = new Float64Array(m),
    k2 = new Float64Array(m),
    k3 = new Float64Array(m),
    k4 = new Float64Array(m);
  for (let i = 0; i < m; i++) {
    const a = accs[i], [h, tp, tr, et] = groupOf[a.g], v = valueOf(a);
    k1[i] = et * 65_536 + a.k;
    k2[i] = v === ANY ? 0 : v + 1;
    k3[i] = h;
    k4[i] = tp * 256 + tr;
  }
  const order = Array.from({ length: m }, (_, i) => i)
    .sort((x, y) => k1[x] - k1[y] || k2[x] - k2[y] || k3[x] - k3[y] || k4[x] - k4[y]);
  accs = order.map((i) => accs[i]);
  const n = accs.length;
  const r: PropRollup = {
    n,
    ...d,
    values,
    hour: new Uint32Array(n),
    tp: new Uint16Array(n),
    tr: new Uint8Array(n),
    et: new Uint16Array(n),
    key: new Uint16Array(n),
    value: new Uint32Array(n),
    events: new Uint32Array(n),
    setAt: new Uint32Array(n + 1),
    sets: new Uint8Array(0),
  };
  const encoded: Uint8Array[] = [];
  let size = 0;
  accs.forEach((a, i) => {
    const [h, tp, tr, et] = groupOf[a.g];
    r.hour[i] = h;
    r.tp[i] = tp;
    r.tr[i] = tr;
    r.et[i] = et;
    r.key[i] = a.k;
    r.value[i] = valueOf(a);
    r.events[i] = a.events;
    const s = a.vis.length ? encodeSet(a.vis) : new Uint8Array(0);
    encoded.push(s);
    r.setAt[i] = size;
    size += s.length;
  });
  r.setAt[n] = size;
  r.sets = new Uint8Array(size);
  encoded.forEach((s, i) => r.sets.set(s, r.setAt[i]));
  return r;
}

/** Decoded bytes of a rollup (the cache's weight): its arrays and ~40 bytes a dictionary string. */
export function propRollupBytes(r: PropRollup): number {
  let strings = 0;
  for (const s of r.values) strings += 40 + (s?.length ?? 0) * 2;
  return r.n * 27 + r.sets.byteLength + strings + 40 * (r.keys.length + r.ets.length + r.hours.length);
}
