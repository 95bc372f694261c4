/** Crawler-hit aggregates over columnar batches, with the effective verification outcome per row. */
import type { NumCol, StrCol } from "../parts/columns.ts";
import { matches, sortRows } from "./naive.ts";
import type { HitBatch } from "./source.ts";
import { bucketer } from "./time.ts";
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
  pages: Set<string>;
  last: number;
  first: number;
}

export function hitsAggregate(
  batches: HitBatch[],
  scope: HitScope,
  opts: HitAggregateOptions,
): HitAggregateResult {
  const bucketOf = opts.bucket ? bucketer(opts.bucket, scope.timezone) : null;
  const groups = new Map<string, HAcc>();
  const newAcc = (key: Record<string, KeyValue>): HAcc => ({
    key,
    requests: 0,
    crawledRequests: 0,
    pages: new Set(),
    last: -Infinity,
    first: Infinity,
  });
  const total = newAcc({});
  const add = (a: HAcc, h: HitBatch, i: number, t: number) => {
    a.requests++;
    if (t < a.first) a.first = t;
    if ((h.b.cols.crawled as NumCol).values[i] !== 1) return;
    if (t > a.last) a.last = t;
    const sf = h.b.cols.site_file as StrCol;
    if (sf.codes[i] !== 0) return;
    a.crawledRequests++;
    const page = h.b.cols.page as StrCol;
    a.pages.add(page.dict[page.codes[i] - 1]);
  };
  for (const h of batches) {
    const t = (h.b.cols.t as NumCol).values, tp = h.b.cols.touchpoint as StrCol;
    for (let i = 0; i < h.b.n; i++) {
      if (t[i] < scope.from || t[i] >= scope.to) continue;
      if (scope.touchpoint && tp.dict[tp.codes[i] - 1] !== scope.touchpoint) continue;
      if (!(scope.filters ?? []).every((f) => matches(hitValue(h, f.field, i), f))) continue;
      const key: Record<string, KeyValue> = {};
      for (const f of opts.breakdown ?? []) key[f] = hitValue(h, f, i);
      if (bucketOf) key.bucket = bucketOf(t[i]);
      const id = JSON.stringify(key);
      let g = groups.get(id);
      if (!g) groups.set(id, g = newAcc(key));
      add(g, h, i, t[i]);
      add(total, h, i, t[i]);
    }
  }
  const values = (a: HAcc) => {
    const all: Record<HitMetric, number | null> = {
      requests: a.requests,
      crawled_requests: a.crawledRequests,
      pages: a.pages.size,
      last_crawl_at: a.last === -Infinity ? null : a.last,
      first_seen_at: a.first === Infinity ? null : a.first,
    };
    return Object.fromEntries(opts.metrics.map((m) => [m, all[m]]));
  };
  const rows: Row<HitMetric>[] = [...groups.values()].map((g) => ({ key: g.key, metrics: values(g) }));
  const by = opts.sort?.by ?? opts.metrics[0];
  sortRows(rows, by, opts.sort?.desc ?? (by !== "key"));
  const offset = opts.offset ?? 0;
  return {
    totals: values(total),
    rows: rows.slice(offset, opts.limit === undefined ? undefined : offset + opts.limit),
    total_rows: rows.length,
  };
}
