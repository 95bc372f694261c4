/**
 * Columnar batches: the in-memory form of a part (and of the raw tail at query time). Strings are
 * dictionary-encoded (code 0 = null), numbers are Float64 (NaN = null). Building and reconstructing are
 * exact inverses, so a part can be merged or re-encoded without losing anything.
 */
import { noTurns, type Turn } from "../turns.ts";

export interface StrCol {
  kind: "str";
  dict: string[]; // code c > 0 is dict[c - 1]
  codes: Uint8Array | Uint16Array | Uint32Array;
  /** encoded dictionary size, when decoded from a part (for memory accounting) */
  dictBytes?: number;
  /** the dictionary as UTF-8 bytes, entry k (code k + 1) at bytes[offsets[k]..offsets[k + 1]) */
  packed?: { offsets: Uint32Array; bytes: Uint8Array };
  /** the dictionary's JSON bytes, when decoded from a part (numbers can be read without making strings) */
  dictJson?: Uint8Array;
}

export interface NumCol {
  kind: "num";
  values: Float64Array;
}

export type Column = StrCol | NumCol;

export interface Batch {
  n: number;
  cols: Record<string, Column>;
}

/** The batch of some of a batch's rows, in the order given: dictionaries shared, codes and values taken. */
export function batchOfRows(b: Batch, rows: number[]): Batch {
  const cols: Batch["cols"] = {};
  for (const [name, c] of Object.entries(b.cols)) {
    if (c.kind === "num") cols[name] = { kind: "num", values: Float64Array.from(rows, (i) => c.values[i]) };
    else {
      const codes = c.codes.slice(0, rows.length);
      rows.forEach((i, k) => codes[k] = c.codes[i]);
      cols[name] = { kind: "str", dict: c.dict, codes };
    }
  }
  return { n: rows.length, cols };
}

/** A column's name and how to make it: builders list these so the sliced variants can yield between and
 * inside columns. */
export type ColumnMaker = [string, (turn: Turn) => Promise<Column>];

/** Rows reconstructed between two turns in the sliced variants. */
export const SLICE_ROWS = 2048;

/** Rows [0, n) made SLICE_ROWS at a time by `range`, giving the event loop a turn between slices. */
export async function rowsInSlices<T>(
  n: number,
  turn: Turn,
  range: (from: number, to: number) => T[],
): Promise<T[]> {
  const out: T[] = [];
  for (let from = 0; from < n; from += SLICE_ROWS) {
    out.push(...range(from, Math.min(n, from + SLICE_ROWS)));
    await turn();
  }
  return out;
}

/** Makes the columns one by one, giving the event loop turns inside and between them. */
export async function makeColumns(makers: ColumnMaker[], turn: Turn): Promise<Batch["cols"]> {
  const cols: Batch["cols"] = {};
  for (const [name, make] of makers) {
    cols[name] = await make(turn);
    await turn();
  }
  return cols;
}

/**
 * Builds a string column from a value getter; `null`/`undefined` become code 0. `turn` is offered every
 * SLICE_ROWS rows: one column of a 40,000-record raw tail held the loop 160-270 ms under load.
 */
export async function strCol(
  n: number,
  get: (i: number) => string | null | undefined,
  turn: Turn = noTurns,
): Promise<StrCol> {
  const index = new Map<string, number>();
  const dict: string[] = [];
  const tmp = new Uint32Array(n);
  // rows come grouped (a part's by visitor and session): a value like the row before's takes its code unlooked
  let last: string | null = null, lastCode = 0;
  for (let i = 0; i < n; i++) {
    if (i % SLICE_ROWS === SLICE_ROWS - 1) await turn();
    const v = get(i);
    if (v === null || v === undefined) continue;
    if (v === last) {
      tmp[i] = lastCode;
      continue;
    }
    let c = index.get(v);
    if (c === undefined) {
      dict.push(v);
      c = dict.length;
      index.set(v, c);
    }
    tmp[i] = lastCode = c;
    last = v;
  }
  return { kind: "str", dict, codes: narrow(tmp, dict.length) };
}

export function narrow(codes: Uint32Array, max: number): Uint8Array | Uint16Array | Uint32Array {
  if (max < 256) return Uint8Array.from(codes);
  if (max < 65536) return Uint16Array.from(codes);
  return codes;
}

/** Builds a number column; null/undefined are NaN. `turn` is offered every SLICE_ROWS rows, as strCol's. */
export async function numCol(
  n: number,
  get: (i: number) => number | null | undefined,
  turn: Turn = noTurns,
): Promise<NumCol> {
  const values = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    if (i % SLICE_ROWS === SLICE_ROWS - 1) await turn();
    const v = get(i);
    values[i] = v === null || v === undefined ? NaN : v;
  }
  return { kind: "num", values };
}

export const strAt = (
  c: StrCol,
  i: number,
): string | null => (c.codes[i] === 0 ? null : c.dict[c.codes[i] - 1]);
export const numAt = (
  c: NumCol,
  i: number,
): number | null => (Number.isNaN(c.values[i]) ? null : c.values[i]);

/** Rough bytes a decoded batch holds, for the cache's budget. */
export function batchBytes(b: Batch): number {
  let bytes = 64;
  for (const c of Object.values(b.cols)) {
    if (c.kind === "num") bytes += c.values.byteLength;
    else {
      bytes += c.codes.byteLength + 32 * c.dict.length;
      for (const s of c.dict) bytes += 2 * s.length;
    }
  }
  return bytes;
}
