/**
 * A part's rollup on KV, in sections read separately (pieces.ts): per field (and the hours' totals) its rows,
 * and apart their visitor sets; the session facts; the facts' device-time lists. Each section is deflated and
 * chunked under keys.rollupChunk(part id, section × 10,000 + i); the entry keys.rollup(part id) = { v, head,
 * secs } is written last, so a rollup is there whole or not at all. Parts written before rollups existed (or
 * with an older version) get one from the backfill (lib/jobs/rollup_backfill.ts), which turns a version-3
 * rollup (one blob) into sections without reading the part; chunks go with the part's own
 * (lib/parts/store.ts deleteChunks).
 */
import { inBatches } from "../../batches.ts";
import {
  deflated,
  inflateArrays,
  inflateBytes,
  knowRawSize,
  packArrays,
  rawSizeOf,
  release,
} from "../../parts/packed_arrays.ts";
import type { Batch } from "../../parts/columns.ts";
import { CHUNK_BYTES } from "../../parts/store.ts";
import { numberVisitors } from "../../parts/visitor_numbers.ts";
import { keys } from "../../store/keys.ts";
import type { EnvName } from "../../store/records.ts";
import { attributionsOf, batchVisitors, buildRollup, type Rollup, rowVisitors, TOTAL } from "./build.ts";
import {
  concatFacts,
  concatLists,
  EMPTY_SETS,
  emptyFacts,
  type FactLists,
  fieldPiece,
  NO_FACTS,
  PIECE_FIELDS,
  type RollupHead,
  sliceFacts,
} from "./pieces.ts";
import {
  BLOCKS,
  buildSpans,
  noKeys,
  type PartKeys,
  type SpanEnds,
  type Spans,
  storedSpanEnds,
} from "./spans.ts";
import { firstAtLeast } from "../sorted.ts";
import {
  type AttrMulti,
  buildSessionFacts,
  ENDS_LAYOUT,
  FACT_LAYOUT,
  type FactEnds,
  type FactFirsts,
  HOUR,
  type SessionFacts,
} from "./session_facts.ts";
import { eventView, type Viewable } from "../columns/views.ts";
import { widePiece } from "./wide.ts";
import { type AttrRuns, buildRuns } from "./attribution_runs.ts";
import { runSteps, runTurning, type Steps } from "./steps.ts";
import {
  addRowReporters,
  keepsReporters,
  NO_REPORTERS,
  packReporters,
  reporterCounts,
  reporterOffsets,
} from "./reporters.ts";
import type { Turn } from "../../turns.ts";
import { readSectionBytes } from "../section_index.ts";

/**
 * 2: session facts; 3: with their rows' device times and numbers; 4: in sections read separately; 5 and 6: session
 * totals pre-added per span and the facts in blocks (spans.ts; 6: an edge block, shorter keys); 7: each field's rows
 * also over all the part's hours (wide.ts); 8: each fact row's attribution (attribution.ts: the facts split by it, its own
 * section); 9: each fact row's first event and its values of the fields explain-a-change splits by (its own
 * section: firsts.ts); 10: sources' counts per part, pre-added in runs of simple sessions (attribution_runs.ts: its own
 * section, added to a version-8 or -9 rollup from its stored sections); 11: the page and totals rows keep up to 5
 * visitors behind their page-leave means (reporters.ts; the rows sections of those fields, hourly and wide,
 * rewritten from the part for a version-8 to -10 rollup, `addReporters`). Parts with an older rollup get a new
 * one from the backfill, their questions scanning meanwhile.
 */
export const ROLLUP_VERSION = 11;

/**
 * Whether the reader answers from a rollup of this version: this one, and version 10, whose sections differ
 * only by the page and totals rows' reporters (read as none until the backfill adds them: a lower bound, so
 * the means they guard are withheld meanwhile). Sending a version-10 part's questions to the scan made every
 * aggregate of a large site scan its month after an upgrade, for as long as the backfill took (at 10M events
 * ~15-30 min of 8 s, 1.3 GB questions).
 */
export const answeredVersion = (v: number): boolean => v === ROLLUP_VERSION || v === 10;

/**
 * A section's stored bytes, chunk count and inflated size (since 28 Nov: the reader inflates into one buffer of
 * that size, packed_arrays.ts `knowRawSize`; a section listed without it is inflated by a guess, and the
 * backfill adds it: `addRawSizes`).
 */
type Sec = [bytes: number, chunks: number, raw?: number];

export interface RollupEntry {
  v: number;
  head: RollupHead;
  /** section number → its size */
  secs: Record<string, Sec>;
}

type Arrays = Pick<
  Rollup,
  | "engSum"
  | "scrollSum"
  | "hour"
  | "value"
  | "events"
  | "pageviews"
  | "rage"
  | "engN"
  | "scrollN"
  | "visAt"
  | "viewAt"
  | "tp"
  | "traffic"
>;
type Typed =
  | Float64ArrayConstructor
  | Uint32ArrayConstructor
  | Uint16ArrayConstructor
  | Uint8ArrayConstructor;
/** A field's row columns in stored order: widest first, so each starts aligned; extra: elements past n. */
const LAYOUT: [keyof Arrays, Typed, number][] = [
  ["engSum", Float64Array, 0],
  ["scrollSum", Float64Array, 0],
  ["hour", Uint32Array, 0],
  ["value", Uint32Array, 0],
  ["events", Uint32Array, 0],
  ["pageviews", Uint32Array, 0],
  ["rage", Uint32Array, 0],
  ["engN", Uint32Array, 0],
  ["scrollN", Uint32Array, 0],
  ["visAt", Uint32Array, 1],
  ["viewAt", Uint32Array, 1],
  ["tp", Uint16Array, 0],
  ["traffic", Uint8Array, 0],
];

/** Section numbers: a field's rows, its sets, the facts, their lists. */
const fieldNo = (f: number) => (f === TOTAL ? 20 : f);
export const rowsSec = (f: number): number => fieldNo(f);
export const setsSec = (f: number): number => 32 + fieldNo(f);
/** A field's rows over all the part's hours (wide.ts), and their sets. */
export const wideRowsSec = (f: number): number => 300 + fieldNo(f);
export const wideSetsSec = (f: number): number => 332 + fieldNo(f);
/** Version 4's facts and lists, whole (version 5 stores them in blocks: factsSec, listsSec). */
export const FACTS_SEC = 64;
export const LISTS_SEC = 65;
/** Each fact row's first and last pageview (entries and exits); rollups written before it lack it. */
export const ENDS_SEC = 66;
/** The session spans and the part's session keys (spans.ts). */
export const SPANS_SEC = 67;
export const KEYS_SEC = 68;
/** Each fact row's attribution code (stored order) and the part's attributions (attribution.ts). */
export const ATTR_SEC = 69;
/** Each fact row's first event and what explain-a-change reads beside (FirstRows), and the rows' id hashes. */
export const FIRST_SEC = 70;
export const FIRST_IDS_SEC = 71;
/** The part's sources' runs (attribution_runs.ts). */
export const ATTR_RUNS_SEC = 72;
/** Block b of the facts, and of their device-time lists. */
export const factsSec = (b: number): number => 100 + b;
export const listsSec = (b: number): number => 200 + b;
/**
 * Block b's rows' entries (the entries of `ENDS_SEC` for the block's rows, with the pages they name), so an
 * entry-page question joining a few rows of a block reads that block's, not the part's ends whole. Optional
 * (no version change): a rollup without them is read from its whole ends; the backfill adds them.
 */
export const entriesSec = (b: number): number => 500 + b;
/** Block b's rows' exits (the exit half of `ENDS_SEC`, as `entriesSec` holds the entry half). Optional. */
export const exitsSec = (b: number): number => 600 + b;
/** The spans' entry and exit pages (spans.ts `SpanEnds`). Optional, like the blocks' entries and exits. */
export const SPAN_ENDS_SEC = 73;
/**
 * The part's session keys as a period's session totals read them (`encodeShortKeys`): the keys of `KEYS_SEC`
 * with only the low 24 bits of each id hash, but for visitors with several sessions in the part (~4.4 bytes a
 * session stored instead of 5.4: the hashes do not deflate). 16 bits were tried: at 10M events the keys that
 * met by chance (returning visitors' sessions across the month's parts) made a cold overview read 250 more
 * fact blocks (+2.8 MB), as much as the bits saved. The attribution runs still read `KEYS_SEC` (their key
 * indices, whole hashes). Optional (no version change): a rollup without it is read by `KEYS_SEC`; the
 * backfill adds it from that section.
 */
export const SHORT_KEYS_SEC = 74;
/**
 * The spans (spans.ts `Spans`) with each engaged session's visitor given as the index of that visitor's first
 * key in the part's keys (`encodeKeyedSpans`): small steps that deflate, where visitor numbers over a million
 * did not (the engaged lists were ~90% of `SPANS_SEC`). Compaction writes it instead of `SPANS_SEC`; a rollup
 * written before it keeps `SPANS_SEC` and gets this one from the backfill (both read alike: `readSpans`).
 */
export const KEYED_SPANS_SEC = 75;
const SEC_SPAN = 10_000;

const align = (n: number) => Math.ceil(n / 8) * 8;
const bytesOf = (T: unknown) => (T as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT;

/** A JSON header and typed arrays as one aligned buffer (lib/parts/packed_arrays.ts), deflated. */
const packSection = (header: unknown, arrays: ArrayBufferView[]): Uint8Array =>
  deflated(packArrays(header, arrays));

/** A section's header and a reader of its arrays in stored order. */
function unpackSection<H>(
  stored: Uint8Array,
  kind: string,
): { h: H; next: <T>(T: Typed, n: number) => T } {
  const { header, next } = inflateArrays<H>(stored, undefined, kind);
  return { h: header, next };
}

type Encoded = { head: RollupHead; secs: Map<number, Uint8Array> };

/** A rollup's sections, deflated, by section number, and what they share. */
export function encodeSections(r: Rollup): Encoded {
  return runSteps(encodeSteps(r));
}

/** `encodeSections` pausing after each section (and field): a closed day's sections deflate for seconds. */
function* encodeSteps(r: Rollup): Steps<Encoded> {
  const secs = new Map<number, Uint8Array>();
  for (const f of PIECE_FIELDS) {
    const p = fieldPiece(r, f);
    if (!p.n) continue;
    for (const [sec, bytes] of fieldSections(p, f)) secs.set(sec, bytes);
    yield;
  }
  const facts = r.facts;
  const built = buildSpans(facts, r.tps, r.traffics, r.hours);
  yield;
  for (let b = 0; b < BLOCKS; b++) {
    const rows = built.order.subarray(built.blockAt[b], built.blockAt[b + 1]);
    if (!rows.length) continue;
    const block = sliceFacts(facts, rows);
    secs.set(factsSec(b), encodeFacts(block));
    // every block of facts has its lists section (maybe empty): its row count lines the blocks' lists up
    secs.set(listsSec(b), encodeLists(block));
    yield;
  }
  if (facts.ends) {
    const ends = reorderEnds(facts.ends, built.order);
    secs.set(ENDS_SEC, encodeEnds(facts.n, ends));
    for (let b = 0; b < BLOCKS; b++) {
      const from = built.blockAt[b], to = built.blockAt[b + 1];
      if (to > from) {
        secs.set(entriesSec(b), encodeBlockEntries(ends, from, to));
        secs.set(exitsSec(b), encodeBlockExits(ends, from, to));
        yield;
      }
    }
  }
  if (built.ends) secs.set(SPAN_ENDS_SEC, encodeSpanEnds(built.ends));
  // (a rollup read back from before version 8 has none: the backfill adds it from the part)
  if (facts.attr) secs.set(ATTR_SEC, encodeAttr(facts, built.order));
  yield;
  // (nor one from before version 9 its first events)
  if (facts.firsts) {
    secs.set(FIRST_SEC, encodeFirsts(firstRowsOf(facts, built.order)));
    secs.set(FIRST_IDS_SEC, encodeFirstIds(facts, built.order));
    yield;
  }
  secs.set(KEYED_SPANS_SEC, encodeKeyedSpans(built.spans, built.keys));
  if (built.keys.n) {
    secs.set(KEYS_SEC, encodeKeys(built.keys));
    secs.set(SHORT_KEYS_SEC, encodeShortKeys(built.keys));
    yield;
  }
  if (facts.attr && facts.multi && facts.ends) {
    const blockRows = Uint32Array.from({ length: BLOCKS }, (_, b) => built.blockAt[b + 1] - built.blockAt[b]);
    const runs = buildRuns(
      facts,
      facts.attr,
      facts.multi,
      facts.tuples ?? [],
      facts.ends,
      r.tps,
      r.traffics,
      built.keys,
      blockRows,
    );
    secs.set(ATTR_RUNS_SEC, encodeRuns(runs));
  }
  return { head: { hours: r.hours, tps: r.tps, traffics: r.traffics }, secs };
}

/**
 * A field's piece (`fieldPiece`) as its sections: its rows, their sets, and the same folded over the part's
 * hours (wide.ts). A rows section lists its rows' kept reporters after the row columns (a byte a row, their
 * count, then the numbers) when it has any (`rep` in its header: how many numbers).
 */
function fieldSections(p: Rollup, f: number): [number, Uint8Array][] {
  const out: [number, Uint8Array][] = [[rowsSec(f), encodeRows(p)]];
  if (p.sets.length) out.push([setsSec(f), deflated(p.sets)]);
  const w = widePiece(p);
  out.push([wideRowsSec(f), encodeRows(w)]);
  if (w.sets.length) out.push([wideSetsSec(f), deflated(w.sets)]);
  return out;
}

/** A field's rows (hourly or wide) as their section; with reporters when some row has any. */
export const encodeRows = (x: Rollup): Uint8Array =>
  packSection(
    { n: x.n, values: x.values, ...(x.rep.length ? { rep: x.rep.length } : {}) },
    [...LAYOUT.map(([name]) => x[name]), ...(x.rep.length ? [reporterCounts(x), x.rep] : [])],
  );

/** Facts (lists aside) as a section; with `encodeLists` and `encodeEnds`, also how version 4 stored them whole. */
export const encodeFacts = (f: SessionFacts): Uint8Array =>
  packSection({ n: f.n }, FACT_LAYOUT.map(([name]) => f[name] as ArrayBufferView));
export const encodeLists = (f: FactLists): Uint8Array =>
  packSection({ n: f.listAt.length - 1, list: f.listDt.length }, [f.listAt, f.listDt, f.listSeq]);

/** Ends in the facts' stored order (`order[i]`: the fact row stored at i). */
function reorderEnds(e: FactEnds, order: Uint32Array): FactEnds {
  const out = { pages: e.pages } as Record<string, unknown>;
  for (const [name, T] of ENDS_LAYOUT) {
    const from = e[name] as ArrayLike<number>, to = new T(order.length) as unknown as number[];
    for (let i = 0; i < order.length; i++) to[i] = from[order[i]];
    out[name] = to;
  }
  return out as unknown as FactEnds;
}

/** A part's facts' attributions as read: each stored fact row's code into `tuples` (or MULTI_ATTR: `multi`). */
export interface FactAttr {
  codes: Uint32Array;
  multi: AttrMulti;
  tuples: (string | null)[][];
}

/** The facts' attributions in stored order (`order[i]`: the fact row stored at i), with the tuples. */
function encodeAttr(f: SessionFacts, order: Uint32Array): Uint8Array {
  const codes = new Uint32Array(order.length), at = new Uint32Array(order.length);
  if (f.attr) { for (let i = 0; i < order.length; i++) codes[i] = f.attr[order[i]]; }
  for (let i = 0; i < order.length; i++) at[order[i]] = i;
  const m = f.multi ?? { row: new Uint32Array(0), code: new Uint32Array(0), pv: new Uint32Array(0) };
  const by = Array.from(m.row, (_, x) => x).sort((x, y) => at[m.row[x]] - at[m.row[y]]);
  return packSection({ n: order.length, m: by.length, tuples: f.tuples ?? [] }, [
    codes,
    Uint32Array.from(by, (x) => at[m.row[x]]),
    Uint32Array.from(by, (x) => m.code[x]),
    Uint32Array.from(by, (x) => m.pv[x]),
  ]);
}

export function decodeAttr(stored: Uint8Array): FactAttr {
  const { h, next } = unpackSection<{ n: number; m: number; tuples: (string | null)[][] }>(stored, "attr");
  const codes = next<Uint32Array>(Uint32Array, h.n);
  const multi = {
    row: next<Uint32Array>(Uint32Array, h.m),
    code: next<Uint32Array>(Uint32Array, h.m),
    pv: next<Uint32Array>(Uint32Array, h.m),
  };
  return { codes, multi, tuples: h.tuples };
}

/**
 * A part's session facts built again from its batch exactly as when its rollup was (same rows, same visitor
 * numbers, same touchpoint and traffic indices), and for each stored fact row k the rebuilt row of the same
 * segment: what a section added to an older rollup is laid out by.
 */
async function rebuildFacts(
  kv: Deno.Kv,
  org: string,
  env: EnvName,
  partId: string,
  entry: RollupEntry,
  b: Batch,
  attrOf: ((row: number) => number) | null,
  adding: string,
): Promise<{ facts: SessionFacts; order: Uint32Array }> {
  const numbers = await numberVisitors(kv, org, env, batchVisitors(b));
  const rows = rowVisitors(b, numbers);
  const v: Viewable = { b, n: b.n, views: new Map() };
  const index = (field: "touchpoint" | "traffic", list: (string | null)[]) => {
    const view = eventView(v, field);
    const codes = view.values.map((x) => list.indexOf(x));
    return (i: number) => (view.codes.length ? codes[view.codes[i]] : list.indexOf(null));
  };
  const facts = buildSessionFacts(
    b,
    (i) => rows[i],
    index("touchpoint", entry.head.tps),
    index("traffic", entry.head.traffics),
    attrOf,
  );
  const stored = await readFacts(kv, partId, entry);
  if (!stored) throw new Error(`rollup facts of ${partId} went while adding ${adding}`);
  const id = (f: SessionFacts, k: number) =>
    `${f.vis[k]}.${f.h1[k]}.${f.h2[k]}.${f.hour[k]}.${f.tp[k]}.${f.traffic[k]}`;
  const rebuilt = new Map<string, number>();
  for (let k = 0; k < facts.n; k++) rebuilt.set(id(facts, k), k);
  const order = Uint32Array.from({ length: stored.n }, (_, k) => {
    const x = rebuilt.get(id(stored, k));
    if (x === undefined) throw new Error(`rollup facts of ${partId} differ from its part's`);
    return x;
  });
  return { facts, order };
}

/** Writes a section added to a part's rollup: its chunks first, then the entry that lists it. */
async function addSection(
  kv: Deno.Kv,
  partId: string,
  entry: RollupEntry,
  sec: number,
  bytes: Uint8Array,
): Promise<void> {
  const size = await writeSectionChunks(kv, partId, sec, bytes);
  await kv.set(keys.rollup(partId), { ...entry, secs: { ...entry.secs, [sec]: size } });
}

/**
 * A section's chunks written one by one (the entry that lists them is written after, by the caller); answers
 * its size as the entry lists it.
 */
async function writeSectionChunks(kv: Deno.Kv, partId: string, sec: number, bytes: Uint8Array): Promise<Sec> {
  const chunks = Math.max(1, Math.ceil(bytes.length / CHUNK_BYTES));
  for (let j = 0; j < chunks; j++) {
    await kv.set(
      keys.rollupChunk(partId, sec * SEC_SPAN + j),
      bytes.slice(j * CHUNK_BYTES, (j + 1) * CHUNK_BYTES),
    );
  }
  return secSize(bytes);
}

/** A section's size as its entry lists it (its inflated size when its bytes were made by `deflated`). */
const secSize = (bytes: Uint8Array): Sec => {
  const chunks = Math.max(1, Math.ceil(bytes.length / CHUNK_BYTES)), raw = rawSizeOf(bytes);
  return raw === undefined ? [bytes.length, chunks] : [bytes.length, chunks, raw];
};

/**
 * Adds the attribution section to a part's rollup written without it (before version 8), from the part's
 * batch: each stored fact row's attribution is that of the same segment rebuilt.
 */
export async function addAttr(
  kv: Deno.Kv,
  org: string,
  env: EnvName,
  partId: string,
  entry: RollupEntry,
  b: Batch,
): Promise<void> {
  const { rowAttr, tuples } = attributionsOf(b);
  const { facts, order } = await rebuildFacts(
    kv,
    org,
    env,
    partId,
    entry,
    b,
    (i) => rowAttr[i],
    "attributions",
  );
  facts.tuples = tuples;
  await addSection(kv, partId, entry, ATTR_SEC, encodeAttr(facts, order));
}

/**
 * What explain-a-change reads of a part's facts (first_touch.ts), in stored order and alone: each row's
 * session's visitor number, hour, touchpoint and traffic kind, pageviews and first receive time (ms in the
 * hour), its first event's device time (as ms after that receive time) and number, and the codes of that
 * event's values. Read without the facts (a third of their bytes); the sessions' id hashes apart
 * (FIRST_IDS_SEC: only a question by session reads them).
 */
export interface FirstRows extends FactFirsts {
  n: number;
  vis: Uint32Array;
  hour: Uint32Array;
  tp: Uint16Array;
  traffic: Uint8Array;
  pv: Uint32Array;
  first: Uint32Array;
}

/** The rows as FirstRows in stored order (`order[i]`: the fact row stored at i; null: as they are). */
export function firstRowsOf(f: SessionFacts, order: Uint32Array | null): FirstRows {
  const x = f.firsts!;
  const rows: FirstRows = {
    n: f.n,
    vis: f.vis,
    hour: f.hour,
    tp: f.tp,
    traffic: f.traffic,
    pv: f.pv,
    first: f.first,
    dt: x.dt,
    seq: x.seq,
    codes: x.codes,
    values: x.values,
  };
  return order ? pickFirstRows(rows, order) : rows;
}

/** The values of `a` at `order`'s rows, in a new array of its kind. */
export function pickRows<T extends Float64Array | Uint32Array | Uint16Array | Uint8Array>(
  a: T,
  order: Uint32Array,
): T {
  const to = new (a.constructor as new (n: number) => T)(order.length);
  for (let i = 0; i < order.length; i++) to[i] = a[order[i]];
  return to;
}

/** First rows at `order`'s rows (`order[i]`: the row taken as row i), in new arrays. */
export function pickFirstRows(r: FirstRows, order: Uint32Array): FirstRows {
  const pick = <T extends Float64Array | Uint32Array | Uint16Array | Uint8Array>(a: T) => pickRows(a, order);
  return {
    n: order.length,
    vis: pick(r.vis),
    hour: pick(r.hour),
    tp: pick(r.tp),
    traffic: pick(r.traffic),
    pv: pick(r.pv),
    first: pick(r.first),
    dt: pick(r.dt),
    seq: pick(r.seq),
    codes: r.codes.map(pick),
    values: r.values,
  };
}

function encodeFirsts(r: FirstRows): Uint8Array {
  // device times as ms after the receive time, hours after the part's first: small numbers deflate well
  let base = Infinity;
  for (let i = 0; i < r.n; i++) if (r.hour[i] < base) base = r.hour[i];
  const dt = new Float64Array(r.n), hour = new Uint32Array(r.n);
  for (let i = 0; i < r.n; i++) {
    dt[i] = r.dt[i] - (r.hour[i] * HOUR + r.first[i]);
    hour[i] = r.hour[i] - base;
  }
  return packSection({ n: r.n, base: r.n ? base : 0, values: r.values }, [
    dt,
    r.seq,
    r.vis,
    hour,
    r.pv,
    r.first,
    ...r.codes,
    r.tp,
    r.traffic,
  ]);
}

export function decodeFirsts(stored: Uint8Array): FirstRows {
  // the inflated buffer itself, the arrays views on it (copying it first cost as much as inflating it; a
  // small output is copied to its size by inflateArrays, not kept on zlib's 16 KB chunk)
  const { header: h, next } = inflateArrays<{ n: number; base: number; values: (string | null)[][] }>(
    stored,
    undefined,
    "firsts",
  );
  const dt = next<Float64Array>(Float64Array, h.n), seq = next<Float64Array>(Float64Array, h.n);
  const vis = next<Uint32Array>(Uint32Array, h.n), hour = next<Uint32Array>(Uint32Array, h.n);
  const pv = next<Uint32Array>(Uint32Array, h.n), first = next<Uint32Array>(Uint32Array, h.n);
  const codes = h.values.map(() => next<Uint32Array>(Uint32Array, h.n));
  const tp = next<Uint16Array>(Uint16Array, h.n), traffic = next<Uint8Array>(Uint8Array, h.n);
  for (let i = 0; i < h.n; i++) {
    hour[i] += h.base;
    dt[i] += hour[i] * HOUR + first[i];
  }
  return { n: h.n, vis, hour, tp, traffic, pv, first, dt, seq, codes, values: h.values };
}

/** The rows' session id hashes in stored order (FIRST_IDS_SEC). */
const encodeFirstIds = (f: SessionFacts, order: Uint32Array): Uint8Array =>
  packSection({ n: order.length }, [
    Uint32Array.from(order, (k) => f.h1[k]),
    Uint32Array.from(order, (k) => f.h2[k]),
  ]);

export function decodeFirstIds(stored: Uint8Array): { h1: Uint32Array; h2: Uint32Array } {
  const { h, next } = unpackSection<{ n: number }>(stored, "firstids");
  return { h1: next<Uint32Array>(Uint32Array, h.n), h2: next<Uint32Array>(Uint32Array, h.n) };
}

/**
 * Adds the first-events sections to a part's rollup written without them, from the part's batch; `entry` is
 * written back as given (the backfill passes a version-8 entry as this version's: only these are new).
 */
export async function addFirsts(
  kv: Deno.Kv,
  org: string,
  env: EnvName,
  partId: string,
  entry: RollupEntry,
  b: Batch,
): Promise<void> {
  const { facts, order } = await rebuildFacts(kv, org, env, partId, entry, b, null, "first events");
  const ids = encodeFirstIds(facts, order);
  await addSection(kv, partId, entry, FIRST_IDS_SEC, ids);
  const withIds = { ...entry, secs: { ...entry.secs, [FIRST_IDS_SEC]: secSize(ids) } };
  await addSection(kv, partId, withIds, FIRST_SEC, encodeFirsts(firstRowsOf(facts, order)));
}

/** Runs as stored: each run's key indices as steps from the one before (they ascend: small, they deflate well). */
function encodeRuns(r: AttrRuns): Uint8Array {
  const steps = new Uint32Array(r.keys.length);
  for (let x = 0; x < r.n; x++) {
    for (let i = r.at[x]; i < r.at[x + 1]; i++) {
      steps[i] = i > r.at[x] ? r.keys[i] - r.keys[i - 1] : r.keys[i];
    }
  }
  return packSection(
    { n: r.n, m: r.keys.length, sigs: r.sigs, tuples: r.tuples, pages: r.pages },
    [r.sig, r.at, steps, r.h0, r.h1, r.entry, r.blockRows, r.tp, r.traffic, r.complex],
  );
}

export function decodeRuns(stored: Uint8Array): AttrRuns {
  const { h, next } = unpackSection<
    { n: number; m: number; sigs: number[][]; tuples: (string | null)[][]; pages: (string | null)[] }
  >(stored, "runs");
  const sig = next<Uint32Array>(Uint32Array, h.n), at = next<Uint32Array>(Uint32Array, h.n + 1);
  const keys = next<Uint32Array>(Uint32Array, h.m);
  for (let x = 0; x < h.n; x++) for (let i = at[x] + 1; i < at[x + 1]; i++) keys[i] += keys[i - 1];
  return {
    n: h.n,
    sig,
    at,
    keys,
    h0: next<Uint32Array>(Uint32Array, h.m),
    h1: next<Uint32Array>(Uint32Array, h.m),
    entry: next<Uint32Array>(Uint32Array, h.m),
    blockRows: next<Uint32Array>(Uint32Array, BLOCKS),
    tp: next<Uint16Array>(Uint16Array, h.n),
    traffic: next<Uint8Array>(Uint8Array, h.n),
    complex: next<Uint8Array>(Uint8Array, BLOCKS),
    sigs: h.sigs,
    tuples: h.tuples,
    pages: h.pages,
  };
}

/**
 * Adds the runs section to a part's rollup written without it (before version 10), from its stored facts,
 * attributions, entries and keys (the part is not read); `entry` is written back as given.
 */
export async function addRuns(kv: Deno.Kv, partId: string, entry: RollupEntry): Promise<void> {
  const blocks: SessionFacts[] = [];
  const blockRows = new Uint32Array(BLOCKS);
  for (let b = 0; b < BLOCKS; b++) {
    const bytes = await readSection(kv, partId, entry, factsSec(b));
    if (bytes === undefined) throw new Error(`rollup facts of ${partId} went while adding runs`);
    if (!bytes) continue;
    const f = decodeFacts(bytes);
    blockRows[b] = f.n;
    blocks.push(f);
  }
  const facts = blocks.length ? concatFacts(blocks) : emptyFacts();
  const [attrBytes, endsBytes, keysBytes] = await readSections(kv, [
    { partId, entry, sec: ATTR_SEC },
    { partId, entry, sec: ENDS_SEC },
    { partId, entry, sec: KEYS_SEC },
  ]);
  if (!attrBytes || !endsBytes || keysBytes === undefined) {
    throw new Error(`rollup of ${partId} lacks attributions or entries to add runs from`);
  }
  const a = decodeAttr(attrBytes);
  const keys = keysBytes ? decodeKeys(keysBytes) : noKeys();
  const runs = buildRuns(
    facts,
    a.codes,
    a.multi,
    a.tuples,
    decodeEnds(endsBytes),
    entry.head.tps,
    entry.head.traffics,
    keys,
    blockRows,
  );
  await addSection(kv, partId, entry, ATTR_RUNS_SEC, encodeRuns(runs));
}

/** The spans' arrays in stored order (widest first). */
const SPANS_LAYOUT: [keyof Spans, Typed][] = [
  ["durationMs", Float64Array],
  ["dropped", Float64Array],
  ["h0", Uint32Array],
  ["h1", Uint32Array],
  ["sessions", Uint32Array],
  ["withPageview", Uint32Array],
  ["bounces", Uint32Array],
  ["tp", Uint16Array],
  ["traffic", Uint8Array],
  ["block", Uint8Array],
];

export function encodeSpans(p: Spans): Uint8Array {
  return packSection(
    { n: p.n, eng: p.engaged.length, cut: p.cut },
    [...SPANS_LAYOUT.map(([name]) => p[name] as ArrayBufferView), p.engAt, p.engaged, p.complex],
  );
}

/**
 * Spans of `SPANS_SEC`, or of `KEYED_SPANS_SEC` with the part's keys `k` (whole or short: the same order), their
 * engaged entries then turned into the visitors they index.
 */
export function decodeSpans(stored: Uint8Array, k?: PartKeys): Spans {
  const { h, next } = unpackSection<{ n: number; eng: number; cut?: [number, number]; keyed?: 1 }>(
    stored,
    "spans",
  );
  const p = { n: h.n, cut: h.cut } as Record<string, unknown>;
  for (const [name, T] of SPANS_LAYOUT) p[name] = next(T, h.n);
  const engAt = p.engAt = next<Uint32Array>(Uint32Array, h.n + 1);
  const engaged = p.engaged = next<Uint32Array>(Uint32Array, h.eng);
  p.complex = next(Uint8Array, BLOCKS);
  if (h.keyed) {
    if (!k) throw new Error("keyed spans read without the part's keys");
    for (let g = 0; g < h.n; g++) {
      let at = 0;
      for (let x = engAt[g]; x < engAt[g + 1]; x++) {
        at += engaged[x];
        if (at >= k.n) throw new Error("an engaged entry of the spans lies past the part's keys");
        engaged[x] = k.vis[at];
      }
    }
  }
  return p as unknown as Spans;
}

/**
 * Spans as `KEYED_SPANS_SEC` stores them: as `encodeSpans`, but each engaged entry is the index of its visitor's
 * first key in the part's keys `k` (sorted by visitor), as steps from the one before within its span.
 */
export function encodeKeyedSpans(p: Spans, k: PartKeys): Uint8Array {
  const steps = new Uint32Array(p.engaged.length);
  for (let g = 0; g < p.n; g++) {
    let prev = 0;
    for (let x = p.engAt[g]; x < p.engAt[g + 1]; x++) {
      const v = p.engaged[x];
      const lo = firstAtLeast(k.vis, v, k.n);
      if (lo >= k.n || k.vis[lo] !== v) throw new Error("an engaged visitor of the spans has no key");
      steps[x] = lo - prev;
      prev = lo;
    }
  }
  return packSection(
    { n: p.n, eng: p.engaged.length, cut: p.cut, keyed: 1 },
    [...SPANS_LAYOUT.map(([name]) => p[name] as ArrayBufferView), p.engAt, steps, p.complex],
  );
}

/** Which section holds a rollup's spans (0: none). */
export const spansSecOf = (e: RollupEntry): number =>
  e.secs[KEYED_SPANS_SEC] ? KEYED_SPANS_SEC : e.secs[SPANS_SEC] ? SPANS_SEC : 0;

/** Whether a rollup has its keyed spans, where it has spans. */
export const hasKeyedSpans = (e: RollupEntry): boolean =>
  !e.secs[SPANS_SEC] || e.secs[KEYED_SPANS_SEC] !== undefined;

/** A rollup's spans, either section (null: none; undefined: a section went while reading). */
export async function readSpans(
  kv: Deno.Kv,
  partId: string,
  entry: RollupEntry,
): Promise<Spans | null | undefined> {
  const sec = spansSecOf(entry);
  if (!sec) return null;
  // (keyed spans name their engaged visitors by the keys)
  const asks = [{ partId, entry, sec }, { partId, entry, sec: KEYS_SEC }];
  const [bytes, keyBytes] = await readSections(kv, asks);
  if (bytes === undefined || keyBytes === undefined) return undefined;
  if (!bytes) return null;
  return decodeSpans(bytes, keyBytes ? decodeKeys(keyBytes) : noKeys());
}

/** Adds the keyed spans to a part's rollup written without them, from its `SPANS_SEC` and keys (no part read). */
export async function addKeyedSpans(kv: Deno.Kv, partId: string, entry: RollupEntry): Promise<void> {
  const [bytes, keyBytes] = await readSections(kv, [
    { partId, entry, sec: SPANS_SEC },
    { partId, entry, sec: KEYS_SEC },
  ]);
  if (!bytes || keyBytes === undefined) throw new Error(`rollup spans of ${partId} went while keying them`);
  const k = keyBytes ? decodeKeys(keyBytes) : noKeys();
  await addSection(kv, partId, entry, KEYED_SPANS_SEC, encodeKeyedSpans(decodeSpans(bytes), k));
}

/** Keys as stored: visitor numbers as differences from the one before (small: they deflate well). */
function encodeKeys(k: PartKeys): Uint8Array {
  const steps = new Uint32Array(k.n);
  for (let i = 0; i < k.n; i++) steps[i] = i ? k.vis[i] - k.vis[i - 1] : k.vis[0];
  return packSection({ n: k.n }, [steps, k.h, k.block]);
}

export function decodeKeys(stored: Uint8Array): PartKeys {
  const { h, next } = unpackSection<{ n: number }>(stored, "keys");
  const vis = next<Uint32Array>(Uint32Array, h.n);
  for (let i = 1; i < h.n; i++) vis[i] += vis[i - 1];
  return { n: h.n, vis, h: next<Uint32Array>(Uint32Array, h.n), block: next<Uint8Array>(Uint8Array, h.n) };
}

/**
 * A visitor with at least this many sessions in a part keeps its keys' whole hashes in the short keys: compared
 * by 24 bits, a bot's thousands of sessions across parts would meet by chance (~n² / 2^25 pairs), each such
 * key making a period read and join its block for nothing.
 */
const WHOLE_FROM = 4;

/**
 * Keys as a period's totals read them (SHORT_KEYS_SEC): in `encodeKeys`' order, visitor numbers as
 * differences, each block, the low 16 bits and the next 8 bits of each id hash, then the top 8 bits of the keys
 * of visitors with `WHOLE_FROM` sessions or more in the part, in key order.
 */
export function encodeShortKeys(k: PartKeys): Uint8Array {
  const steps = new Uint32Array(k.n),
    low = new Uint16Array(k.n),
    mid = new Uint8Array(k.n),
    top: number[] = [];
  for (let i = 0; i < k.n; i++) {
    steps[i] = i ? k.vis[i] - k.vis[i - 1] : k.vis[0];
    low[i] = k.h[i] & 0xffff;
    mid[i] = (k.h[i] >>> 16) & 0xff;
  }
  for (let i = 0, j = 0; i < k.n; i = j) {
    while (j < k.n && k.vis[j] === k.vis[i]) j++;
    if (j - i >= WHOLE_FROM) { for (let x = i; x < j; x++) top.push(k.h[x] >>> 24); }
  }
  return packSection({ n: k.n, top: top.length }, [steps, low, k.block, mid, Uint8Array.from(top)]);
}

/** Short keys as read: `full` tells which hashes are whole (spans.ts PartKeys). */
export function decodeShortKeys(stored: Uint8Array): PartKeys {
  const { h, next } = unpackSection<{ n: number; top: number }>(stored, "shortkeys");
  const steps = next<Uint32Array>(Uint32Array, h.n);
  const low = next<Uint16Array>(Uint16Array, h.n), stored8 = next<Uint8Array>(Uint8Array, h.n);
  const mid = next<Uint8Array>(Uint8Array, h.n), top = next<Uint8Array>(Uint8Array, h.top);
  // what is kept (a period's kept totals hold the keys) in one buffer of 10 bytes a key, not the section's
  const n = h.n, buf = new ArrayBuffer(n * 10);
  const vis = new Uint32Array(buf, 0, n), hash = new Uint32Array(buf, n * 4, n);
  const block = new Uint8Array(buf, n * 8, n), full = new Uint8Array(buf, n * 9, n);
  block.set(stored8);
  for (let i = 0, v = 0; i < n; i++) vis[i] = v += steps[i];
  for (let x = 0; x < n; x++) hash[x] = low[x] | (mid[x] << 16);
  // keys of visitors with WHOLE_FROM or more (sorted: such a run holds x and x + WHOLE_FROM - 1) get their top
  let y = 0;
  if (h.top) {
    for (let x = 0; x + WHOLE_FROM - 1 < h.n; x++) {
      if (vis[x] === vis[x + WHOLE_FROM - 1]) full.fill(1, x, x + WHOLE_FROM);
    }
    for (let x = 0; x < h.n; x++) if (full[x]) hash[x] = (hash[x] | (top[y++] << 24)) >>> 0;
  }
  if (y !== h.top) throw new Error("short keys: whole hashes do not line up with their visitors");
  // copied out: the inflated section (8 bytes a key) is let go now (packed_arrays.ts `release`)
  release(new Uint8Array(steps.buffer));
  return { n: h.n, vis, h: hash, block, full };
}

/** Adds the short keys to a part's rollup written without them, from its `KEYS_SEC` (the part is not read). */
export async function addShortKeys(kv: Deno.Kv, partId: string, entry: RollupEntry): Promise<void> {
  const bytes = await readSection(kv, partId, entry, KEYS_SEC);
  if (!bytes) throw new Error(`rollup keys of ${partId} went while adding its short keys`);
  await addSection(kv, partId, entry, SHORT_KEYS_SEC, encodeShortKeys(decodeKeys(bytes)));
}

/** Whether a rollup has its short keys, where it has keys to take them from. */
export const hasShortKeys = (e: RollupEntry): boolean =>
  !e.secs[KEYS_SEC] || e.secs[SHORT_KEYS_SEC] !== undefined;

/** Whether every section a rollup lists has its inflated size (`Sec`'s third figure). */
export const hasRawSizes = (e: RollupEntry): boolean => Object.values(e.secs).every((s) => s.length === 3);

/**
 * Adds the inflated sizes to a rollup entry written without them (before 28 Nov): each section listed without
 * one is read and inflated, 32 at a time (at 10M events a part's sections are ~1.6 MB stored). False when a
 * section cannot be read (its chunks gone: a part merged away meanwhile, or a rollup to be made again).
 */
export async function addRawSizes(kv: Deno.Kv, partId: string, entry: RollupEntry): Promise<boolean> {
  const missing = Object.keys(entry.secs).map(Number).filter((sec) => entry.secs[sec].length < 3);
  const secs = { ...entry.secs };
  for (let i = 0; i < missing.length; i += 32) {
    const window = missing.slice(i, i + 32);
    const got = await readSections(kv, window.map((sec) => ({ partId, entry, sec })));
    for (let x = 0; x < window.length; x++) {
      const bytes = got[x];
      if (!bytes) return false;
      const [stored, chunks] = entry.secs[window[x]];
      secs[window[x]] = [stored, chunks, inflateBytes(bytes).length];
    }
  }
  await kv.set(keys.rollup(partId), { ...entry, secs });
  return true;
}

export const encodeEnds = (n: number, e: FactEnds): Uint8Array =>
  packSection({ n, pages: e.pages }, ENDS_LAYOUT.map(([name]) => e[name] as ArrayBufferView));

export function decodeEnds(stored: Uint8Array): FactEnds {
  const { h, next } = unpackSection<{ n: number; pages: (string | null)[] }>(stored, "ends");
  const e = { pages: h.pages } as Record<string, unknown>;
  for (const [name, T] of ENDS_LAYOUT) e[name] = next(T as unknown as Typed, h.n);
  return e as unknown as FactEnds;
}

/** One side of a session's ends (its entry or its exit) as arrays of rows. */
interface EndSide {
  dt: Float64Array;
  seq: Float64Array;
  t: Uint32Array;
  page: Uint32Array;
  pages: (string | null)[];
}

/**
 * Rows [from, to) of one side of the ends as a block's section: page codes made the block's own (0 still no
 * page, code c the block's pages[c - 1]), so a block carries only the pages it names.
 */
function encodeBlockSide(x: EndSide, from: number, to: number): Uint8Array {
  const n = to - from, local = new Map<number, number>(), pages: (string | null)[] = [];
  const page = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const c = x.page[from + i];
    if (c === 0) continue;
    let l = local.get(c);
    if (l === undefined) local.set(c, l = pages.push(x.pages[c - 1]));
    page[i] = l;
  }
  return packSection({ n, pages }, [x.dt.slice(from, to), x.seq.slice(from, to), x.t.slice(from, to), page]);
}

function decodeBlockSide(stored: Uint8Array, what: string): EndSide {
  const { h, next } = unpackSection<{ n: number; pages: (string | null)[] }>(stored, what);
  return {
    dt: next<Float64Array>(Float64Array, h.n),
    seq: next<Float64Array>(Float64Array, h.n),
    t: next<Uint32Array>(Uint32Array, h.n),
    page: next<Uint32Array>(Uint32Array, h.n),
    pages: h.pages,
  };
}

/** Rows [from, to) of the ends' entries as a block's section. */
const encodeBlockEntries = (e: FactEnds, from: number, to: number): Uint8Array =>
  encodeBlockSide({ dt: e.entDt, seq: e.entSeq, t: e.entT, page: e.entPage, pages: e.pages }, from, to);

/** Rows [from, to) of the ends' exits as a block's section (page codes the block's own, as for its entries). */
const encodeBlockExits = (e: FactEnds, from: number, to: number): Uint8Array =>
  encodeBlockSide({ dt: e.extDt, seq: e.extSeq, t: e.extT, page: e.extPage, pages: e.pages }, from, to);

/** A block's entries (`encodeBlockEntries`) as ends holding only entries (row i is the block's row i). */
export function decodeBlockEntries(stored: Uint8Array): FactEnds {
  const x = decodeBlockSide(stored, "blockentries");
  return { entDt: x.dt, entSeq: x.seq, entT: x.t, entPage: x.page, pages: x.pages } as FactEnds;
}

/**
 * A block's ends from its entries and exits sections (row i the block's row i): one pages list, the exits'
 * codes moved past the entries' pages.
 */
export function decodeBlockEnds(entries: Uint8Array, exits: Uint8Array): FactEnds {
  const e = decodeBlockEntries(entries), x = decodeBlockSide(exits, "blockexits");
  const base = e.pages.length;
  for (let i = 0; i < x.page.length; i++) if (x.page[i]) x.page[i] += base;
  return { ...e, extDt: x.dt, extSeq: x.seq, extT: x.t, extPage: x.page, pages: [...e.pages, ...x.pages] };
}

const encodeSpanEnds = (x: SpanEnds): Uint8Array =>
  packSection({ n: x.n, ent: x.entPage.length, ext: x.extPage.length, pages: x.pages }, [
    x.entAt,
    x.entPage,
    x.entN,
    x.extAt,
    x.extPage,
    x.extN,
  ]);

export function decodeSpanEnds(stored: Uint8Array): SpanEnds {
  const { h, next } = unpackSection<{ n: number; ent: number; ext: number; pages: (string | null)[] }>(
    stored,
    "spanends",
  );
  return {
    n: h.n,
    pages: h.pages,
    entAt: next<Uint32Array>(Uint32Array, h.n + 1),
    entPage: next<Uint32Array>(Uint32Array, h.ent),
    entN: next<Uint32Array>(Uint32Array, h.ent),
    extAt: next<Uint32Array>(Uint32Array, h.n + 1),
    extPage: next<Uint32Array>(Uint32Array, h.ext),
    extN: next<Uint32Array>(Uint32Array, h.ext),
  };
}

/** Whether a rollup has each of its blocks' entries (`entriesSec`), where it has ends to take them from. */
export const hasBlockEntries = (e: RollupEntry): boolean =>
  !e.secs[ENDS_SEC] ||
  Array.from({ length: BLOCKS }, (_, b) => b).every((b) =>
    !e.secs[factsSec(b)] || e.secs[entriesSec(b)] !== undefined
  );

/**
 * Whether a rollup has each of its blocks' entries and exits (`entriesSec`, `exitsSec`) and its spans' ends
 * (`SPAN_ENDS_SEC`), where it has ends to take them from.
 */
export const hasBlockEnds = (e: RollupEntry): boolean =>
  !e.secs[ENDS_SEC] ||
  (hasBlockEntries(e) &&
    Array.from({ length: BLOCKS }, (_, b) => b).every((b) =>
      !e.secs[factsSec(b)] || e.secs[exitsSec(b)] !== undefined
    ) && (!spansSecOf(e) || e.secs[SPAN_ENDS_SEC] !== undefined));

/**
 * Adds what a rollup lacks of its blocks' entries and exits and its spans' ends, from its own ends, the runs'
 * rows per block (stored order: block b's rows follow block b - 1's) and, for the spans' ends, its stored facts
 * and spans. The part is not read.
 */
export async function addEntryBlocks(kv: Deno.Kv, partId: string, entry: RollupEntry): Promise<void> {
  const [endsBytes, runsBytes] = await readSections(kv, [
    { partId, entry, sec: ENDS_SEC },
    { partId, entry, sec: ATTR_RUNS_SEC },
  ]);
  if (!endsBytes || !runsBytes) {
    throw new Error(`rollup of ${partId} lacks entries or runs to add block entries from`);
  }
  const ends = decodeEnds(endsBytes), { blockRows } = decodeRuns(runsBytes);
  const secs = new Map<number, Uint8Array>();
  let from = 0;
  for (let b = 0; b < BLOCKS; b++) {
    const to = from + blockRows[b];
    if (to > from && !entry.secs[entriesSec(b)]) secs.set(entriesSec(b), encodeBlockEntries(ends, from, to));
    if (to > from && !entry.secs[exitsSec(b)]) secs.set(exitsSec(b), encodeBlockExits(ends, from, to));
    from = to;
  }
  if (spansSecOf(entry) && !entry.secs[SPAN_ENDS_SEC]) {
    const spans = await readSpans(kv, partId, entry);
    const facts = await readFacts(kv, partId, entry);
    if (!spans || !facts) throw new Error(`rollup of ${partId} went while adding its spans' ends`);
    const { tps, traffics } = entry.head;
    secs.set(SPAN_ENDS_SEC, encodeSpanEnds(storedSpanEnds(facts, ends, tps, traffics, spans)));
  }
  let secsNow = { ...entry.secs };
  for (const [sec, bytes] of secs) {
    secsNow = { ...secsNow, [sec]: await writeSectionChunks(kv, partId, sec, bytes) };
  }
  await kv.set(keys.rollup(partId), { ...entry, secs: secsNow });
}

/**
 * Adds the entries-and-exits section to a part's rollup written without it, from the part's batch: row k of
 * the section is stored fact row k, its ends those of the same segment rebuilt.
 */
export async function addEnds(
  kv: Deno.Kv,
  org: string,
  env: EnvName,
  partId: string,
  entry: RollupEntry,
  b: Batch,
): Promise<void> {
  const { facts, order } = await rebuildFacts(kv, org, env, partId, entry, b, null, "entries and exits");
  await addSection(kv, partId, entry, ENDS_SEC, encodeEnds(order.length, reorderEnds(facts.ends!, order)));
}

/** Field f's rows (without their sets: `sets` is empty until they are read). */
export function decodeRows(stored: Uint8Array, head: RollupHead, f: number): Rollup {
  const { h, next } = unpackSection<{ n: number; values: (string | null)[]; rep?: number }>(
    stored,
    `rows${f}`,
  );
  const arrays = {} as Record<string, unknown>;
  for (const [name, T, extra] of LAYOUT) arrays[name] = next(T, h.n + extra);
  const counts = h.rep ? next<Uint8Array>(Uint8Array, h.n) : null;
  return {
    ...(arrays as unknown as Arrays),
    n: h.n,
    field: new Uint8Array(h.n).fill(f),
    sets: EMPTY_SETS,
    repAt: counts ? reporterOffsets(counts, h.n) : NO_REPORTERS,
    rep: counts ? next<Uint32Array>(Uint32Array, h.rep!) : NO_REPORTERS,
    values: h.values,
    ...head,
    facts: NO_FACTS,
  };
}

/** A field's sets (`kind`: which field's, hourly or wide: their sizes inflated differ by field). */
export const decodeSets = (stored: Uint8Array, kind = "sets"): Uint8Array =>
  inflateBytes(stored, undefined, kind);

export function decodeFacts(stored: Uint8Array): SessionFacts {
  const { h, next } = unpackSection<{ n: number }>(stored, "facts");
  const f = { n: h.n } as Record<string, unknown>;
  for (const [name, T] of FACT_LAYOUT) f[name] = next(T as unknown as Typed, h.n);
  f.listAt = new Uint32Array(h.n + 1);
  f.listDt = new Float64Array(0);
  f.listSeq = new Float64Array(0);
  f.ends = null;
  return f as unknown as SessionFacts;
}

export function decodeLists(stored: Uint8Array): FactLists {
  const { h, next } = unpackSection<{ n: number; list: number }>(stored, "lists");
  const listAt = next<Uint32Array>(Uint32Array, h.n + 1);
  const listDt = next<Float64Array>(Float64Array, h.list);
  const listSeq = next<Float64Array>(Float64Array, h.list);
  return { listAt, listDt, listSeq };
}

/** The rollup of a part's batch, numbering its visitors (new ones get their numbers now, for good). */
export async function partRollup(kv: Deno.Kv, org: string, env: EnvName, b: Batch): Promise<Rollup> {
  const numbers = await numberVisitors(kv, org, env, batchVisitors(b));
  const rows = rowVisitors(b, numbers);
  return buildRollup(b, (i) => rows[i]);
}

/** Writes a part's rollup: its sections' chunks first, the entry last. Answers the bytes stored. */
export async function writeRollup(kv: Deno.Kv, partId: string, r: Rollup, turn?: Turn): Promise<number> {
  const { head, secs } = turn ? await runTurning(encodeSteps(r), turn) : encodeSections(r);
  await clearRollup(kv, partId);
  const sizes: Record<string, Sec> = {};
  const writes: [number, Uint8Array][] = [];
  let total = 0;
  for (const [sec, bytes] of secs) {
    const chunks = Math.max(1, Math.ceil(bytes.length / CHUNK_BYTES));
    if (chunks >= SEC_SPAN) throw new Error(`rollup section ${sec} of ${partId} is too large`);
    sizes[sec] = secSize(bytes);
    total += bytes.length;
    for (let j = 0; j < chunks; j++) {
      writes.push([sec * SEC_SPAN + j, bytes.subarray(j * CHUNK_BYTES, (j + 1) * CHUNK_BYTES)]);
    }
  }
  for (let i = 0; i < writes.length; i += 8) {
    const op = kv.atomic();
    for (const [at, bytes] of writes.slice(i, i + 8)) op.set(keys.rollupChunk(partId, at), bytes.slice());
    if (!(await op.commit()).ok) throw new Error("rollup chunk write failed");
  }
  const entry: RollupEntry = { v: ROLLUP_VERSION, head, secs: sizes };
  await kv.set(keys.rollup(partId), entry);
  return total;
}

/**
 * Deletes a part's rollup (the entry first: no question reads it half gone), so an older version's chunks
 * never sit among a new one's.
 */
export async function clearRollup(kv: Deno.Kv, partId: string): Promise<void> {
  await kv.delete(keys.rollup(partId));
  const old: Deno.KvKey[] = [];
  for await (const e of kv.list({ prefix: keys.rollupChunks(partId) }, { batchSize: 500 })) old.push(e.key);
  for (let i = 0; i < old.length; i += 100) {
    const op = kv.atomic();
    for (const k of old.slice(i, i + 100)) op.delete(k);
    await op.commit();
  }
}

/** A part's rollup entry, or null when it has none (yet) or one of another version. */
export async function readEntry(kv: Deno.Kv, partId: string): Promise<RollupEntry | null> {
  const entry = (await kv.get<RollupEntry>(keys.rollup(partId))).value;
  return entry && entry.v === ROLLUP_VERSION ? entry : null;
}

/**
 * The versionstamp each entry object was read with (the rollup reader notes it): a chunk written after it
 * belongs to a rewrite (writers write a section's chunks, then the entry), so for a question holding that
 * entry the section is gone, whatever the chunk's size.
 */
export const readStamps = new WeakMap<RollupEntry, string>();
const newerThan = (entry: RollupEntry, versionstamp: string) => {
  const stamp = readStamps.get(entry);
  return stamp !== undefined && versionstamp > stamp;
};

/**
 * One section's stored bytes: null when the entry has no such section (nothing of it in the part), or
 * undefined when its chunks are gone (the part went, a merge, while reading: the caller re-plans).
 */
export async function readSection(
  kv: Deno.Kv,
  partId: string,
  entry: RollupEntry,
  sec: number,
): Promise<Uint8Array | null | undefined> {
  const size = entry.secs[sec];
  if (!size) return null;
  // (chunks that do not fit the entry, or were written after it: the section written again, gone as a chunk
  // missing is, never read out of bounds)
  const chunkKey = (at: number) => keys.rollupChunk(partId, at);
  const bytes = await readSectionBytes(kv, chunkKey, SEC_SPAN, sec, size[0], size[1], readStamps.get(entry));
  return bytes ? knowRawSize(bytes, size[2]) : undefined;
}

/** A section asked of `readSections`. */
export interface SectionAsk {
  partId: string;
  entry: RollupEntry;
  sec: number;
}

/**
 * Many sections' stored bytes at once (as `readSection` each: null without the section, undefined when its
 * chunks went), their chunks fetched ten keys a call: a KV call's latency, not its bytes, is what a period's
 * hundreds of small sections cost one at a time.
 */
export async function readSections(
  kv: Deno.Kv,
  asks: SectionAsk[],
): Promise<(Uint8Array | null | undefined)[]> {
  // a section of one chunk is that chunk's value as read (most are: no buffer made and copied into); one
  // of several gets its buffer when its first chunk comes
  const out: (Uint8Array | null | undefined)[] = asks.map(() => null);
  const seen = new Int32Array(asks.length);
  // (a chunk that does not fit its entry's sizes was written after the entry was read: the section is gone)
  const misfit = new Uint8Array(asks.length);
  const wanted: { ask: number; j: number }[] = [];
  asks.forEach(({ entry, sec }, ask) => {
    const size = entry.secs[sec];
    if (size) { for (let j = 0; j < size[1]; j++) wanted.push({ ask, j }); }
  });
  const groups: { ask: number; j: number }[][] = [];
  for (let i = 0; i < wanted.length; i += 10) groups.push(wanted.slice(i, i + 10));
  await inBatches(groups, 4, async (group) => {
    const got = await kv.getMany<Uint8Array[]>(
      group.map(({ ask, j }) => keys.rollupChunk(asks[ask].partId, asks[ask].sec * SEC_SPAN + j)),
    );
    got.forEach((e, x) => {
      const { ask, j } = group[x];
      if (e.value === null) return;
      const [bytes, chunks] = asks[ask].entry.secs[asks[ask].sec];
      if (j * CHUNK_BYTES + e.value.length > bytes || newerThan(asks[ask].entry, e.versionstamp)) {
        misfit[ask] = 1;
        return;
      }
      if (chunks === 1 && e.value.length === bytes) out[ask] = e.value;
      else {
        (out[ask] ??= new Uint8Array(bytes)).set(e.value, j * CHUNK_BYTES);
        release(e.value); // (copied into the section's buffer)
      }
      seen[ask]++;
    });
  });
  return asks.map(({ entry, sec }, ask) => {
    const size = entry.secs[sec];
    if (!size) return null;
    return seen[ask] === size[1] && !misfit[ask] ? knowRawSize(out[ask]!, size[2]) : undefined;
  });
}

/** Whether a part has a rollup of this version (with its entries and exits). */
export async function hasRollup(kv: Deno.Kv, partId: string): Promise<boolean> {
  const e = (await kv.get<RollupEntry>(keys.rollup(partId))).value;
  return e?.v === ROLLUP_VERSION && e.secs[ENDS_SEC] !== undefined && e.secs[ATTR_SEC] !== undefined &&
    e.secs[FIRST_SEC] !== undefined && e.secs[FIRST_IDS_SEC] !== undefined &&
    e.secs[ATTR_RUNS_SEC] !== undefined && hasBlockEnds(e) && hasShortKeys(e) && hasKeyedSpans(e) &&
    hasRawSizes(e);
}

/** A whole rollup read back from its sections (tests, the bench's checks), or null without one. */
export async function readRollup(kv: Deno.Kv, partId: string): Promise<Rollup | null> {
  const entry = await readEntry(kv, partId);
  return entry ? await readWhole(kv, partId, entry) : null;
}

async function readWhole(kv: Deno.Kv, partId: string, entry: RollupEntry): Promise<Rollup | null> {
  const pieces: Rollup[] = [];
  for (const f of PIECE_FIELDS) {
    const rows = await readSection(kv, partId, entry, rowsSec(f));
    if (rows === undefined) return null;
    if (rows === null) continue;
    const p = decodeRows(rows, entry.head, f);
    const sets = await readSection(kv, partId, entry, setsSec(f));
    if (sets === undefined) return null;
    if (sets) p.sets = decodeSets(sets);
    pieces.push(p);
  }
  const f = await readFacts(kv, partId, entry);
  if (!f) return null;
  // (spans before version 6 are laid out otherwise: their cut is not read)
  const spans = entry.v >= 6 ? await readSpans(kv, partId, entry) : null;
  if (spans === undefined) return null;
  const cut = spans?.cut;
  if (cut) f.cut = cut;
  const ends = await readSection(kv, partId, entry, ENDS_SEC);
  if (ends === undefined) return null;
  if (ends) f.ends = decodeEnds(ends);
  // (the attributions are a section of their own, read apart: readAttr)
  return joinPieces(pieces, entry.head, f);
}

/** A rollup's attributions (its facts' rows in stored order), or null without them. */
export async function readAttr(kv: Deno.Kv, partId: string): Promise<FactAttr | null> {
  const entry = await readEntry(kv, partId);
  const bytes = entry ? await readSection(kv, partId, entry, ATTR_SEC) : null;
  return bytes ? decodeAttr(bytes) : null;
}

/**
 * A rollup's facts with their lists, all blocks in stored order (version 4: its one section), or null when a
 * section went while reading.
 */
async function readFacts(kv: Deno.Kv, partId: string, entry: RollupEntry): Promise<SessionFacts | null> {
  if (entry.v === 4) {
    const facts = await readSection(kv, partId, entry, FACTS_SEC);
    const lists = await readSection(kv, partId, entry, LISTS_SEC);
    if (facts === undefined || lists === undefined) return null;
    const f = facts ? decodeFacts(facts) : emptyFacts();
    if (lists) Object.assign(f, decodeLists(lists));
    return f;
  }
  const blocks: SessionFacts[] = [], lists: FactLists[] = [];
  for (let b = 0; b < BLOCKS; b++) {
    const facts = await readSection(kv, partId, entry, factsSec(b));
    if (facts === undefined) return null;
    if (!facts) continue;
    const l = await readSection(kv, partId, entry, listsSec(b));
    if (!l) return null;
    blocks.push(decodeFacts(facts));
    lists.push(decodeLists(l));
  }
  if (!blocks.length) return emptyFacts();
  return Object.assign(concatFacts(blocks), concatLists(lists, blocks.map((b) => b.n)));
}

/**
 * A version-4, -5 or -6 rollup (in sections) read whole: the backfill rewrites it in this version without
 * reading the part. Null without one.
 */
export async function readV4(kv: Deno.Kv, partId: string): Promise<Rollup | null> {
  const entry = (await kv.get<RollupEntry>(keys.rollup(partId))).value;
  if (!entry || entry.v < 4 || entry.v >= ROLLUP_VERSION) return null;
  // (a version-8 to -10 one differs only by the first events, the runs and the reporters: the backfill adds
  // those, readV8)
  if (entry.v >= 8) return null;
  return await readWhole(kv, partId, entry);
}

/**
 * A version-8, -9 or -10 rollup's entry (its sections are this version's but the first events, the runs and the
 * page and totals rows' reporters), or null without one: the backfill rewrites those rows (`addReporters`,
 * which makes the entry this version's), then adds the other sections, without rewriting the rest.
 */
export async function readV8(kv: Deno.Kv, partId: string): Promise<RollupEntry | null> {
  const entry = (await kv.get<RollupEntry>(keys.rollup(partId))).value;
  return entry && entry.v >= 8 && entry.v < ROLLUP_VERSION ? entry : null;
}

const fieldSecs = (f: number) => [rowsSec(f), setsSec(f), wideRowsSec(f), wideSetsSec(f)];

/** The sections `addReporters` writes again (the rest of the rollup stays as written). */
export const REPORTER_SECS: readonly number[] = PIECE_FIELDS.filter(keepsReporters).flatMap(fieldSecs);

/**
 * Gives a version-8 to -10 rollup (`readV8`) its reporters: the sections of the fields that keep them
 * (reporters.ts: the page's and the totals' rows and sets, hourly and wide) made again from the part's batch
 * (the same rows: the same batch and visitor numbers), their old chunks deleted first, then the entry written
 * as this version's with their new sizes. Until then the entry is not current, so no question reads the
 * sections while they change.
 */
export async function addReporters(
  kv: Deno.Kv,
  org: string,
  env: EnvName,
  partId: string,
  entry: RollupEntry,
  b: Batch,
): Promise<void> {
  const r = await partRollup(kv, org, env, b);
  const secs = { ...entry.secs };
  for (const f of PIECE_FIELDS.filter(keepsReporters)) {
    for (const sec of fieldSecs(f)) {
      const old = secs[sec];
      if (!old) continue;
      for (let j = 0; j < old[1]; j += 100) {
        const op = kv.atomic();
        for (let k = j; k < Math.min(old[1], j + 100); k++) {
          op.delete(keys.rollupChunk(partId, sec * SEC_SPAN + k));
        }
        await op.commit();
      }
      delete secs[sec];
    }
    const p = fieldPiece(r, f);
    if (!p.n) continue;
    for (const [sec, bytes] of fieldSections(p, f)) {
      secs[sec] = await writeSectionChunks(kv, partId, sec, bytes);
    }
  }
  await kv.set(keys.rollup(partId), { ...entry, v: ROLLUP_VERSION, secs });
}

/** Pieces of one rollup as one (sets and values concatenated). */
function joinPieces(pieces: Rollup[], head: RollupHead, facts: SessionFacts): Rollup {
  const n = pieces.reduce((s, p) => s + p.n, 0);
  const values: (string | null)[] = [null];
  const r = {
    n,
    field: new Uint8Array(n),
    visAt: new Uint32Array(n + 1),
    viewAt: new Uint32Array(n + 1),
    values,
    ...head,
    facts,
  } as Record<string, unknown>;
  for (const [name, T] of LAYOUT) if (name !== "visAt" && name !== "viewAt") r[name] = new T(n);
  const sets = new Uint8Array(pieces.reduce((s, p) => s + p.sets.length, 0));
  const reps: number[][] = [];
  let k = 0, o = 0;
  for (const p of pieces) {
    const base = values.length - 1;
    values.push(...p.values.slice(1));
    for (let i = 0; i < p.n; i++, k++) {
      for (const [name] of LAYOUT) {
        if (name === "visAt" || name === "viewAt") continue;
        (r[name] as Uint32Array)[k] = p[name][i];
      }
      (r.value as Uint32Array)[k] = p.value[i] === 0 ? 0 : p.value[i] + base;
      (r.field as Uint8Array)[k] = p.field[i];
      (r.visAt as Uint32Array)[k] = o + p.visAt[i];
      (r.viewAt as Uint32Array)[k] = o + p.viewAt[i];
      const rep: number[] = [];
      addRowReporters(rep, p, i);
      reps.push(rep);
    }
    sets.set(p.sets, o);
    o += p.sets.length;
  }
  (r.visAt as Uint32Array)[n] = (r.viewAt as Uint32Array)[n] = o;
  r.sets = sets;
  Object.assign(r, packReporters(reps));
  return r as unknown as Rollup;
}

/** A version-3 rollup's stored blob (one deflated record), decoded: the backfill turns it into sections. */
export function decodeV3(stored: Uint8Array): Rollup {
  const bytes = inflateBytes(stored);
  const len = new DataView(bytes.buffer, bytes.byteOffset).getUint32(0, true);
  const h = JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + len)));
  if (h.v !== 3) throw new Error(`rollup version ${h.v} is not 3`);
  const n: number = h.n;
  let o = align(4 + len);
  const buf = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  const arrays = {} as Record<string, unknown>;
  // version 3's order: the row columns as now, with the field column last
  for (const [name, T, extra] of [...LAYOUT, ["field", Uint8Array, 0] as const]) {
    arrays[name] = new T(buf, o, n + extra);
    o += align((n + extra) * T.BYTES_PER_ELEMENT);
  }
  const sets = new Uint8Array(buf, o, h.sets);
  o += align(h.sets);
  const facts = { n: h.facts } as Record<string, unknown>;
  for (const [name, T] of FACT_LAYOUT) {
    facts[name] = new (T as unknown as Typed)(buf, o, h.facts);
    o += align(h.facts * bytesOf(T));
  }
  facts.listDt = new Float64Array(buf, o, h.list);
  o += 8 * h.list;
  facts.listSeq = new Float64Array(buf, o, h.list);
  o += 8 * h.list;
  facts.listAt = new Uint32Array(buf, o, h.facts + 1);
  facts.ends = null;
  return {
    ...(arrays as unknown as Arrays & { field: Uint8Array }),
    n,
    sets,
    // (version 3 kept no reporters: the backfill builds a rollup from the part instead)
    repAt: NO_REPORTERS,
    rep: NO_REPORTERS,
    facts: facts as unknown as SessionFacts,
    values: h.values,
    tps: h.tps,
    traffics: h.traffics,
    hours: h.hours,
  };
}

/** A part's version-3 rollup (one blob), or null without one. */
export async function readV3(kv: Deno.Kv, partId: string): Promise<Rollup | null> {
  const entry = (await kv.get<{ v: number; bytes: number; chunks: number }>(keys.rollup(partId))).value;
  if (!entry || entry.v !== 3) return null;
  const bytes = new Uint8Array(entry.bytes);
  let seen = 0;
  for await (const e of kv.list<Uint8Array>({ prefix: keys.rollupChunks(partId) }, { batchSize: 100 })) {
    const at = e.key[2] as number;
    if (at * CHUNK_BYTES >= entry.bytes) continue;
    bytes.set(e.value, at * CHUNK_BYTES);
    seen++;
  }
  return seen === entry.chunks ? decodeV3(bytes) : null;
}
