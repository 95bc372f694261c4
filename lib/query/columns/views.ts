/**
 * A column of a batch as string values by code, the way filters and breakdowns read a field (utm_* and
 * prop:* unpack their JSON columns), and numeric properties per code.
 */
import type { Batch, StrCol } from "../../parts/columns.ts";
import { numbersOfJsonDict } from "./json_numbers.ts";
import { crawlerCategory, valueString } from "./values.ts";
import { inRange, PROPERTY_RANGES } from "../../schemas/capture_ranges.ts";

/** A column as values by code: row i has value values[codes[i]]; values[0] is null. */
export interface View {
  codes: ArrayLike<number>;
  values: (string | null)[];
}

/** What views are read from: a batch's columns and its cache of views. */
export interface Viewable {
  b: Batch;
  n: number;
  views: Map<string, View>;
}

const NONE: View = { codes: { length: 0 }, values: [null] };

function jsonView(c: StrCol, pick: (parsed: unknown) => unknown): View {
  return { codes: c.codes, values: [null, ...c.dict.map((s) => valueString(pick(JSON.parse(s))))] };
}

/** The string values of an event field in a batch (entry_page/exit_page are resolved by the caller). */
export function eventView(e: Viewable, field: string): View {
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
    v = c ? jsonView(c, (u) => ownValue(u, k)) : NONE;
  } else if (field.startsWith("prop:")) {
    const k = field.slice(5);
    const own = col(`p:${k}`);
    if (own) v = jsonView(own, (x) => x);
    else {
      const rest = col("p*");
      v = rest ? jsonView(rest, (o) => ownValue(o, k)) : NONE;
    }
  } else v = viewOf(col(field));
  e.views.set(field, v);
  return v;
}

/** A parsed object's own value of `k` (a property named "constructor" is not Object.prototype's), or null. */
function ownValue(o: unknown, k: string): unknown {
  return o !== null && typeof o === "object" && Object.hasOwn(o, k)
    ? (o as Record<string, unknown>)[k] ?? null
    : null;
}

function viewOf(c: StrCol | undefined): View {
  return c ? { codes: c.codes, values: [null, ...c.dict] } : NONE;
}

/** Value at row i of a view (NONE has no codes: always null). */
export const viewAt = (v: View, i: number) => (v.codes.length ? v.values[v.codes[i]] : null);

/**
 * Numbers of a property per code (NaN when the value is not a number), e.g. engagement_time_ms. A capture
 * property with a range (lib/schemas/capture_ranges.ts) reads NaN outside it: ingest refuses such values, and
 * one stored before that cannot make a negative time or a depth past 100%.
 */
export function numericProp(e: Viewable, key: string): { codes: ArrayLike<number>; nums: Float64Array } {
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
  const range = Object.hasOwn(PROPERTY_RANGES, key) ? PROPERTY_RANGES[key] : undefined;
  if (range) {
    const nums = out.nums;
    for (let i = 0; i < nums.length; i++) if (nums[i] === nums[i] && !inRange(range, nums[i])) nums[i] = NaN;
  }
  e.views.set(`#${key}`, out as unknown as View);
  return out;
}
