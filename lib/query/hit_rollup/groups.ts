/**
 * The groups of one hit question, filled by both paths: hits one by one (parts scanned, the raw tail) and
 * rollup rows (a group of hits with its count and time range). Field values get numbers per question
 * (`ValueIds`), so a group means one key whichever part or path its rows came from.
 */
import { bucketer } from "../../time/buckets.ts";
import { sortAndPage } from "../order.ts";
import { matches } from "../scan/filters.ts";
import type {
  Filter,
  HitAggregateOptions,
  HitAggregateResult,
  HitField,
  HitMetric,
  HitScope,
  KeyValue,
  Row,
} from "../types.ts";

/** Values of a field numbered across parts and paths. */
export class ValueIds {
  ids = new Map<KeyValue, number>();
  values: KeyValue[] = [];
  id(v: KeyValue): number {
    let id = this.ids.get(v);
    if (id === undefined) {
      this.ids.set(v, id = this.values.length);
      this.values.push(v);
    }
    return id;
  }
  /** A copy that numbers on from these values (a kept question's numbering stays as it was kept). */
  copy(): ValueIds {
    const c = new ValueIds();
    c.ids = new Map(this.ids);
    c.values = [...this.values];
    return c;
  }
}

export interface HAcc {
  key: Record<string, KeyValue>;
  requests: number;
  crawledRequests: number;
  pages: Set<number>; // page value numbers
  last: number;
  first: number;
  lastAny: number;
}

const newAcc = (key: Record<string, KeyValue>): HAcc => ({
  key,
  requests: 0,
  crawledRequests: 0,
  pages: new Set(),
  last: -Infinity,
  first: Infinity,
  lastAny: -Infinity,
});

/**
 * Adds `n` requests between `first` and `last` (one hit: n 1, first = last = its time); `crawled`: the
 * crawler got the page or file; `page`: not a site file; `pageId`: the page's number (-1: not counted).
 */
export function addTo(
  a: HAcc,
  n: number,
  first: number,
  last: number,
  crawled: boolean,
  page: boolean,
  pageId: number,
) {
  a.requests += n;
  if (first < a.first) a.first = first;
  if (last > a.lastAny) a.lastAny = last;
  if (!crawled) return;
  if (last > a.last) a.last = last;
  if (!page) return;
  a.crawledRequests += n;
  if (pageId >= 0) a.pages.add(pageId);
}

const copyAcc = (a: HAcc): HAcc => ({ ...a, key: { ...a.key }, pages: new Set(a.pages) });

export class HitGroups {
  readonly fields: HitField[];
  readonly filters: Filter<HitField>[];
  readonly bucketOf: ((ms: number) => string | number) | null;
  readonly needPages: boolean;
  readonly dims: ValueIds[];
  readonly filterDims: ValueIds[];
  private verdicts: boolean[][];
  readonly bucketDim: ValueIds;
  readonly pageDim: ValueIds;
  readonly total: HAcc;
  private groups = new Map<number | string, HAcc>();
  /** bits of a numeric group key per key part (see `group`) */
  private bits: number;

  /**
   * `from`: groups of the same question (breakdown, bucket, filters, touchpoint, timezone) to start from, a
   * copy of its groups, totals and value numberings (a question's kept rollup groups, lib/query/hits.ts). The
   * numberings are copied, not shared: each ask adds its scanned hours' and raw tail's values, which would
   * otherwise grow the kept copy past the weight it was kept at.
   */
  constructor(readonly scope: HitScope, readonly opts: HitAggregateOptions, from?: HitGroups) {
    this.fields = opts.breakdown ?? [];
    this.filters = scope.filters ?? [];
    this.bucketOf = opts.bucket ? bucketer(opts.bucket, scope.timezone) : null;
    this.needPages = opts.metrics.includes("pages");
    this.dims = from?.dims.map((d) => d.copy()) ?? this.fields.map(() => new ValueIds());
    this.filterDims = from?.filterDims.map((d) => d.copy()) ?? this.filters.map(() => new ValueIds());
    this.verdicts = from?.verdicts.map((v) => [...v]) ?? this.filters.map(() => []);
    this.bucketDim = from?.bucketDim.copy() ?? new ValueIds();
    this.pageDim = from?.pageDim.copy() ?? new ValueIds();
    this.total = from ? copyAcc(from.total) : newAcc({});
    if (from) { for (const [k, a] of from.groups) this.groups.set(k, copyAcc(a)); }
    this.bits = Math.floor(52 / Math.max(1, this.width));
  }

  /** Bytes the groups hold, roughly (what a kept copy weighs). */
  weight(): number {
    let bytes = 256;
    for (const a of this.groups.values()) bytes += 200 + 48 * this.width + 16 * a.pages.size;
    // the value numberings: a map entry and an array slot a value (~80 bytes with a short string)
    for (const d of [...this.dims, ...this.filterDims, this.bucketDim, this.pageDim]) {
      bytes += 80 * d.values.length;
    }
    for (const v of this.verdicts) bytes += 8 * v.length;
    return bytes;
  }

  /** The number of key parts: the fields, then the bucket when asked. */
  get width(): number {
    return this.fields.length + (this.bucketOf ? 1 : 0);
  }

  /** Whether filter k passes a value, given the value's number in filterDims[k]. */
  passes(k: number, id: number): boolean {
    return this.verdicts[k][id] ??= matches(this.filterDims[k].values[id] as string | null, this.filters[k]);
  }

  /** The group of a key given as value numbers (fields in order, then the bucket's). */
  group(ids: ArrayLike<number>): HAcc {
    // a number while every part fits its share of 52 bits (4 parts: 13 bits, 8,192 values each), else text:
    // a key is always the one or the other, so they never meet
    let id: number | string = 0;
    const radix = 2 ** this.bits;
    for (let d = 0; d < ids.length; d++) {
      if (ids[d] >= radix) {
        id = Array.prototype.join.call(ids, ",");
        break;
      }
      id = (id as number) * radix + ids[d];
    }
    let g = this.groups.get(id);
    if (!g) {
      const key: Record<string, KeyValue> = {};
      this.fields.forEach((f, d) => (key[f] = this.dims[d].values[ids[d]]));
      if (this.bucketOf) key.bucket = this.bucketDim.values[ids[this.fields.length]];
      this.groups.set(id, g = newAcc(key));
    }
    return g;
  }

  result(): HitAggregateResult {
    const values = (a: HAcc) => {
      const all: Record<HitMetric, number | null> = {
        requests: a.requests,
        crawled_requests: a.crawledRequests,
        pages: a.pages.size,
        last_crawl_at: a.last === -Infinity ? null : a.last,
        first_seen_at: a.first === Infinity ? null : a.first,
        last_seen_at: a.lastAny === -Infinity ? null : a.lastAny,
      };
      return Object.fromEntries(this.opts.metrics.map((m) => [m, all[m]]));
    };
    const rows: Row<HitMetric>[] = [...this.groups.values()].map((g) => ({ key: g.key, metrics: values(g) }));
    const page = sortAndPage(rows, this.opts);
    return { totals: values(this.total), rows: page.rows, total_rows: page.total_rows };
  }
}
