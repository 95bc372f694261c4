/**
 * A hit part's hourly rollup: its rows grouped by UTC hour and by the value of every hit field, with each
 * group's request count and its first and last hit time. Every hit figure derives from those: requests add up,
 * `crawled_requests` are the requests of groups with `crawled` true and no site file, `pages` the distinct
 * pages of such groups (page is a field, so exact), `last_crawl_at` / `first_seen_at` / `last_seen_at` the
 * latest crawled, earliest and latest times. A row whose verification was still `pending` when the part was
 * built is a group of its own with the hit's id, so its outcome can be looked up at question time and the
 * answer stays exact. Rows are a fraction of the hits only where many hits share an hour and all their
 * values (10M-event bench site: 33k hits a day → 16k groups, but 1/10 of the part's bytes: no ids, agents,
 * receive times).
 */
import type { Batch, NumCol, StrCol } from "../../parts/columns.ts";

export const HOUR = 3_600_000;

/** The fields kept, in stored order; `status` and `crawled` as strings ("404", "true"), null as code 0. */
export const DIMS = [
  "touchpoint",
  "crawler",
  "vendor",
  "category",
  "verification",
  "page",
  "site_file",
  "status",
  "crawled",
  "method",
  "via",
  "host",
  "country",
] as const;
export type Dim = (typeof DIMS)[number];
export const DIM_INDEX: Record<Dim, number> = Object.fromEntries(DIMS.map((d, i) => [d, i])) as Record<
  Dim,
  number
>;

export type Codes = Uint8Array | Uint16Array | Uint32Array;

export interface HitRollup {
  n: number;
  /** the part's first hit time; `minT`/`maxT` are offsets from it */
  base: number;
  /** the first hour number (epoch ms / HOUR); `hour` holds offsets from it */
  hour0: number;
  /** hours from hour0 the rows reach (hour offsets < hours) */
  hours: number;
  /** per field: its values by code - 1 (code 0 is null) */
  dicts: string[][];
  codes: Codes[];
  hour: Uint16Array;
  requests: Uint32Array;
  minT: Uint32Array | Float64Array;
  maxT: Uint32Array | Float64Array;
  /** rows that are one hit still pending verification when the part was built, and those hits' ids */
  pendRow: Uint32Array;
  pendId: string[];
}

export function narrowCodes(codes: ArrayLike<number>, max: number): Codes {
  return max < 256 ? Uint8Array.from(codes) : max < 65536 ? Uint16Array.from(codes) : Uint32Array.from(codes);
}

/** The rollup of one hit part's batch (all columns, as compaction builds it). */
export function buildHitRollup(b: Batch): HitRollup {
  const t = (b.cols.t as NumCol).values;
  const status = (b.cols.status as NumCol).values, crawled = (b.cols.crawled as NumCol).values;
  const ver = b.cols.verification as StrCol, ids = b.cols.id as StrCol | undefined;
  const pendingCode = ver.dict.indexOf("pending") + 1;
  // per field: the batch's code at a row → a code in the rollup's own dictionary
  const dicts: string[][] = DIMS.map(() => []);
  const seen = DIMS.map(() => new Map<string, number>());
  const codeOf = (d: number, v: string | null) => {
    if (v === null) return 0;
    let c = seen[d].get(v);
    if (c === undefined) {
      seen[d].set(v, c = dicts[d].length + 1);
      dicts[d].push(v);
    }
    return c;
  };
  const rowCode: ((i: number) => number)[] = DIMS.map((f, d) => {
    if (f === "status") return (i: number) => codeOf(d, Number.isNaN(status[i]) ? null : String(status[i]));
    if (f === "crawled") return (i: number) => codeOf(d, String(crawled[i] === 1));
    const c = b.cols[f] as StrCol;
    const map = new Int32Array(c.dict.length + 1).fill(-1);
    return (i: number) => {
      const k = c.codes[i];
      if (map[k] < 0) map[k] = codeOf(d, k === 0 ? null : c.dict[k - 1]);
      return map[k];
    };
  });
  let base = Infinity, lastT = -Infinity;
  for (let i = 0; i < b.n; i++) {
    if (t[i] < base) base = t[i];
    if (t[i] > lastT) lastT = t[i];
  }
  if (b.n === 0) base = lastT = 0;
  const hour0 = Math.floor(base / HOUR);
  const groups = new Map<string, number>();
  const cols: number[][] = DIMS.map(() => []);
  const hourOf: number[] = [], requests: number[] = [], minT: number[] = [], maxT: number[] = [];
  const pendRow: number[] = [], pendId: string[] = [];
  const row = new Array<number>(DIMS.length);
  for (let i = 0; i < b.n; i++) {
    const h = Math.floor(t[i] / HOUR) - hour0;
    for (let d = 0; d < DIMS.length; d++) row[d] = rowCode[d](i);
    const pending = pendingCode > 0 && ver.codes[i] === pendingCode;
    const key = pending ? null : `${h},${row.join(",")}`;
    let g = key === null ? undefined : groups.get(key);
    if (g === undefined) {
      g = requests.length;
      if (key !== null) groups.set(key, g);
      for (let d = 0; d < DIMS.length; d++) cols[d].push(row[d]);
      hourOf.push(h);
      requests.push(0);
      minT.push(t[i]);
      maxT.push(t[i]);
      if (pending) {
        pendRow.push(g);
        pendId.push(ids ? ids.dict[ids.codes[i] - 1] : "");
      }
    }
    requests[g]++;
    if (t[i] < minT[g]) minT[g] = t[i];
    if (t[i] > maxT[g]) maxT[g] = t[i];
  }
  const wide = lastT - base >= 2 ** 32;
  const offsets = (xs: number[]) => {
    const out = wide ? new Float64Array(xs.length) : new Uint32Array(xs.length);
    for (let k = 0; k < xs.length; k++) out[k] = xs[k] - base;
    return out;
  };
  return {
    n: requests.length,
    base,
    hour0,
    hours: hourOf.reduce((m, h) => Math.max(m, h + 1), 0),
    dicts,
    codes: cols.map((c, d) => narrowCodes(c, dicts[d].length)),
    hour: Uint16Array.from(hourOf),
    requests: Uint32Array.from(requests),
    minT: offsets(minT),
    maxT: offsets(maxT),
    pendRow: Uint32Array.from(pendRow),
    pendId,
  };
}

/** Decoded bytes of a rollup (what the cache weighs it at). */
export function rollupBytes(r: HitRollup): number {
  let bytes = r.hour.byteLength + r.requests.byteLength + r.minT.byteLength + r.maxT.byteLength +
    r.pendRow.byteLength + 64 * r.pendId.length;
  for (const c of r.codes) bytes += c.byteLength;
  for (const d of r.dicts) for (const v of d) bytes += 40 + 2 * v.length;
  return bytes;
}

/**
 * The rollup with its hours merged: one row per value combination of the part (pending hits still one row
 * each). A question that takes every hour of a part, all in one bucket, reads these rows instead (a day's
 * hits by page and crawler repeat over its hours: 16k hourly rows → a few thousand). Computed when the
 * rollup is written and stored with it (store.ts, version 2): at the 10M-event site merging every part's
 * hours at each decode cost ~1 s of CPU for a cold 30-day question.
 */
export function mergeHours(r: HitRollup): HitRollup {
  const pending = new Set(r.pendRow);
  const groups = new Map<string, number>();
  const of: number[] = [];
  const rowOf = new Int32Array(r.n);
  const key = new Array<number>(DIMS.length);
  for (let i = 0; i < r.n; i++) {
    let g: number | undefined;
    if (!pending.has(i)) {
      for (let d = 0; d < DIMS.length; d++) key[d] = r.codes[d][i];
      const k = key.join(",");
      g = groups.get(k);
      if (g === undefined) groups.set(k, g = of.length);
      else {
        rowOf[i] = g;
        continue;
      }
    } else g = of.length;
    rowOf[i] = g;
    of.push(i);
  }
  const n = of.length;
  const requests = new Uint32Array(n);
  const wide = r.minT instanceof Float64Array;
  const minT = wide ? new Float64Array(n) : new Uint32Array(n);
  const maxT = wide ? new Float64Array(n) : new Uint32Array(n);
  for (let g = 0; g < n; g++) {
    minT[g] = r.minT[of[g]];
    maxT[g] = r.maxT[of[g]];
  }
  for (let i = 0; i < r.n; i++) {
    const g = rowOf[i];
    requests[g] += r.requests[i];
    if (r.minT[i] < minT[g]) minT[g] = r.minT[i];
    if (r.maxT[i] > maxT[g]) maxT[g] = r.maxT[i];
  }
  const pendRow: number[] = [], pendId: string[] = [];
  for (let k = 0; k < r.pendRow.length; k++) {
    pendRow.push(rowOf[r.pendRow[k]]);
    pendId.push(r.pendId[k]);
  }
  return {
    ...r,
    n,
    hours: 1,
    codes: r.codes.map((c) => narrowCodes(of.map((i) => c[i]), 2 ** (8 * c.BYTES_PER_ELEMENT) - 1)),
    hour: new Uint16Array(n),
    requests,
    minT,
    maxT,
    pendRow: Uint32Array.from(pendRow),
    pendId,
  };
}
