/**
 * Event parts merged column by column: the batch `buildEventBatch` makes of all the parts' records (the same
 * rows in the same order, the same dictionaries code for code, the same property columns), made from their
 * decoded batches without making a record. A record is a tree of objects (~1.5 kB); a closed day of a busy
 * site has hundreds of thousands of rows, so merging it through records needed several hundred MB, while its
 * columns take a few hundred bytes a row. tests/lib/parts/merge_events_test.ts compares the two ways.
 */
import { type Batch, type Column, narrow, type NumCol, SLICE_ROWS, type StrCol } from "./columns.ts";
import { OWN_NAME_CHARS, PROP_COLUMNS } from "./event_batch.ts";
import { sortInSlices } from "./slice_sort.ts";
import { ownsSegment } from "./codec.ts";
import { releaseDecoded } from "./packed_arrays.ts";
import { noTurns, type Turn } from "../turns.ts";

/** The columns every event part has, in the order `buildEventBatch` makes them (then `p:<name>` columns). */
const STRINGS = [
  "id",
  "anon",
  "session",
  "user",
  "touchpoint",
  "platform",
  "event_type",
  "screen",
  "page",
  "host",
  "fp",
  "element",
  "ctx",
  "country",
  "city",
  "as_org",
  "browser",
  "os",
  "device_type",
  "referrer_host",
  "source",
  "channel",
  "utm",
  "traffic",
  "crawler",
  "dts",
];
const NUMBERS = ["t", "dt", "seq", "gap", "asn"];
const REST = "p*";

/**
 * What a stored JSON text reads as once its record is made and stored again: JSON values parse and print
 * back the same, and a context that is null or missing becomes `{}` (records always hold one).
 */
const rewrite: Record<string, (text: string | null) => string | null> = {
  fp: (t) => (t === null ? null : again(JSON.parse(t))),
  utm: (t) => (t === null ? null : again(JSON.parse(t))),
  ctx: (t) => JSON.stringify(t === null ? {} : JSON.parse(t) ?? {}),
};
const again = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));

/** Whether `batches` can be merged here: every one has the columns records are made of. */
export function mergeable(batches: Batch[]): boolean {
  return batches.every((b) => [...STRINGS, ...NUMBERS, REST].every((c) => c in b.cols));
}

/**
 * The merged batch (see the file's comment); `batches` must pass `mergeable`. `consume`: the batches are not
 * read again, so each column's decoded arrays are freed once its merged column is made (a merge holds the
 * parts' columns and the merged ones: at 333,000 rows this kept the peak ~100 MB lower).
 */
export async function mergeEventBatches(
  batches: Batch[],
  turn: Turn = noTurns,
  consume = false,
): Promise<Batch> {
  const order = await mergedOrder(batches, turn);
  const n = order.src.length;
  const scratch = new Uint32Array(n);
  const done = (name: string) => {
    if (!consume) return;
    for (const b of batches) {
      // a column never read is not decoded now just to be freed
      const c = Object.getOwnPropertyDescriptor(b.cols, name)?.value as Column | undefined;
      if (c && ownsSegment(c)) releaseDecoded(c.kind === "num" ? c.values : c.codes);
      delete b.cols[name];
    }
  };
  const cols: Batch["cols"] = {};
  const props = await properties(batches, order, turn);
  for (const name of STRINGS) {
    const fix = rewrite[name];
    cols[name] = await remapped(
      batches,
      order,
      (s) => batches[s].cols[name] as StrCol,
      fix,
      null,
      scratch,
      turn,
    );
    done(name);
  }
  for (const name of NUMBERS) {
    const values = new Float64Array(n);
    const from = batches.map((b) => (b.cols[name] as NumCol).values);
    for (let j = 0; j < n; j++) values[j] = from[order.src[j]][order.row[j]];
    cols[name] = { kind: "num", values };
    done(name);
    await turn();
  }
  cols[REST] = await remapped(
    batches,
    order,
    (s) => batches[s].cols[REST] as StrCol,
    null,
    props.rest,
    scratch,
    turn,
  );
  for (const k of props.own) {
    const name = `p:${k}`;
    const texts = props.texts.get(k)!;
    cols[name] = await remapped(
      batches,
      order,
      (s) => (batches[s].cols[name] as StrCol | undefined) ?? null,
      (t) => (t === null ? null : JSON.stringify(JSON.parse(t))),
      texts,
      scratch,
      turn,
    );
    done(name);
  }
  if (consume) { for (const b of batches) for (const name of Object.keys(b.cols)) done(name); }
  return { n, cols };
}

interface Order {
  /** merged row j is row `row[j]` of batch `src[j]` */
  src: Uint8Array;
  row: Uint32Array;
}

/**
 * Every row in batch order (visitor, session, receive time, device time, sequence number, id), sorted the way
 * the record path sorts (the same stable sort, the rows given batch after batch), so even rows the order
 * cannot tell apart come out where the records would.
 */
async function mergedOrder(batches: Batch[], turn: Turn): Promise<Order> {
  if (batches.length > 255) throw new Error("at most 255 batches merge at once");
  const anon = ranks(batches.map((b) => (b.cols.anon as StrCol))),
    session = ranks(batches.map((b) => b.cols.session as StrCol));
  const n = batches.reduce((sum, b) => sum + b.n, 0);
  const src = new Uint8Array(n), row = new Uint32Array(n);
  const a = new Uint32Array(n), se = new Uint32Array(n);
  const t = new Float64Array(n), dt = new Float64Array(n), seq = new Float64Array(n);
  const ids = batches.map((b) => b.cols.id as StrCol);
  let j = 0;
  batches.forEach((b, s) => {
    const ac = (b.cols.anon as StrCol).codes, sc = (b.cols.session as StrCol).codes;
    const bt = (b.cols.t as NumCol).values,
      bdt = (b.cols.dt as NumCol).values,
      bseq = (b.cols.seq as NumCol).values;
    for (let i = 0; i < b.n; i++, j++) {
      src[j] = s;
      row[j] = i;
      a[j] = anon[s][ac[i]];
      se[j] = session[s][sc[i]];
      // as event_batch.ts `eventOrder` reads the records: a missing receive time is null (0 in the
      // difference), device time is the dt column, a missing sequence number NaN (no order)
      t[j] = Number.isNaN(bt[i]) ? 0 : bt[i];
      dt[j] = bdt[i];
      seq[j] = bseq[i];
    }
  });
  const idOf = (x: number) => {
    const c = ids[src[x]];
    const code = c.codes[row[x]];
    return code === 0 ? null : c.dict[code - 1];
  };
  const idx = Array.from({ length: n }, (_, x) => x);
  await sortInSlices(idx, (x, y) => {
    if (a[x] !== a[y]) return a[x] < a[y] ? -1 : 1;
    if (se[x] !== se[y]) return se[x] < se[y] ? -1 : 1;
    const d = t[x] - t[y] || dt[x] - dt[y] || seq[x] - seq[y];
    if (d) return d;
    const p = idOf(x)!, q = idOf(y)!;
    return p < q ? -1 : p > q ? 1 : 0;
  }, turn);
  const out: Order = { src: new Uint8Array(n), row: new Uint32Array(n) };
  for (let x = 0; x < n; x++) (out.src[x] = src[idx[x]], out.row[x] = row[idx[x]]);
  return out;
}

/** For each batch, its codes' ranks among all the batches' texts in string order (code 0: rank 0). */
function ranks(cols: StrCol[]): Uint32Array[] {
  const all = new Set<string>();
  for (const c of cols) for (const s of c.dict) all.add(s);
  const rank = new Map<string, number>();
  [...all].sort().forEach((s, k) => rank.set(s, k + 1));
  return cols.map((c) => Uint32Array.from([0, ...c.dict.map((s) => rank.get(s)!)]));
}

/**
 * A string column of the merged rows, codes by first appearance of each text as `strCol` gives them: row j's
 * text is `given.get(j)` when given, else its batch column's text at its row (through `fix`; no column: null).
 * A batch's code is looked up once, then remembered.
 */
async function remapped(
  batches: Batch[],
  order: Order,
  colOf: (s: number) => StrCol | null,
  fix: ((text: string | null) => string | null) | null,
  given: Map<number, string | null> | null,
  tmp: Uint32Array,
  turn: Turn,
): Promise<StrCol> {
  const n = order.src.length;
  const index = new Map<string, number>(), dict: string[] = [];
  const codeOf = (text: string | null | undefined) => {
    if (text === null || text === undefined) return 0;
    let c = index.get(text);
    if (c === undefined) index.set(text, c = dict.push(text));
    return c;
  };
  const cols = batches.map((_, s) => colOf(s));
  const seen = cols.map((c) => new Int32Array(c ? c.dict.length + 1 : 1).fill(-1));
  let absent = -1; // a batch without the column: its rows read null (made a code at first use)
  for (let j = 0; j < n; j++) {
    if (j % SLICE_ROWS === SLICE_ROWS - 1) await turn();
    if (given?.has(j)) {
      tmp[j] = codeOf(given.get(j));
      continue;
    }
    const s = order.src[j], c = cols[s];
    if (!c) {
      if (absent === -1) absent = fix ? codeOf(fix(null)) : 0;
      tmp[j] = absent;
      continue;
    }
    const code = c.codes[order.row[j]], known = seen[s];
    let m = known[code];
    if (m === -1) {
      const text = code === 0 ? null : c.dict[code - 1];
      m = known[code] = codeOf(fix ? fix(text) : text);
    }
    tmp[j] = m;
  }
  // `tmp` is every column's scratch: narrow copies it, except to 32 bits, so that is copied here
  return { kind: "str", dict, codes: dict.length < 65536 ? narrow(tmp, dict.length) : tmp.slice() };
}

/**
 * The merged rows' properties as the record path stores them: the names with their own column (the most
 * frequent, as `eventColumns` picks them), and, for rows whose properties do not simply move column to
 * column (a row with rest properties, or one holding a name that no longer has a column), the texts made from
 * the row's properties object as the record would hold it.
 */
async function properties(batches: Batch[], order: Order, turn: Turn) {
  const ownOf = batches.map((b) =>
    Object.keys(b.cols).filter((c) => c.startsWith("p:")).map((c) => c.slice(2))
  );
  const freq = new Map<string, number>();
  const add = (k: string, count: number) => freq.set(k, (freq.get(k) ?? 0) + count);
  batches.forEach((b, s) => {
    for (const k of ownOf[s]) {
      const codes = (b.cols[`p:${k}`] as StrCol).codes;
      let count = 0;
      for (let i = 0; i < b.n; i++) if (codes[i] !== 0) count++;
      if (count) add(k, count);
    }
    const rest = b.cols[REST] as StrCol;
    const perCode = new Uint32Array(rest.dict.length + 1);
    for (let i = 0; i < b.n; i++) perCode[rest.codes[i]]++;
    for (let c = 1; c < perCode.length; c++) {
      if (!perCode[c]) continue;
      for (const k in JSON.parse(rest.dict[c - 1]) ?? {}) add(k, perCode[c]);
    }
  });
  for (const k of freq.keys()) if (k.length > OWN_NAME_CHARS) freq.delete(k);
  const own = [...freq].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1)).slice(0, PROP_COLUMNS).map((
    [k],
  ) => k);
  const ownSet = new Set(own);
  const texts = new Map(own.map((k) => [k, new Map<number, string | null>()]));
  const rest = new Map<number, string | null>();
  // per batch, its names that lost their column: a row holding one of them takes the object path
  const moved = ownOf.map((names) => names.filter((k) => !ownSet.has(k)));
  const n = order.src.length;
  for (let j = 0; j < n; j++) {
    if (j % SLICE_ROWS === SLICE_ROWS - 1) await turn();
    const s = order.src[j], i = order.row[j], b = batches[s];
    const restCode = (b.cols[REST] as StrCol).codes[i];
    if (restCode === 0 && !moved[s].some((k) => (b.cols[`p:${k}`] as StrCol).codes[i] !== 0)) continue;
    // the record's properties: own columns in column order, then the rest (event_batch.ts reconstructRange)
    const p: Record<string, unknown> = {};
    for (const k of ownOf[s]) {
      const c = b.cols[`p:${k}`] as StrCol;
      if (c.codes[i] !== 0) p[k] = JSON.parse(c.dict[c.codes[i] - 1]);
    }
    const r = b.cols[REST] as StrCol;
    Object.assign(p, r.codes[i] === 0 ? {} : JSON.parse(r.dict[r.codes[i] - 1]) ?? {});
    for (const [k, m] of texts) m.set(j, Object.hasOwn(p, k) ? JSON.stringify(p[k]) : null);
    const left = Object.entries(p).filter(([k]) => !ownSet.has(k));
    rest.set(j, left.length ? JSON.stringify(Object.fromEntries(left)) : null);
  }
  return { own, texts, rest };
}
