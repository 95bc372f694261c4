/**
 * Adds a hit rollup's rows to a question's groups: rows of the hours the planner takes (lib/query/hits.ts),
 * the scope's touchpoint, passing the filters. Rows are grouped inside the part first (a number per key from
 * the part's own codes), then each of the part's groups joins the question's group of its values: the work
 * per row is a few typed-array reads, the work per value is done once per part.
 */
import type { Verification } from "../../store/records.ts";
import type { HitField } from "../types.ts";
import { DIM_INDEX, DIMS, type HitRollup, HOUR } from "./build.ts";
import { addTo, type HAcc, type HitGroups } from "./groups.ts";

/** Key spaces up to this size index the part's groups in an array. */
const DENSE_KEYS = 1 << 18;

/** A field of the rollup as a question sees it: a code per row and the value of each code (code 0 first). */
interface View {
  codes: ArrayLike<number>;
  values: (string | null)[];
}

const classOf = (status: string) => `${Math.floor(Number(status) / 100)}xx`;

/** The field's view; `verification` with the outcomes stored since the part was built for its pending rows. */
function viewOf(r: HitRollup, f: HitField, outcome: (id: string) => Verification | undefined): View {
  if (f === "status_class") {
    const d = DIM_INDEX.status;
    return { codes: r.codes[d], values: ["unknown", ...r.dicts[d].map(classOf)] };
  }
  const d = DIM_INDEX[f as (typeof DIMS)[number]];
  const values: (string | null)[] = [null, ...r.dicts[d]];
  if (f !== "verification" || r.pendRow.length === 0) return { codes: r.codes[d], values };
  const codes = Uint32Array.from(r.codes[d]);
  for (let k = 0; k < r.pendRow.length; k++) {
    const o = outcome(r.pendId[k]);
    if (!o) continue;
    let c = values.indexOf(o);
    if (c < 0) c = values.push(o) - 1;
    codes[r.pendRow[k]] = c;
  }
  return { codes, values };
}

/** The rollup's pending-at-build hits' ids in the hours taken (for the outcome lookup before adding). */
export function pendingIds(r: HitRollup, take: Uint8Array): string[] {
  const out: string[] = [];
  for (let k = 0; k < r.pendRow.length; k++) if (take[r.hour[r.pendRow[k]]]) out.push(r.pendId[k]);
  return out;
}

/** The time range of each hour's rows: [min, max] per hour offset (NaN: no row). */
export function hourSpans(r: HitRollup): { min: Float64Array; max: Float64Array } {
  const min = new Float64Array(r.hours).fill(NaN), max = new Float64Array(r.hours).fill(NaN);
  for (let i = 0; i < r.n; i++) {
    const h = r.hour[i], lo = r.base + r.minT[i], hi = r.base + r.maxT[i];
    if (!(lo >= min[h])) min[h] = lo;
    if (!(hi <= max[h])) max[h] = hi;
  }
  return { min, max };
}

/**
 * Adds the rows of the hours `take` marks (by hour offset) to the groups; a bucket is the one of its hour's
 * start (the planner checked that each hour taken lies in one bucket).
 */
export function addRollup(
  g: HitGroups,
  r: HitRollup,
  take: Uint8Array,
  outcome: (id: string) => Verification | undefined,
) {
  const tpDim = DIM_INDEX.touchpoint;
  let tpCode = -1;
  if (g.scope.touchpoint) {
    tpCode = r.dicts[tpDim].indexOf(g.scope.touchpoint) + 1;
    if (tpCode === 0) return; // the touchpoint never appears in this part
  }
  const tp = r.codes[tpDim];
  // filters: a verdict per code
  const filterCodes = g.filters.map((f, k) => {
    const v = viewOf(r, f.field, outcome);
    const ok = Uint8Array.from(v.values, (x) => (g.passes(k, g.filterDims[k].id(x)) ? 1 : 0));
    return { codes: v.codes, ok };
  });
  // breakdown fields: the question's value number per code, and the part's radix for local keys
  const keyViews = g.fields.map((f, d) => {
    const v = viewOf(r, f, outcome);
    return { codes: v.codes, ids: v.values.map((x) => g.dims[d].id(x)), radix: v.values.length };
  });
  // the bucket of each hour taken
  const bucketIds = new Int32Array(r.hours);
  if (g.bucketOf) {
    for (let h = 0; h < r.hours; h++) {
      if (take[h]) bucketIds[h] = g.bucketDim.id(g.bucketOf((r.hour0 + h) * HOUR));
    }
  }
  const radices = keyViews.map((k) => k.radix);
  if (g.bucketOf) radices.push(r.hours);
  const space = radices.reduce((p, x) => p * x, 1);
  const numeric = space < 2 ** 52;
  // a small key space: the part's groups by key in an array (a Map lookup per row cost most of the time)
  const dense = space <= DENSE_KEYS ? new Int32Array(space) : null;
  const crawledDim = DIM_INDEX.crawled, sfDim = DIM_INDEX.site_file, pageDim = DIM_INDEX.page;
  const crawledCode = r.dicts[crawledDim].indexOf("true") + 1;
  const crawledCodes = r.codes[crawledDim], sfCodes = r.codes[sfDim], pageCodes = r.codes[pageDim];
  // page value numbers by code, made when first needed
  const pageIds = g.needPages ? new Int32Array(r.dicts[pageDim].length + 1).fill(-1) : null;
  const pageId = (c: number) => {
    if (!pageIds) return -1;
    if (pageIds[c] < 0) pageIds[c] = g.pageDim.id(c === 0 ? null : r.dicts[pageDim][c - 1]);
    return pageIds[c];
  };
  const local = new Map<number | string, number>();
  const accs: HAcc[] = [];
  const totalKey = g.total;
  const ids = new Int32Array(g.width);
  rows: for (let i = 0; i < r.n; i++) {
    const h = r.hour[i];
    if (!take[h]) continue;
    if (tpCode > 0 && tp[i] !== tpCode) continue;
    for (let k = 0; k < filterCodes.length; k++) {
      if (!filterCodes[k].ok[filterCodes[k].codes[i]]) continue rows;
    }
    let key: number | string = 0;
    if (numeric) {
      for (let d = 0; d < keyViews.length; d++) key = (key as number) * radices[d] + keyViews[d].codes[i];
      if (g.bucketOf) key = (key as number) * r.hours + h;
    } else {
      const parts: number[] = keyViews.map((k) => k.codes[i]);
      if (g.bucketOf) parts.push(h);
      key = parts.join(",");
    }
    let l = dense ? dense[key as number] - 1 : local.get(key);
    if (l === undefined || l < 0) {
      for (let d = 0; d < keyViews.length; d++) ids[d] = keyViews[d].ids[keyViews[d].codes[i]];
      if (g.bucketOf) ids[keyViews.length] = bucketIds[h];
      l = accs.length;
      if (dense) dense[key as number] = l + 1;
      else local.set(key, l);
      accs.push(g.group(ids));
    }
    const crawled = crawledCodes[i] === crawledCode, page = sfCodes[i] === 0;
    const first = r.base + r.minT[i], last = r.base + r.maxT[i], n = r.requests[i];
    const p = crawled && page ? pageId(pageCodes[i]) : -1;
    addTo(accs[l], n, first, last, crawled, page, p);
    addTo(totalKey, n, first, last, crawled, page, p);
  }
}
