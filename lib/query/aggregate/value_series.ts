/**
 * Numeric series per group: the numbers a property takes (e.g. `value`), split into series by another
 * property (e.g. `metric`), per value of a plain field (e.g. page), with each group's rows and visitors
 * and the same over all groups. Exact percentiles from one walk over the rows in visitor order: visitors
 * are distinct by "last visitor counted", numbers are gathered per group and series, sorted as typed
 * arrays and counted in runs (no group per distinct number, no map per number). Each series also counts its
 * reporters (people whose numbers count) up to `REPORTERS_COUNTED`, by the same "last visitor counted".
 */
import { HUMAN } from "../columns/batch.ts";
import { NO_ROWS } from "../columns/runs.ts";
import { fieldIds } from "../columns/row_ids.ts";
import { numericProp } from "../columns/views.ts";
import type { Ctx } from "../scan/ctx.ts";
import { matchMasks } from "../scan/filters.ts";
import { visitorOrder } from "../scan/visitor_order.ts";
import type { EventField, NumberRuns, SeriesGroup, ValueSeriesOptions, ValueSeriesResult } from "../types.ts";
import { runStates } from "./per_run.ts";
import { passTurns, SLICE_ROWS } from "./slice.ts";
import type { Turn } from "../../turns.ts";
import { inRange, type Range, VITAL_RANGES } from "../../schemas/capture_ranges.ts";

/**
 * A series' reporters are counted up to this many: enough to tell a series of 1 to 4 people (whose numbers an
 * answer must not show) from one of 5 or more, and what the vitals tables keep (vitals/build.ts).
 */
export const REPORTERS_COUNTED = 5;

export async function valueSeries(
  c: Ctx,
  o: ValueSeriesOptions,
  turn: Turn = passTurns(),
): Promise<ValueSeriesResult> {
  const masks = matchMasks(c, c.scope.filters);
  const seriesField = `prop:${o.series}` as EventField;
  const perBatch = c.batches.map((e) => ({
    by: o.by ? fieldIds(e, o.by) : new Int32Array(e.n),
    series: fieldIds(e, seriesField),
    values: numericProp(e, o.value),
  }));
  // value numbers are process-wide and every batch's are assigned by now: flat arrays by group and series
  const interner = c.batches[0]?.interner;
  const byNames = interner && o.by ? interner.valueIds(o.by).values : [null];
  const seriesNames = interner ? interner.valueIds(seriesField).values : [];
  const nG = byNames.length, nS = seriesNames.length;
  // Web Vitals values (series metric, value value) count only inside their metric's range: ingest refuses
  // others, and one stored before that is read as no number (lib/schemas/capture_ranges.ts)
  const vitals = o.series === "metric" && o.value === "value";
  const ranges: (Range | undefined)[] = seriesNames.map((name) =>
    vitals && name !== null && Object.hasOwn(VITAL_RANGES, name) ? VITAL_RANGES[name] : undefined
  );
  const rows = new Int32Array(nG), visitors = new Int32Array(nG), last = new Int32Array(nG).fill(-1);
  const srows = new Int32Array(nG * nS);
  // reporters per group and series and per series over all: people whose number counts
  const sreps = new Int32Array(nG * nS), slast = new Int32Array(nG * nS).fill(-1);
  const treps = new Int32Array(nS), tlast = new Int32Array(nS).fill(-1);
  const nums: number[][] = Array.from({ length: nG * nS }, () => []);
  let totalVisitors = 0, lastVisitor = -1;
  const { rb, rk } = visitorOrder(c);
  const states = runStates(c, masks);
  await turn();
  let since = 0;
  for (let p = 0; p < rb.length; p++) {
    if (++since >= SLICE_ROWS) {
      since = 0;
      await turn();
    }
    if (states[p] === NO_ROWS) continue;
    const b = rb[p], e = c.batches[b], m = masks[b], pb = perBatch[b], bits = e.bits, vis = e.vis;
    since += e.runStart[rk[p] + 1] - e.runStart[rk[p]];
    const by = pb.by, series = pb.series, codes = pb.values.codes, values = pb.values.nums;
    const coded = codes.length > 0;
    for (let i = e.runStart[rk[p]], end = e.runStart[rk[p] + 1]; i < end; i++) {
      if (!m[i]) continue;
      const g = by[i], gs = g * nS + series[i], x = values[coded ? codes[i] : 0];
      rows[g]++;
      srows[gs]++;
      const r = ranges[series[i]];
      const counted = x === x && (!r || inRange(r, x)); // NaN: not a number
      if (counted) nums[gs].push(x);
      if (bits[i] & HUMAN) {
        const v = vis[i];
        if (last[g] !== v) last[g] = v, visitors[g]++;
        if (lastVisitor !== v) lastVisitor = v, totalVisitors++;
        if (counted) {
          if (slast[gs] !== v) slast[gs] = v, sreps[gs]++;
          const sk = series[i];
          if (tlast[sk] !== v) tlast[sk] = v, treps[sk]++;
        }
      }
    }
  }
  const groups: SeriesGroup[] = [];
  const perSeries: NumberRuns[][] = seriesNames.map(() => []);
  const totalRows = new Int32Array(nS);
  for (let g = 0; g < nG; g++) {
    if (!rows[g]) continue;
    const series: SeriesGroup["series"] = {};
    for (let s = 0; s < nS; s++) {
      const n = srows[g * nS + s], name = seriesNames[s];
      if (!n || name === null) continue;
      const counts = runsOf(Float64Array.from(nums[g * nS + s]).sort());
      series[name] = { rows: n, reporters: Math.min(sreps[g * nS + s], REPORTERS_COUNTED), counts };
      perSeries[s].push(counts);
      totalRows[s] += n;
    }
    if (o.by) groups.push({ value: byNames[g], rows: rows[g], visitors: visitors[g], series });
  }
  // over all groups: the groups' counts merged pairwise (cheaper than sorting every number again)
  const series: SeriesGroup["series"] = {};
  seriesNames.forEach((name, s) => {
    if (totalRows[s] && name !== null) {
      const reporters = Math.min(treps[s], REPORTERS_COUNTED);
      series[name] = { rows: totalRows[s], reporters, counts: mergeAll(perSeries[s]) };
    }
  });
  const total = { value: null, rows: rows.reduce((a, b) => a + b, 0), visitors: totalVisitors, series };
  return { total, groups };
}

/** The runs of sorted numbers. */
function runsOf(sorted: Float64Array): NumberRuns {
  let n = 0;
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) n++;
  const values = new Float64Array(n), counts = new Float64Array(n);
  for (let i = 0, k = -1; i < sorted.length; i++) {
    if (i === 0 || sorted[i] !== sorted[i - 1]) values[++k] = sorted[i];
    counts[k]++;
  }
  return { values, counts };
}

/** No numbers. */
export const noRuns = (): NumberRuns => ({ values: new Float64Array(0), counts: new Float64Array(0) });

/** Two ascending runs as one (equal numbers added); one of them itself when the other is empty. */
export function mergeRuns(a: NumberRuns, b: NumberRuns): NumberRuns {
  const na = a.values.length, nb = b.values.length;
  if (!na) return b;
  if (!nb) return a;
  const av = a.values, ac = a.counts, bv = b.values, bc = b.counts;
  const values = new Float64Array(na + nb), counts = new Float64Array(na + nb);
  let i = 0, j = 0, k = 0;
  for (; i < na || j < nb; k++) {
    if (j >= nb || (i < na && av[i] < bv[j])) {
      values[k] = av[i];
      counts[k] = ac[i++];
    } else if (i >= na || bv[j] < av[i]) {
      values[k] = bv[j];
      counts[k] = bc[j++];
    } else {
      values[k] = av[i];
      counts[k] = ac[i++] + bc[j++];
    }
  }
  return k === na + nb ? { values, counts } : { values: values.slice(0, k), counts: counts.slice(0, k) };
}

function mergeAll(list: NumberRuns[]): NumberRuns {
  while (list.length > 1) {
    const next: NumberRuns[] = [];
    for (let k = 0; k < list.length; k += 2) {
      next.push(k + 1 < list.length ? mergeRuns(list[k], list[k + 1]) : list[k]);
    }
    list = next;
  }
  return list[0] ?? noRuns();
}
