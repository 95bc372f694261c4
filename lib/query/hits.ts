/**
 * Crawler-hit aggregates. The planner answers from hit rollups (lib/query/hit_rollup/: per part, UTC hour
 * and value of every hit field) what they can answer exactly, and scans the rest:
 *  - a part's hour wholly inside the period is taken from its rollup; an hour the period cuts is taken when
 *    all of the part's rows of that hour lie on one side of the cut (a period ending "now" holds every hit
 *    so far), else that hour is scanned;
 *  - with a bucket, an hour whose start and end fall in different buckets (half-hour zones) is scanned;
 *  - a part without a rollup (written before them, until the backfill reaches it) is scanned;
 *  - a scanned hour is scanned for every part (all rows of that hour, from the parts' batches), and no
 *    rollup adds rows of it; the raw tail is always scanned, whole, once.
 * Rows still `pending` verification when their part was built are rollup rows of their own, with the hit's
 * id: their outcome is looked up at question time, as the scan does for its parts (columns/source.ts).
 * Part list, rollups and raw tail are read consistently (Source.consistent): a compaction publishing or
 * merging meanwhile makes the read start over, so no hit is missed or counted twice.
 */
import type { Deps } from "../deps.ts";
import type { NumCol, StrCol } from "../parts/columns.ts";
import { PartGoneError, type PartMeta } from "../parts/store.ts";
import { type Turn, turns } from "../turns.ts";
import type { HitBatch, Source } from "./columns/source.ts";
import { addRollup, pendingIds } from "./hit_rollup/answer.ts";
import { HOUR } from "./hit_rollup/build.ts";
import { addTo, HitGroups, type ValueIds } from "./hit_rollup/groups.ts";
import { hitRollupCacheBytes, HitRollups, type LoadedHitRollup } from "./hit_rollup/source.ts";
import type { HitAggregateOptions, HitAggregateResult, HitField, HitScope } from "./types.ts";

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

/** Per value numbering and column of one batch: each code's value number (see idsAt). */
type CodeTables = Map<ValueIds, Map<string, Int32Array>>;

/**
 * The value numbers of a field at the given rows of one batch: column fields map codes through a table
 * (made once per batch scanned: made per slice, a raw tail's thousands of pages were numbered again for
 * each of its 2,048-row slices), the effective verification applies later outcomes, status figures go
 * through a small cache of numbers.
 */
function idsAt(h: HitBatch, f: HitField, dim: ValueIds, rows: Int32Array, tables: CodeTables): Int32Array {
  const out = new Int32Array(rows.length);
  const col = COLUMN[f] ?? (f === "verification" ? "verification" : null);
  if (col) {
    const c = h.b.cols[col] as StrCol;
    let ofDim = tables.get(dim);
    if (!ofDim) tables.set(dim, ofDim = new Map());
    let byCode = ofDim.get(col);
    if (!byCode) {
      byCode = Int32Array.from({ length: c.dict.length + 1 }, (_, k) => dim.id(k ? c.dict[k - 1] : null));
      ofDim.set(col, byCode);
    }
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

/** Rows of a batch added between turns of the event loop (a raw tail of 40k hits took seconds in one go). */
const SLICE = 2_048;

/** Adds the batch's hits in [from, to) to the groups, slice by slice, offering the event loop turns. */
async function scanInto(g: HitGroups, h: HitBatch, from: number, to: number, turn: Turn): Promise<void> {
  const t = (h.b.cols.t as NumCol).values, tp = h.b.cols.touchpoint as StrCol;
  const tpCode = g.scope.touchpoint ? tp.dict.indexOf(g.scope.touchpoint) + 1 : -1;
  if (tpCode === 0) return; // the touchpoint never appears in this batch
  const crawled = (h.b.cols.crawled as NumCol).values, sf = (h.b.cols.site_file as StrCol).codes;
  const ids = new Int32Array(g.width);
  const tables: CodeTables = new Map();
  for (let start = 0; start < h.b.n; start += SLICE) {
    await turn();
    const end = Math.min(h.b.n, start + SLICE);
    let n = 0;
    const inScope = new Int32Array(end - start);
    for (let i = start; i < end; i++) {
      if (t[i] < from || t[i] >= to) continue;
      if (tpCode > 0 && tp.codes[i] !== tpCode) continue;
      inScope[n++] = i;
    }
    let kept = inScope.subarray(0, n);
    g.filters.forEach((f, k) => {
      const vs = idsAt(h, f.field, g.filterDims[k], kept, tables);
      let m = 0;
      for (let j = 0; j < kept.length; j++) if (g.passes(k, vs[j])) kept[m++] = kept[j];
      kept = kept.subarray(0, m);
    });
    const keyParts = g.fields.map((f, d) => idsAt(h, f, g.dims[d], kept, tables));
    const pages = g.needPages ? idsAt(h, "page", g.pageDim, kept, tables) : null;
    for (let j = 0; j < kept.length; j++) {
      const i = kept[j];
      for (let d = 0; d < keyParts.length; d++) ids[d] = keyParts[d][j];
      if (g.bucketOf) ids[g.fields.length] = g.bucketDim.id(g.bucketOf(t[i]));
      const ti = t[i], isCrawled = crawled[i] === 1, isPage = sf[i] === 0;
      const page = pages && isCrawled && isPage ? pages[j] : -1;
      addTo(g.group(ids), 1, ti, ti, isCrawled, isPage, page);
      addTo(g.total, 1, ti, ti, isCrawled, isPage, page);
    }
  }
}

/** Aggregates hit batches by scanning them (every row in the scope's period); the event loop gets turns. */
export async function hitsAggregate(
  batches: HitBatch[],
  scope: HitScope,
  opts: HitAggregateOptions,
): Promise<HitAggregateResult> {
  const g = new HitGroups(scope, opts);
  const turn = turns();
  for (const h of batches) await scanInto(g, h, scope.from, scope.to, turn);
  return g.result();
}

const hourOf = (ms: number) => Math.floor(ms / HOUR);

/** A part's rollup rows taken: its merged rows (`whole`), or its hourly rows of the hours `take` marks. */
interface Take {
  id: string;
  l: LoadedHitRollup;
  whole: boolean;
  take: Uint8Array;
}

/** Which hours of each rollup are taken, and which hours (epoch hour numbers) are scanned instead. */
function plan(g: HitGroups, parts: PartMeta[], loaded: (LoadedHitRollup | null)[]) {
  const { from, to } = g.scope;
  const scanHours = new Set<number>();
  const takes: Take[] = [];
  parts.forEach((p, k) => {
    const l = loaded[k];
    if (!l) {
      const last = hourOf(Math.min(p.max_t, to - 1));
      for (let h = hourOf(Math.max(p.min_t, from)); h <= last; h++) scanHours.add(h);
      return;
    }
    const { hour0, hours, spans } = l;
    const take = new Uint8Array(hours);
    for (let h = 0; h < hours; h++) {
      if (Number.isNaN(spans.min[h])) continue; // no rows
      const h0 = (hour0 + h) * HOUR, h1 = h0 + HOUR, lo = spans.min[h], hi = spans.max[h];
      const inside = (h0 >= from && h1 <= to) || (lo >= from && hi < to);
      const outside = h1 <= from || h0 >= to || hi < from || lo >= to;
      if (!inside && outside) continue;
      if (!inside || (g.bucketOf && g.bucketOf(h0) !== g.bucketOf(h1 - 1))) scanHours.add(hour0 + h);
      else take[h] = 1;
    }
    takes.push({ id: p.id, l, whole: false, take });
  });
  for (const t of takes) {
    const { take } = t, { hour0, hours } = t.l;
    let whole = true, bucket: string | number | null = null;
    for (let h = 0; h < hours; h++) {
      if (take[h] && scanHours.has(hour0 + h)) take[h] = 0;
      if (Number.isNaN(t.l.spans.min[h])) continue;
      if (!take[h]) whole = false;
      else if (g.bucketOf) {
        const b = g.bucketOf((hour0 + h) * HOUR);
        if (bucket !== null && b !== bucket) whole = false;
        bucket = b;
      }
    }
    // every hour of the part taken, in one bucket: its rows with hours merged (the first hour has rows)
    if (whole) Object.assign(t, { whole: true, take: Uint8Array.of(1) });
  }
  // consecutive scanned hours as time ranges inside the period
  const ranges: [number, number][] = [];
  for (const h of [...scanHours].sort((a, b) => a - b)) {
    const last = ranges[ranges.length - 1];
    if (last && last[1] === h * HOUR) last[1] = (h + 1) * HOUR;
    else ranges.push([h * HOUR, (h + 1) * HOUR]);
  }
  return {
    takes,
    ranges: ranges.map(([a, b]): [number, number] => [Math.max(a, from), Math.min(b, to)]),
  };
}

/**
 * What a question's groups from rollups depend on: the question without its period, sort and page (its
 * breakdown, bucket in its timezone, filters, touchpoint, metrics), the rows taken (each rollup's id, hourly
 * or merged, and the hours taken) and how many of their hits pending at build have an outcome now (outcomes
 * are final, so the count says which). The period's bounds are not in it: the rows taken are what they chose.
 */
function keptKey(scope: HitScope, opts: HitAggregateOptions, takes: Take[], resolved: number): string {
  const question = [
    scope.org,
    scope.env,
    scope.touchpoint ?? null,
    opts.bucket ? scope.timezone : null,
    scope.filters ?? [],
    opts.metrics,
    opts.breakdown ?? [],
    opts.bucket ?? null,
  ];
  const rows = takes.map((t) => `${t.id}:${t.whole ? "w" : t.take.join("")}`).join();
  return `${JSON.stringify(question)}|${rows}|${resolved}`;
}

/** How a question was answered (tests and benches): rollup parts, hours scanned, raw-tail rows. */
export interface HitPath {
  rollups: number;
  scannedRanges: [number, number][];
}

/**
 * The engine's crawler-hit question. `deps` defaults to the source's own (the engine builds the source from
 * its deps); the decoded rollups' cache holds `cacheBytes` (default: an eighth of the part cache's budget).
 */
export function hitAnswers(source: Source, deps: Pick<Deps, "kv" | "config">, cacheBytes?: number) {
  const rollups = new HitRollups(deps.kv, cacheBytes ?? hitRollupCacheBytes(deps.config.partCacheBytes));
  const answer = (scope: HitScope, opts: HitAggregateOptions) => answerHits(source, rollups, scope, opts);
  return Object.assign(answer, { rollups });
}

export async function answerHits(
  source: Source,
  rollups: HitRollups,
  scope: HitScope,
  opts: HitAggregateOptions,
  path?: HitPath,
): Promise<HitAggregateResult> {
  const { org, env, from, to } = scope;
  if (!(from < to)) return new HitGroups(scope, opts).result();
  return await source.consistent(org, env, "hit", async (all) => {
    let g = new HitGroups(scope, opts);
    const turn = turns();
    const parts = all.filter((p) => p.min_t < to && p.max_t >= from);
    const { takes, ranges } = plan(g, parts, await Promise.all(parts.map((p) => rollups.get(p.id))));
    // the rows taken: a part's merged rows, or its hourly rows (read now: a period cuts it, or a bucket
    // splits it); a rollup rewritten meanwhile makes the read start over
    const rows = await Promise.all(takes.map(async (t) => {
      const r = t.whole ? t.l.whole : await rollups.hourly(t.id, t.l);
      if (!r) throw new PartGoneError(`hit rollup of part ${t.id} changed while read`);
      return { r, take: t.take };
    }));
    const pending = rows.flatMap(({ r, take }) => pendingIds(r, take));
    const outcome = await rollups.outcomesOf(org, pending);
    // the rollups' share of the answer, kept by question and rows taken: a later ask whose period takes the
    // same rows (the same bounds, or bounds that move inside hours no part has a row in, as "now" does) adds
    // only its scanned hours and raw tail to a copy
    const key = keptKey(scope, opts, takes, pending.filter((id) => outcome(id) !== undefined).length);
    const kept = rollups.kept.get(key);
    if (kept) g = new HitGroups(scope, opts, kept);
    else {
      for (const { r, take } of rows) {
        addRollup(g, r, take, outcome);
        await turn();
      }
      const copy = new HitGroups(scope, opts, g);
      rollups.kept.set(key, copy, copy.weight());
    }
    // scanned hours: each range's parts (source.hits lists the parts it read first, the raw tail last)
    let tail: HitBatch[] | null = null;
    for (const [a, b] of ranges) {
      const batches = await source.hits(org, env, a, b);
      const count = all.filter((p) => p.min_t < b && p.max_t >= a).length;
      for (const h of batches.slice(0, count)) await scanInto(g, h, a, b, turn);
      tail ??= batches.slice(count);
    }
    // no part overlaps an empty range at the end of time: the raw tail alone
    tail ??= await source.hits(org, env, Number.MAX_VALUE, Number.MAX_VALUE);
    for (const h of tail) await scanInto(g, h, from, to, turn);
    if (path) {
      path.rollups = takes.length;
      path.scannedRanges = ranges;
    }
    return g.result();
  });
}
