/**
 * A cut hour's rows (reader.ts `inPeriod`: a period's end inside an hour of a part, its rows on both sides) as
 * the raw tail's rollup reads them: only the columns that rollup reads (`CUT_COLUMNS`), read from KV a few at
 * a time and each inflated alone, the hour's rows taken and the rest let go at once. The raw tail's records
 * and those rows make one batch (`tailBatch`): the rows in the order and the strings code for code as
 * `buildEventBatch` gives them from the records the part's rows would make, in the columns the rollup reads,
 * so its rollup is the same (tests/lib/query/rollup_cut_columns_test.ts).
 *
 * Before (the twentieth session's 10M bench), the part was read whole (~20 MB stored at 10M events), every
 * column inflated at once (a working-memory count read each lazy column), and the hour's rows made records
 * (~1 kB each, ~10,000 an hour) that were then made a batch again: explain-a-change's cold ask's largest rise.
 */
import { hold } from "../../working_memory.ts";
import { type ColumnEntry, decodeBatch, ownsSegment } from "../../parts/codec.ts";
import {
  type Batch,
  batchOfRows,
  type NumCol,
  numCol,
  strAt,
  type StrCol,
  strCol,
} from "../../parts/columns.ts";
import { dictEntries } from "../../parts/dict_entries.ts";
import { buildEventBatch, eventOrder } from "../../parts/event_batch.ts";
import { release, releaseDecoded } from "../../parts/packed_arrays.ts";
import { CHUNK_BYTES, partColumns, type PartMeta, readRange } from "../../parts/store.ts";
import { sortInSlices } from "../../parts/slice_sort.ts";
import type { StoredEvent } from "../../store/records.ts";
import { noTurns, type Turn } from "../../turns.ts";
import { ATTR_FIELDS, HOUR_MS, ROLLUP_FIELDS } from "./build.ts";
import { FIRST_FIELDS } from "./session_facts.ts";

/** The column an event field's view reads (columns/views.ts `eventView`). */
const columnOf = (f: string) => (f === "crawler_category" ? "crawler" : f.startsWith("utm_") ? "utm" : f);

/**
 * The string columns a raw tail's rollup reads: its fields' (build.ts `rollupSteps`, `attributionsOf`,
 * session_facts.ts's first fields), the visitor, session, touchpoint, traffic kind and event type.
 */
export const CUT_STRINGS: readonly string[] = [
  ...new Set([
    "anon",
    "session",
    "touchpoint",
    "traffic",
    "event_type",
    ...[...ROLLUP_FIELDS, ...ATTR_FIELDS, ...FIRST_FIELDS].map(columnOf),
  ]),
];
/** Its number columns: receive time, device time, sequence number (session order). */
export const CUT_NUMBERS: readonly string[] = ["t", "dt", "seq"];
/** The properties it reads (rage clicks, the page-leave figures): each as a column `p:<name>`. */
export const CUT_PROPS: readonly string[] = ["rage_click", "engagement_time_ms", "depth_percent"];
/** Every column of a tail batch made here (`tailBatch`), the properties' own columns included. */
export const CUT_COLUMNS: readonly string[] = [
  ...CUT_STRINGS,
  ...CUT_NUMBERS,
  ...CUT_PROPS.map((k) => `p:${k}`),
];

const REST = "p*";

/** At most this many stored bytes read at once (a column larger than this is read alone). */
const RANGE_BYTES = 4 << 20;

/**
 * Part `p`'s rows received in `hours` (UTC hour numbers), in the part's order, in the columns `CUT_COLUMNS`
 * names that the part has (a property without its own column: the rest column `p*`), and `id` when `ids`.
 * The part's stored bytes are read only for those columns, a range at a time, and each column's rows are
 * taken from it once inflated, then it is let go.
 */
export async function readCutRows(kv: Deno.Kv, p: PartMeta, hours: number[]): Promise<CutRead> {
  const entries = await partColumns(kv, p);
  const has = new Set(entries.map((c) => c.name));
  const within = new Set(hours);
  const rows: number[] = [];
  const cols: Batch["cols"] = {};
  await readColumns(kv, p, entries, ["t"], (b) => {
    const v = (b.cols.t as NumCol).values;
    for (let i = 0; i < p.rows; i++) if (within.has(Math.floor(v[i] / HOUR_MS))) rows.push(i);
    Object.assign(cols, rowsOfColumns(b, rows).cols);
  });
  const names = CUT_COLUMNS.filter((c) => c !== "t" && has.has(c));
  if (CUT_PROPS.some((k) => !has.has(`p:${k}`)) && has.has(REST)) names.push(REST);
  await readColumns(kv, p, entries, names, (b) => Object.assign(cols, rowsOfColumns(b, rows).cols));
  return { batch: { n: rows.length, cols }, partRows: Uint32Array.from(rows) };
}

/**
 * Adds the `id` column to rows read by `readCutRows` (only when rows tie in everything else: `NeedIds`).
 */
export async function addCutIds(kv: Deno.Kv, p: PartMeta, cut: CutRead): Promise<void> {
  if (cut.batch.cols.id) return;
  const rows = [...cut.partRows];
  await readColumns(kv, p, await partColumns(kv, p), ["id"], (b) => {
    cut.batch.cols.id = rowsOfColumns(b, rows).cols.id;
  });
}

/**
 * Reads the named columns of part `p` (those it has), a range of stored bytes at a time (`RANGE_BYTES`;
 * columns far apart in a range of their own), and gives each range's lazily decoded columns to `take`; the
 * range's bytes are let go once `take` has settled (it must copy what it keeps).
 */
async function readColumns(
  kv: Deno.Kv,
  p: PartMeta,
  entries: ColumnEntry[],
  names: string[],
  take: (b: Batch) => unknown,
): Promise<void> {
  const wanted = entries.filter((c) => names.includes(c.name)).sort((a, b) => a.off - b.off);
  let group: ColumnEntry[] = [], from = 0, to = 0;
  const flush = async () => {
    if (!group.length) return;
    const { base, bytes } = await readRange(kv, p, from, to);
    // this question's own while it takes the rows
    hold([bytes]);
    const only = new Set(group.map((c) => c.name));
    try {
      await take(await decodeBatch({ n: p.rows, columns: entries }, bytes, (name) => only.has(name), base));
    } finally {
      release(bytes);
    }
    group = [];
  };
  for (const c of wanted) {
    const end = c.off + c.len;
    if (group.length && (c.off - to > CHUNK_BYTES || Math.max(to, end) - from > RANGE_BYTES)) await flush();
    if (!group.length) (from = c.off, to = end);
    group.push(c);
    to = Math.max(to, end);
  }
  await flush();
}

/** A part's rows of its cut hours as read (`readCutRows`), and their row numbers in the part. */
export interface CutRead {
  batch: Batch;
  partRows: Uint32Array;
}

/** Cut rows a period takes: the rows read and which of them are in the period. */
export interface CutTaken {
  batch: Batch;
  rows: number[];
}

/**
 * Which of `cuts` have rows in the period that the batch order tells apart from another row of the period
 * (the raw tail's, or a cut row) only by their ids (the same visitor, session, receive time, device time, and
 * sequence number or one missing): those need their `id` column (`addCutIds`) before `tailBatch`.
 */
export function tiedCuts(records: StoredEvent[], cuts: CutTaken[]): number[] {
  const tied = new Set<number>();
  const byKey = new Map<string, { k: number; seq: number }[]>();
  const anons = new Set<string>();
  cuts.forEach((c, k) => {
    const cols = c.batch.cols;
    const anon = cols.anon as StrCol, session = cols.session as StrCol;
    const t = (cols.t as NumCol).values, dt = (cols.dt as NumCol).values, seq = (cols.seq as NumCol).values;
    for (const i of c.rows) {
      const a = strAt(anon, i) ?? "";
      anons.add(a);
      const key = `${a}\u0000${strAt(session, i)}\u0000${Number.isNaN(t[i]) ? 0 : t[i]}\u0000${dt[i]}`;
      let at = byKey.get(key);
      if (!at) byKey.set(key, at = []);
      for (const o of at) if (!(o.seq - seq[i])) (tied.add(o.k), tied.add(k));
      at.push({ k, seq: seq[i] });
    }
  });
  for (const e of records) {
    if (!anons.has(e.anonymous_id)) continue;
    const at = byKey.get(`${e.anonymous_id}\u0000${e.session_id}\u0000${e.received_at ?? 0}\u0000${dtOf(e)}`);
    for (const o of at ?? []) if (!(e.sequence_no - o.seq)) tied.add(o.k);
  }
  return [...tied];
}

const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));
/** A stored JSON text as its record stored again makes it (merge_events.ts `rewrite`). */
const again = (text: string | null) => (text === null ? null : json(JSON.parse(text)));
/** Device time as event_batch.ts reads a record's (an unreadable one is 0). */
const dtOf = (e: StoredEvent) => {
  const t = Date.parse(e.device_time);
  return Number.isNaN(t) ? 0 : t;
};

/**
 * The batch of `records` and the cut rows in the period, in the columns `CUT_COLUMNS` names: the rows in the
 * order `buildEventBatch` sorts the records those rows would make (given after the raw tail's), each string
 * column's codes by first use as it gives them. Without cut rows, `buildEventBatch(records)` itself. Cut rows
 * that tie with others in everything but their ids must have their ids (`tiedCuts`, `addCutIds`).
 */
export async function tailBatch(
  records: StoredEvent[],
  cuts: CutTaken[],
  turn: Turn = noTurns,
): Promise<Batch> {
  if (!cuts.some((c) => c.rows.length)) {
    return await buildEventBatch(Object.isFrozen(records) ? records : [...records], turn);
  }
  // row x < records.length: records[x]; else cut `src[x]`'s row `row[x]`
  const nr = records.length;
  const n = nr + cuts.reduce((s, c) => s + c.rows.length, 0);
  const src = new Int32Array(n).fill(-1), row = new Uint32Array(n);
  let x = nr;
  cuts.forEach((c, k) => {
    for (const i of c.rows) (src[x] = k, row[x++] = i);
  });
  const str = (name: string) => cuts.map((c) => c.batch.cols[name] as StrCol | undefined);
  const num = (name: string) => cuts.map((c) => (c.batch.cols[name] as NumCol | undefined)?.values);
  const text = (cs: (StrCol | undefined)[], x: number) => {
    const c = cs[src[x]];
    return c ? strAt(c, row[x]) : null;
  };
  const anon = str("anon"), session = str("session"), ids = str("id");
  const t = num("t"), dt = num("dt"), seq = num("seq");
  const recDt = new Float64Array(nr);
  for (let i = 0; i < nr; i++) recDt[i] = dtOf(records[i]);
  const anonOf = (x: number) => (x < nr ? records[x].anonymous_id : text(anon, x));
  const sessionOf = (x: number) => (x < nr ? records[x].session_id : text(session, x));
  // as event_batch.ts `eventOrder`: a missing receive time is 0 in the difference, a missing number no order
  const tOf = (x: number) => {
    if (x < nr) return records[x].received_at;
    const v = t[src[x]]![row[x]];
    return Number.isNaN(v) ? 0 : v;
  };
  const dtAt = (x: number) => (x < nr ? recDt[x] : dt[src[x]]![row[x]]);
  const seqOf = (x: number) => (x < nr ? records[x].sequence_no : seq[src[x]]![row[x]]);
  const tied = new Set<number>();
  const idOf = (x: number) => {
    if (x < nr) return records[x].id;
    if (!ids[src[x]]) tied.add(src[x]);
    return text(ids, x) ?? "";
  };
  const order = Array.from({ length: n }, (_, x) => x);
  await sortInSlices(order, (a, b) => {
    const va = anonOf(a)!, vb = anonOf(b)!;
    if (va !== vb) return va < vb ? -1 : 1;
    const sa = sessionOf(a)!, sb = sessionOf(b)!;
    if (sa !== sb) return sa < sb ? -1 : 1;
    if (a < nr && b < nr) {
      const d = eventOrder(records[a], records[b]);
      if (d) return d;
    } else {
      const d = (tOf(a) ?? 0) - (tOf(b) ?? 0) || dtAt(a) - dtAt(b) || seqOf(a) - seqOf(b);
      if (d) return d;
    }
    const ia = idOf(a), ib = idOf(b);
    return ia < ib ? -1 : ia > ib ? 1 : 0;
  }, turn);
  // (`tiedCuts` names the cuts that need ids; their ids are read before)
  if (tied.size) throw new Error("rows of cut hours tie without their ids");
  const at = (j: number) => order[j];
  const strings = (name: string, get: (e: StoredEvent) => string | null | undefined, fix?: typeof again) => {
    const cs = str(name);
    return strCol(n, (j) => {
      const x = at(j);
      if (x < nr) return get(records[x]);
      const s = text(cs, x);
      return fix ? fix(s) : s;
    }, turn);
  };
  const numbers = (get: (x: number) => number | null) => numCol(n, (j) => get(at(j)), turn);
  const cols: Batch["cols"] = {
    anon: await strings("anon", (e) => e.anonymous_id),
    session: await strings("session", (e) => e.session_id),
    touchpoint: await strings("touchpoint", (e) => e.touchpoint),
    platform: await strings("platform", (e) => e.platform),
    event_type: await strings("event_type", (e) => e.event_type),
    page: await strings("page", (e) => e.path),
    host: await strings("host", (e) => e.host),
    element: await strings("element", (e) => e.element),
    country: await strings("country", (e) => e.geo.country),
    city: await strings("city", (e) => e.geo.city),
    browser: await strings("browser", (e) => e.browser),
    os: await strings("os", (e) => e.os),
    device_type: await strings("device_type", (e) => e.device_type),
    referrer_host: await strings("referrer_host", (e) => e.referrer_host),
    source: await strings("source", (e) => e.source),
    channel: await strings("channel", (e) => e.channel),
    utm: await strings("utm", (e) => json(e.utm), again),
    traffic: await strings("traffic", (e) => e.traffic),
    crawler: await strings("crawler", (e) => e.crawler),
    t: await numbers((x) => (x < nr ? records[x].received_at : t[src[x]]![row[x]])),
    dt: await numbers(dtAt),
    seq: await numbers(seqOf),
  };
  const rest = str(REST);
  for (const k of CUT_PROPS) {
    const own = str(`p:${k}`);
    cols[`p:${k}`] = await strCol(n, (j) => {
      const x = at(j);
      if (x < nr) {
        const p = records[x].properties;
        return k in p ? JSON.stringify(p[k]) : null;
      }
      // (as the record made of the row gives it: the own column's value, or the rest's)
      if (own[src[x]]) {
        const v = text(own, x);
        return v === null ? null : JSON.stringify(JSON.parse(v));
      }
      const r = text(rest, x);
      const o = r === null ? null : JSON.parse(r) as Record<string, unknown> | null;
      return o && k in o ? JSON.stringify(o[k]) : null;
    }, turn);
  }
  const missing = CUT_COLUMNS.filter((c) => !(c in cols));
  if (missing.length) throw new Error(`tail batch without ${missing.join()}`);
  return { n, cols };
}

/**
 * `rows` of a lazily decoded batch (parts/codec.ts decodeBatch), one column decoded at a time and let go once
 * its rows are taken: a whole part's columns decoded together (~12 MB a part at 10M events, a question's
 * period edges cutting several parts) were the largest rise of explain-a-change's first ask.
 */
export function rowsOfColumns(batch: Batch, rows: number[]): Batch {
  const cols: Batch["cols"] = {};
  for (const name of Object.keys(batch.cols)) {
    const c = batch.cols[name];
    // this question's own until let go below (a column read in place is its range's, held already)
    hold([c.kind === "num" ? c.values : c.codes]);
    cols[name] = (c.kind === "str" ? strRows(c, rows) : null) ??
      batchOfRows({ n: batch.n, cols: { [name]: c } }, rows).cols[name];
    delete batch.cols[name];
    // its rows copied, a column inflated for itself alone is let go now, not at V8's next full collection
    if (ownsSegment(c)) releaseDecoded(c.kind === "num" ? c.values : c.codes);
  }
  return { n: rows.length, cols };
}

/**
 * `rows` of a string column with a dictionary of just the strings those rows use, each made from the stored
 * bytes (codes renumbered by first use); null when the column has no stored dictionary bytes. The part's
 * whole dictionary made strings (every visitor, session and page of a part: ~25 MB of JS heap, dead at once,
 * per explain-a-change ask at 10M events) was what grew the heap most at that ask.
 */
function strRows(c: StrCol, rows: number[]): StrCol | null {
  const entry = dictEntries(c);
  if (!entry) return null;
  let top = 0;
  for (const i of rows) if (c.codes[i] > top) top = c.codes[i];
  const renumber = new Uint32Array(top + 1);
  const dict: string[] = [], codes = c.codes.slice(0, rows.length);
  rows.forEach((i, k) => {
    const code = c.codes[i];
    if (code === 0) return void (codes[k] = 0);
    if (renumber[code] === 0) (dict.push(entry(code)), renumber[code] = dict.length);
    codes[k] = renumber[code];
  });
  return { kind: "str", dict, codes };
}
