/** Crawler-hit aggregates over columnar batches, with the effective verification outcome per row. */
import type { NumCol, StrCol } from "../parts/columns.ts";
import { bucketer } from "../time/buckets.ts";
import type { HitBatch, Source } from "./columns/source.ts";
import { sortAndPage } from "./order.ts";
import { matches } from "./scan/filters.ts";
import type {
  HitAggregateOptions,
  HitAggregateResult,
  HitField,
  HitMetric,
  HitScope,
  KeyValue,
  Row,
} from "./types.ts";

const COLUMN: Partial<Record<HitField, string>> = {
  page: "page",
  host: "host",
  country: "country",
  crawler: "crawler",
  vendor: "vendor",
  category: "category",
  method: "method",
  site_file: "site_file",
  via: "via",
  touchpoint: "touchpoint",
};

/** The value of a field at a row, as filters and breakdowns see it. */
function hitValue(h: HitBatch, f: HitField, i: number): string | null {
  const col = COLUMN[f];
  if (col) {
    const c = h.b.cols[col] as StrCol;
    return c.codes[i] === 0 ? null : c.dict[c.codes[i] - 1];
  }
  if (f === "verification") {
    const o = h.overrides.get(i);
    if (o) return o;
    const c = h.b.cols.verification as StrCol;
    return c.dict[c.codes[i] - 1];
  }
  const status = (h.b.cols.status as NumCol).values[i];
  if (f === "status") return Number.isNaN(status) ? null : String(status);
  if (f === "status_class") return Number.isNaN(status) ? "unknown" : `${Math.floor(status / 100)}xx`;
  return String((h.b.cols.crawled as NumCol).values[i] === 1); // crawled
}

interface HAcc {
  key: Record<string, KeyValue>;
  requests: number;
  crawledRequests: number;
  pages: Set<number>; // page value numbers
  last: number;
  first: number;
  lastAny: number;
}

/** Values of a field numbered across batches, with a filter verdict per number. */
class Dim {
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
}

/**
 * The value numbers of a field at the given rows of one batch: column fields map codes through a table,
 * the effective verification applies later outcomes, status figures go through a small cache of numbers.
 */
function idsAt(h: HitBatch, f: HitField, dim: Dim, rows: Int32Array): Int32Array {
  const out = new Int32Array(rows.length);
  const col = COLUMN[f] ?? (f === "verification" ? "verification" : null);
  if (col) {
    const c = h.b.cols[col] as StrCol;
    const byCode = Int32Array.from({ length: c.dict.length + 1 }, (_, k) => dim.id(k ? c.dict[k - 1] : null));
    const codes = c.codes;
    for (let k = 0; k < rows.length; k++) out[k] = byCode[codes[rows[k]]];
    if (f === "verification" && h.overrides.size) {
      for (let k = 0; k < rows.length; k++) {
        const o = h.overrides.get(rows[k]);
        if (o) out[k] = dim.id(o);
      }
    }
    return out;
  }
  const memo = new Map<number, number>();
  const status = (h.b.cols.status as NumCol).values, crawled = (h.b.cols.crawled as NumCol).values;
  for (let k = 0; k < rows.length; k++) {
    const i = rows[k], x = f === "crawled" ? crawled[i] : status[i];
    let id = memo.get(x);
    if (id === undefined) memo.set(x, id = dim.id(hitValue(h, f, i)));
    out[k] = id;
  }
  return out;
}

function add(a: HAcc, t: number, crawled: boolean, page: boolean, pageId: number) {
  a.requests++;
  if (t < a.first) a.first = t;
  if (t > a.lastAny) a.lastAny = t;
  if (!crawled) return;
  if (t > a.last) a.last = t;
  if (!page) return;
  a.crawledRequests++;
  if (pageId >= 0) a.pages.add(pageId);
}

/** The engine's crawler-hit question: the period's hit batches (cached parts plus the raw tail), aggregated. */
export function hitAnswers(source: Source) {
  return async (scope: HitScope, opts: HitAggregateOptions): Promise<HitAggregateResult> =>
    hitsAggregate(await source.hits(scope.org, scope.env, scope.from, scope.to), scope, opts);
}

export function hitsAggregate(
  batches: HitBatch[],
  scope: HitScope,
  opts: HitAggregateOptions,
): HitAggregateResult {
  const bucketOf = opts.bucket ? bucketer(opts.bucket, scope.timezone) : null;
  const fields = opts.breakdown ?? [];
  const filters = scope.filters ?? [];
  const needPages = opts.metrics.includes("pages");
  const groups = new Map<number | string, HAcc>();
  const newAcc = (key: Record<string, KeyValue>): HAcc => ({
    key,
    requests: 0,
    crawledRequests: 0,
    pages: new Set(),
    last: -Infinity,
    first: Infinity,
    lastAny: -Infinity,
  });
  const total = newAcc({});
  const dims = fields.map(() => new Dim());
  const filterDims = filters.map(() => new Dim());
  const verdicts = filters.map(() => [] as boolean[]);
  const bucketDim = new Dim(), pageDim = new Dim();
  for (const h of batches) {
    const t = (h.b.cols.t as NumCol).values, tp = h.b.cols.touchpoint as StrCol;
    const tpCode = scope.touchpoint ? tp.dict.indexOf(scope.touchpoint) + 1 : -1;
    if (tpCode === 0) continue; // the touchpoint never appears in this batch
    const crawled = (h.b.cols.crawled as NumCol).values, sf = (h.b.cols.site_file as StrCol).codes;
    // rows in scope passing the filters
    let n = 0;
    const inScope = new Int32Array(h.b.n);
    for (let i = 0; i < h.b.n; i++) {
      if (t[i] < scope.from || t[i] >= scope.to) continue;
      if (tpCode > 0 && tp.codes[i] !== tpCode) continue;
      inScope[n++] = i;
    }
    let kept = inScope.subarray(0, n);
    filters.forEach((f, k) => {
      const ids = idsAt(h, f.field, filterDims[k], kept), seen = verdicts[k];
      let m = 0;
      for (let j = 0; j < kept.length; j++) {
        const id = ids[j];
        seen[id] ??= matches(filterDims[k].values[id] as string | null, f);
        if (seen[id]) kept[m++] = kept[j];
      }
      kept = kept.subarray(0, m);
    });
    const keyParts = fields.map((f, d) => idsAt(h, f, dims[d], kept));
    const pages = needPages ? idsAt(h, "page", pageDim, kept) : null;
    const ids = new Array<number>(fields.length + (bucketOf ? 1 : 0));
    for (let j = 0; j < kept.length; j++) {
      const i = kept[j];
      for (let d = 0; d < keyParts.length; d++) ids[d] = keyParts[d][j];
      if (bucketOf) ids[fields.length] = bucketDim.id(bucketOf(t[i]));
      let id: number | string = 0;
      let small = ids.length <= 3;
      for (const x of ids) {
        if (x >= 65536) small = false;
        else id = (id as number) * 65536 + x;
      }
      if (!small) id = ids.join(",");
      let g = groups.get(id);
      if (!g) {
        const key: Record<string, KeyValue> = {};
        fields.forEach((f, d) => (key[f] = dims[d].values[ids[d]]));
        if (bucketOf) key.bucket = bucketDim.values[ids[fields.length]];
        groups.set(id, g = newAcc(key));
      }
      const ti = t[i], isCrawled = crawled[i] === 1, isPage = isCrawled && sf[i] === 0;
      const page = pages && isPage ? pages[j] : -1;
      add(g, ti, isCrawled, isPage, page);
      add(total, ti, isCrawled, isPage, page);
    }
  }
  const values = (a: HAcc) => {
    const all: Record<HitMetric, number | null> = {
      requests: a.requests,
      crawled_requests: a.crawledRequests,
      pages: a.pages.size,
      last_crawl_at: a.last === -Infinity ? null : a.last,
      first_seen_at: a.first === Infinity ? null : a.first,
      last_seen_at: a.lastAny === -Infinity ? null : a.lastAny,
    };
    return Object.fromEntries(opts.metrics.map((m) => [m, all[m]]));
  };
  const rows: Row<HitMetric>[] = [...groups.values()].map((g) => ({ key: g.key, metrics: values(g) }));
  const page = sortAndPage(rows, opts);
  return { totals: values(total), rows: page.rows, total_rows: page.total_rows };
}
