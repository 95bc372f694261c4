/**
 * Feature tables of a batch of events (a part at compaction, or at question time a part without one, a part
 * the period cuts, or the raw tail): what behavior_features asks of `$autocapture` events, per UTC hour of
 * receive time × touchpoint × traffic kind × action × page × element × form (`prop:form_element`) × the
 * element's name without its text (`prop:element_plain`, null on events stored before ingest set it) × rage
 * flag (`prop:rage_click` reads "true"), each row with
 *  - its event count (a rage row's events are its rage clicks);
 *  - the exact set of its people's visitor numbers (lib/parts/visitor_set.ts);
 *  - for rows of an action in SESSION_ACTIONS (form changes: the tool counts their sessions), its sessions
 *    as (visitor number, two 32-bit hashes of the session id), sorted and distinct: a session in several
 *    hours or parts is one session when joined (rollup/session_facts.ts does the same; two sessions of one
 *    visitor share both hashes with a chance below 2^-60).
 * Values are kept as the scan reads them (columns/views.ts): page and element as stored, the properties as
 * filters read them (strings as they are, other JSON as text, JSON null is null).
 */
import type { Batch, NumCol, StrCol } from "../../parts/columns.ts";
import { encodeSet } from "../../parts/visitor_set.ts";
import { eventView, type Viewable } from "../columns/views.ts";
import { idHashes } from "../rollup/session_facts.ts";

export const HOUR_MS = 3_600_000;
/** The event type the table keeps. */
export const FEATURE_EVENT = "$autocapture";
/** Actions whose rows keep their sessions (the tool asks sessions of form changes only). */
export const SESSION_ACTIONS: ReadonlySet<string> = new Set(["change"]);

export interface FeatureTable {
  n: number;
  /** each epoch hour with rows, with the receive-time range of its rows */
  hours: { hour: number; min: number; max: number }[];
  tps: (string | null)[];
  trs: (string | null)[];
  /** values of action, page, element, form and plain name by code; code 0 is null */
  texts: (string | null)[];
  /** rows sorted by hour (WHOLE: merged over the hours), touchpoint, traffic, action, page, element, form,
   * plain name, rage */
  hour: Uint32Array;
  tp: Uint16Array;
  tr: Uint8Array;
  action: Uint32Array;
  page: Uint32Array;
  element: Uint32Array;
  form: Uint32Array;
  plain: Uint32Array;
  rage: Uint8Array;
  events: Uint32Array;
  /** row i's people's visitors: sets[setAt[i], setAt[i + 1]) */
  setAt: Uint32Array;
  sets: Uint8Array;
  /** row i's sessions: [sesAt[i], sesAt[i + 1]) of sesVis, sesH1, sesH2 (empty unless a session action) */
  sesAt: Uint32Array;
  sesVis: Uint32Array;
  sesH1: Uint32Array;
  sesH2: Uint32Array;
}

export interface FeatureBuildOptions {
  /** only rows received in [from, to) */
  from?: number;
  to?: number;
}

interface Acc {
  dims: number[]; // hour, tp, tr, action, page, element, form, plain, rage
  events: number;
  vis: number[];
  /** session triples (visitor, h1, h2), repeats allowed */
  ses: number[] | null;
}

/** The columns a feature table reads of a part (`p:` columns by key, the shared `p*`). */
export const FEATURE_COLUMNS = new Set([
  "t",
  "anon",
  "session",
  "touchpoint",
  "traffic",
  "event_type",
  "page",
  "element",
  "p:action",
  "p:rage_click",
  "p:form_element",
  "p:element_plain",
  "p*",
]);

/** The hour of a row merged over all the batch's hours. */
export const WHOLE = 0xffffffff;

/**
 * A batch's feature tables: by hour (`hourly`), and merged over its hours (`whole`: the rows a period taking
 * every hour of the batch reads, a fraction of the hourly ones as a part holds a day).
 */
export interface FeatureTables {
  hourly: FeatureTable;
  whole: FeatureTable;
}

/** The feature tables of a batch; `visitorOf(i)` is row i's dense visitor number. */
export function buildFeatureTable(
  b: Batch,
  visitorOf: (row: number) => number,
  o: FeatureBuildOptions = {},
): FeatureTables {
  const v: Viewable = { b, n: b.n, views: new Map() };
  const etV = eventView(v, "event_type");
  const auto = etV.values.indexOf(FEATURE_EVENT);
  const texts: (string | null)[] = [null], textCode = new Map<string, number>();
  const tc = (s: string | null) => {
    if (s === null) return 0;
    let c = textCode.get(s);
    if (c === undefined) textCode.set(s, c = texts.push(s) - 1);
    return c;
  };
  if (auto < 0 || !etV.codes.length) return { hourly: emptyFeatureTable(), whole: emptyFeatureTable() };
  const t = (b.cols.t as NumCol).values;
  const session = b.cols.session as StrCol;
  const tpV = eventView(v, "touchpoint"), trV = eventView(v, "traffic");
  // per view, its values' text codes, given on first use (a view holds the values of every event type)
  const coded = (field: string) => {
    const x = eventView(v, field);
    return { codes: x.codes, values: x.values, to: new Int32Array(x.values.length).fill(-1) };
  };
  const action = coded("prop:action"),
    page = coded("page"),
    element = coded("element"),
    form = coded("prop:form_element"),
    plain = coded("prop:element_plain");
  const rageV = eventView(v, "prop:rage_click");
  const rageOf = Uint8Array.from(rageV.values, (x) => (x === "true" ? 1 : 0));
  const sesAction = Uint8Array.from(action.values, (x) => (x !== null && SESSION_ACTIONS.has(x) ? 1 : 0));
  const humanTr = Uint8Array.from(trV.values, (s) => (s === "human" ? 1 : 0));
  const at = (x: ReturnType<typeof coded>, i: number) => {
    if (!x.codes.length) return 0;
    const c = x.codes[i];
    let k = x.to[c];
    if (k < 0) k = x.to[c] = tc(x.values[c]);
    return k;
  };
  const from = o.from ?? -Infinity, to = o.to ?? Infinity;
  const hours = new Map<number, { hour: number; min: number; max: number }>();
  const accs = new Map<string, Acc>(), wholeAccs = new Map<string, Acc>();
  const hashes = new Map<number, [number, number]>();
  for (let i = 0; i < b.n; i++) {
    if (etV.codes[i] !== auto) continue;
    const ti = t[i];
    if (ti < from || ti >= to) continue;
    const h = Math.floor(ti / HOUR_MS);
    const span = hours.get(h);
    if (!span) hours.set(h, { hour: h, min: ti, max: ti });
    else {
      if (ti < span.min) span.min = ti;
      if (ti > span.max) span.max = ti;
    }
    const tr = trV.codes.length ? trV.codes[i] : 0;
    const dims = [
      h,
      tpV.codes.length ? tpV.codes[i] : 0,
      tr,
      at(action, i),
      at(page, i),
      at(element, i),
      at(form, i),
      at(plain, i),
      rageV.codes.length ? rageOf[rageV.codes[i]] : 0,
    ];
    const withSessions = action.codes.length > 0 && sesAction[action.codes[i]] === 1;
    const vis = visitorOf(i), human = humanTr[tr] === 1;
    let hs: [number, number] | undefined;
    if (withSessions) {
      const sc = session.codes[i];
      hs = hashes.get(sc);
      if (!hs) hashes.set(sc, hs = idHashes(sc === 0 ? "" : session.dict[sc - 1]));
    }
    const id = dims.join(",");
    const wid = id.slice(id.indexOf(",") + 1);
    for (const [map, key, ds] of [[accs, id, dims], [wholeAccs, wid, null]] as const) {
      let acc = map.get(key);
      if (!acc) {
        map.set(
          key,
          acc = { dims: ds ?? [WHOLE, ...dims.slice(1)], events: 0, vis: [], ses: hs ? [] : null },
        );
      }
      acc.events++;
      if (human) acc.vis.push(vis);
      if (acc.ses && hs) acc.ses.push(vis, hs[0], hs[1]);
    }
  }
  const d = {
    hours: [...hours.values()].sort((x, y) => x.hour - y.hour),
    tps: tpV.values,
    trs: trV.values,
    texts,
  };
  return { hourly: assemble([...accs.values()], d), whole: assemble([...wholeAccs.values()], d) };
}

/** Distinct session triples of a flat (visitor, h1, h2) list, sorted. */
export function distinctSessions(flat: number[]): number[] {
  const order = Array.from({ length: flat.length / 3 }, (_, k) => k);
  order.sort((x, y) =>
    flat[3 * x] - flat[3 * y] || flat[3 * x + 1] - flat[3 * y + 1] || flat[3 * x + 2] - flat[3 * y + 2]
  );
  const out: number[] = [];
  for (const k of order) {
    const v = flat[3 * k], a = flat[3 * k + 1], c = flat[3 * k + 2], m = out.length;
    if (m && out[m - 3] === v && out[m - 2] === a && out[m - 1] === c) continue;
    out.push(v, a, c);
  }
  return out;
}

type Dicts = Pick<FeatureTable, "hours" | "tps" | "trs" | "texts">;

/** A row's dimensions: hour, touchpoint, traffic, action, page, element, form, plain name, rage. */
const DIMS = 9;

function assemble(accs: Acc[], d: Dicts): FeatureTable {
  accs.sort((x, y) => {
    for (let k = 0; k < DIMS; k++) if (x.dims[k] !== y.dims[k]) return x.dims[k] - y.dims[k];
    return 0;
  });
  const n = accs.length;
  const sets: Uint8Array[] = [], sess: number[][] = [];
  let setBytes = 0, sesN = 0;
  const setAt = new Uint32Array(n + 1), sesAt = new Uint32Array(n + 1);
  accs.forEach((a, i) => {
    const s = a.vis.length ? encodeSet(a.vis) : new Uint8Array(0);
    sets.push(s);
    setAt[i] = setBytes;
    setBytes += s.length;
    const ss = a.ses ? distinctSessions(a.ses) : [];
    sess.push(ss);
    sesAt[i] = sesN;
    sesN += ss.length / 3;
  });
  setAt[n] = setBytes;
  sesAt[n] = sesN;
  const col = <T extends Uint32Array | Uint16Array | Uint8Array>(T: new (n: number) => T, k: number) => {
    const out = new T(n);
    accs.forEach((a, i) => (out[i] = a.dims[k]));
    return out;
  };
  const r: FeatureTable = {
    n,
    ...d,
    hour: col(Uint32Array, 0),
    tp: col(Uint16Array, 1),
    tr: col(Uint8Array, 2),
    action: col(Uint32Array, 3),
    page: col(Uint32Array, 4),
    element: col(Uint32Array, 5),
    form: col(Uint32Array, 6),
    plain: col(Uint32Array, 7),
    rage: col(Uint8Array, 8),
    events: Uint32Array.from(accs, (a) => a.events),
    setAt,
    sets: new Uint8Array(setBytes),
    sesAt,
    sesVis: new Uint32Array(sesN),
    sesH1: new Uint32Array(sesN),
    sesH2: new Uint32Array(sesN),
  };
  sets.forEach((s, i) => r.sets.set(s, setAt[i]));
  sess.forEach((ss, i) => {
    for (let k = 0, at = sesAt[i]; k < ss.length; k += 3, at++) {
      r.sesVis[at] = ss[k];
      r.sesH1[at] = ss[k + 1];
      r.sesH2[at] = ss[k + 2];
    }
  });
  return r;
}

/** A table without rows. */
export function emptyFeatureTable(): FeatureTable {
  return assemble([], { hours: [], tps: [], trs: [], texts: [null] });
}

/** Decoded bytes of a table (the cache's weight): its arrays and ~40 bytes a dictionary string. */
export function featureTableBytes(r: FeatureTable): number {
  let strings = 0;
  for (const s of r.texts) strings += 40 + (s?.length ?? 0) * 2;
  return r.n * 40 + r.sets.byteLength + r.sesVis.length * 12 + strings + 40 * r.hours.length;
}
