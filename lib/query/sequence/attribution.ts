/**
 * Attribution, for explaining a change: every visitor (or session) in scope is counted once, under the values
 * of its first event in scope (the page it landed on, the source it came from), so the counts of one field's
 * values add up to the total; pageviews are counted under their own values, which add up as well. Per value
 * also: bounced sessions (at most one pageview in scope) and units that did the goal event in scope.
 */
import { eventView } from "../columns/views.ts";
import type { Ctx } from "../scan/ctx.ts";
import { compileFilters } from "../scan/filters.ts";
import type { AttributionOptions, AttributionResult, AttributionRow } from "../types.ts";

const before = (c: Ctx, b: number, i: number, b2: number, j: number) => {
  const x = c.batches[b], y = c.batches[b2];
  return x.t[i] < y.t[j] ||
    (x.t[i] === y.t[j] && (x.dt[i] < y.dt[j] || (x.dt[i] === y.dt[j] && x.seq[i] < y.seq[j])));
};

/** Value groups of one field: a group number per batch and code, made once per code. */
class FieldGroups {
  index = new Map<string | null, number>();
  rows: AttributionRow[] = [];
  private perBatch: Int32Array[] = [];
  constructor(readonly c: Ctx, readonly field: string) {}
  group(b: number, i: number): number {
    let table = this.perBatch[b];
    const v = eventView(this.c.batches[b], this.field);
    if (!table) this.perBatch[b] = table = new Int32Array(v.values.length).fill(-1);
    const code = v.codes.length ? v.codes[i] : 0;
    let g = table[code];
    if (g < 0) {
      const value = v.values[code] ?? null;
      g = this.index.get(value) ?? -1;
      if (g < 0) {
        g = this.rows.length;
        this.index.set(value, g);
        this.rows.push({ value, units: 0, pageviews: 0, bounced: 0, converted: 0 });
      }
      table[code] = g;
    }
    return g;
  }
}

export function attribution(c: Ctx, o: AttributionOptions): AttributionResult {
  const byVisitor = o.unit === "visitor";
  const n = byVisitor ? c.nVis : c.nSes;
  const firstB = new Int32Array(n).fill(-1), firstR = new Int32Array(n);
  const pvOfSession = new Int32Array(c.nSes);
  const goal = new Uint8Array(n);
  const groups = o.fields.map((f) => new FieldGroups(c, f));
  let pageviews = 0;
  c.batches.forEach((e, b) => {
    const m = c.inScope[b], pred = compileFilters(c, b, c.scope.filters);
    const et = eventView(e, "event_type"), bits = c.etBits[b];
    const goalCode = o.goal ? et.values.indexOf(o.goal.event_type) : -1;
    const goalPred = goalCode >= 1 ? compileFilters(c, b, o.goal!.filters) : null;
    const units = byVisitor ? e.vis : e.ses;
    for (let i = 0; i < e.n; i++) {
      if (!m[i] || (pred && !pred(i))) continue;
      const u = units[i];
      if (firstB[u] < 0 || before(c, b, i, firstB[u], firstR[u])) {
        firstB[u] = b;
        firstR[u] = i;
      }
      const code = et.codes[i];
      if (bits[code] & 1) {
        pvOfSession[e.ses[i]]++;
        pageviews++;
        for (const g of groups) g.rows[g.group(b, i)].pageviews++;
      }
      if (goalCode >= 1 && code === goalCode && (!goalPred || goalPred(i))) goal[u] = 1;
    }
  });
  const out: AttributionResult = { units: 0, pageviews, bounced: 0, converted: 0, by: {} };
  for (let u = 0; u < n; u++) {
    if (firstB[u] < 0) continue;
    const bounced = !byVisitor && pvOfSession[u] <= 1 ? 1 : 0;
    out.units++;
    out.bounced += bounced;
    out.converted += goal[u];
    for (const g of groups) {
      const row = g.rows[g.group(firstB[u], firstR[u])];
      row.units++;
      row.bounced += bounced;
      row.converted += goal[u];
    }
  }
  for (const g of groups) out.by[g.field] = g.rows;
  return out;
}
