/**
 * StoredEvent[] ⇄ columnar batch. Rows are sorted by visitor, session, then time, so a session's events
 * are contiguous and in order inside a batch; properties get one column each (JSON values), rare ones
 * share a rest column. Nothing is dropped: reconstruct(build(x)) equals x in that order.
 */
import type { StoredEvent } from "../store/records.ts";
import {
  type Batch,
  type ColumnMaker,
  makeColumns,
  numAt,
  type NumCol,
  numCol,
  rowsInSlices,
  SLICE_ROWS,
  strAt,
  type StrCol,
  strCol,
} from "./columns.ts";
import { noTurns, type Turn } from "../turns.ts";
import { sortInSlices } from "./slice_sort.ts";

/** At most this many property names get their own column per part. */
export const PROP_COLUMNS = 64;
/**
 * Only names this long at most get a column: the part's column directory is one KV value (64 KiB), and events
 * stored before ingest refused longer names (json_limits.ts keyChars) may hold them. Longer names stay in the
 * rest column, read the same way.
 */
export const OWN_NAME_CHARS = 200;

const dtOf = (e: StoredEvent) => {
  const t = Date.parse(e.device_time);
  return Number.isNaN(t) ? 0 : t;
};

/** Session order: receive time, device time, sequence number (merge_events.ts `mergedOrder` sorts columns alike). */
export function eventOrder(a: StoredEvent, b: StoredEvent): number {
  return a.received_at - b.received_at || dtOf(a) - dtOf(b) || a.sequence_no - b.sequence_no;
}

/** Batch order: visitor, session, then session order. */
const batchOrder = (a: StoredEvent, b: StoredEvent) =>
  a.anonymous_id < b.anonymous_id
    ? -1
    : a.anonymous_id > b.anonymous_id
    ? 1
    : a.session_id < b.session_id
    ? -1
    : a.session_id > b.session_id
    ? 1
    : eventOrder(a, b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Sorts in place by visitor, session, then session order. */
export function sortEvents(events: StoredEvent[]): StoredEvent[] {
  return events.sort(batchOrder);
}

const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));

/** Batches of frozen inputs, kept while the input lives (see buildEventBatch). */
const ofFrozen = new WeakMap<readonly StoredEvent[], Promise<Batch>>();

/**
 * Builds the batch of events (sorting them in place); with `turn`, the event loop gets turns while they are
 * sorted and between columns (compaction runs beside ingest, and a question over a large raw tail beside
 * everything else). A frozen input cannot change, so its batch is built once and given to every caller
 * while the input lives: the read engine hands out the raw tail frozen (columns/source.ts), and each kind
 * of question that builds it (scan, rollups, property rollups) then shares one build (issue 32: 1.2 s for
 * 40,000 events, per question). A frozen input is copied, not sorted in place; callers must not change
 * the batch.
 */
export function buildEventBatch(input: StoredEvent[], turn: Turn = noTurns): Promise<Batch> {
  if (!Object.isFrozen(input)) return build(input, turn);
  let built = ofFrozen.get(input);
  if (!built) {
    const b = built = build([...input], turn);
    ofFrozen.set(input, b);
    b.catch(() => ofFrozen.get(input) === b && ofFrozen.delete(input));
  }
  return built;
}

async function build(input: StoredEvent[], turn: Turn): Promise<Batch> {
  const { n, makers } = await eventColumns(await sortInSlices(input, batchOrder, turn), turn);
  return { n, cols: await makeColumns(makers, turn) };
}

/** Lists how each column of the sorted events is made. */
async function eventColumns(ev: StoredEvent[], turn: Turn): Promise<{ n: number; makers: ColumnMaker[] }> {
  const n = ev.length;
  const freq = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    for (const k in ev[i].properties) freq.set(k, (freq.get(k) ?? 0) + 1);
    if (i % SLICE_ROWS === SLICE_ROWS - 1) await turn();
  }
  for (const k of freq.keys()) if (k.length > OWN_NAME_CHARS) freq.delete(k);
  const own = [...freq].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, PROP_COLUMNS).map((
    [k],
  ) => k);
  const ownSet = new Set(own);
  const s = (get: (e: StoredEvent) => string | null | undefined) => (turn: Turn) =>
    strCol(n, (i) => get(ev[i]), turn);
  // JSON of an object that neighbouring rows share (a session's records hold the same context when the
  // generator makes them): serialised once per run of the same object
  const sameJson =
    (get: (e: StoredEvent) => unknown, text: (v: unknown) => string | null | undefined = json) =>
    (turn: Turn) => {
      let last: unknown = undefined, out: string | null | undefined = null;
      return strCol(n, (i) => {
        const v = get(ev[i]);
        if (v !== last || v === null || typeof v !== "object") out = text(last = v);
        return out;
      }, turn);
    };
  // device times, parsed once for the dt and dts columns
  let dts: Float64Array | null = null;
  const dtAt = (i: number) => (dts ??= Float64Array.from(ev, dtOf))[i];
  const num = (get: (e: StoredEvent) => number | null) => (turn: Turn) => numCol(n, (i) => get(ev[i]), turn);
  const cols: Record<string, ColumnMaker[1]> = {
    id: s((e) => e.id),
    anon: s((e) => e.anonymous_id),
    session: s((e) => e.session_id),
    user: s((e) => e.user_id),
    touchpoint: s((e) => e.touchpoint),
    platform: s((e) => e.platform),
    event_type: s((e) => e.event_type),
    screen: s((e) => e.screen),
    page: s((e) => e.path),
    host: s((e) => e.host),
    fp: sameJson((e) => e.fingerprint),
    element: s((e) => e.element),
    ctx: sameJson((e) => e.context, JSON.stringify),
    country: s((e) => e.geo.country),
    city: s((e) => e.geo.city),
    as_org: s((e) => e.geo.as_org),
    browser: s((e) => e.browser),
    os: s((e) => e.os),
    device_type: s((e) => e.device_type),
    referrer_host: s((e) => e.referrer_host),
    source: s((e) => e.source),
    channel: s((e) => e.channel),
    utm: sameJson((e) => e.utm),
    traffic: s((e) => e.traffic),
    crawler: s((e) => e.crawler),
    dts: (turn: Turn) =>
      strCol(
        n,
        (i) => (new Date(dtAt(i)).toISOString() === ev[i].device_time ? null : ev[i].device_time),
        turn,
      ),
    t: num((e) => e.received_at),
    dt: (turn: Turn) => numCol(n, dtAt, turn),
    seq: num((e) => e.sequence_no),
    gap: num((e) => e.gap_before),
    asn: num((e) => e.geo.asn),
    "p*": s((e) => {
      const rest = Object.entries(e.properties).filter(([k]) => !ownSet.has(k));
      return rest.length ? JSON.stringify(Object.fromEntries(rest)) : null;
    }),
  };
  // each own key's values, found in one walk over the rows' properties (asking every row for each of up to
  // 64 keys cost more than the walk): the rows that hold the key and its JSON, in row order
  const found = new Map(own.map((k) => [k, { rows: [] as number[], texts: [] as (string | undefined)[] }]));
  for (let i = 0; i < n; i++) {
    const p = ev[i].properties;
    for (const k in p) {
      const f = found.get(k);
      if (f) {
        f.rows.push(i);
        f.texts.push(JSON.stringify(p[k]));
      }
    }
    if (i % SLICE_ROWS === SLICE_ROWS - 1) await turn();
  }
  for (const k of own) {
    const { rows, texts } = found.get(k)!;
    // strCol asks rows in order: a cursor over the rows that hold the key
    cols[`p:${k}`] = (turn: Turn) => {
      let at = 0;
      return strCol(n, (i) => (rows[at] === i ? texts[at++] : null), turn);
    };
  }
  return { n, makers: Object.entries(cols) };
}

/**
 * The stored records of a batch, in batch order; org and env come from the part. `turn` gives the event loop
 * a turn every 2,048 rows (compaction runs beside ingest).
 */
export function reconstructEvents(
  b: Batch,
  org: string,
  env: StoredEvent["env"],
  turn: Turn = noTurns,
): Promise<StoredEvent[]> {
  return rowsInSlices(b.n, turn, (from, to) => reconstructRange(b, org, env, from, to));
}

function reconstructRange(
  b: Batch,
  org: string,
  env: StoredEvent["env"],
  from: number,
  to: number,
): StoredEvent[] {
  const S = (name: string) => b.cols[name] as StrCol;
  const N = (name: string) => b.cols[name] as NumCol;
  const props = Object.keys(b.cols).filter((k) => k.startsWith("p:"));
  const parse = (c: StrCol, i: number) => {
    const v = strAt(c, i);
    return v === null ? null : JSON.parse(v);
  };
  const out: StoredEvent[] = [];
  for (let i = from; i < to; i++) {
    const properties: Record<string, unknown> = {};
    for (const p of props) {
      const c = S(p);
      if (c.codes[i] !== 0) properties[p.slice(2)] = JSON.parse(c.dict[c.codes[i] - 1]);
    }
    Object.assign(properties, parse(S("p*"), i) ?? {});
    out.push({
      v: 1,
      id: strAt(S("id"), i)!,
      org,
      touchpoint: strAt(S("touchpoint"), i)!,
      env,
      received_at: numAt(N("t"), i)!,
      device_time: strAt(S("dts"), i) ?? new Date(N("dt").values[i]).toISOString(),
      anonymous_id: strAt(S("anon"), i)!,
      user_id: strAt(S("user"), i),
      session_id: strAt(S("session"), i)!,
      sequence_no: N("seq").values[i],
      gap_before: N("gap").values[i],
      platform: strAt(S("platform"), i) as StoredEvent["platform"],
      event_type: strAt(S("event_type"), i)!,
      screen: strAt(S("screen"), i)!,
      path: strAt(S("page"), i)!,
      host: strAt(S("host"), i),
      fingerprint: parse(S("fp"), i),
      element: strAt(S("element"), i),
      properties,
      context: parse(S("ctx"), i) ?? {},
      geo: {
        country: strAt(S("country"), i),
        city: strAt(S("city"), i),
        asn: numAt(N("asn"), i),
        as_org: strAt(S("as_org"), i),
      },
      browser: strAt(S("browser"), i),
      os: strAt(S("os"), i),
      device_type: strAt(S("device_type"), i) as StoredEvent["device_type"],
      referrer_host: strAt(S("referrer_host"), i),
      source: strAt(S("source"), i)!,
      channel: strAt(S("channel"), i) as StoredEvent["channel"],
      utm: parse(S("utm"), i),
      traffic: strAt(S("traffic"), i) as StoredEvent["traffic"],
      crawler: strAt(S("crawler"), i),
    });
  }
  return out;
}
