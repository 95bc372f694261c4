/**
 * Attribution, for explaining a change: every visitor (or session) in scope is counted once, under the values
 * of its first event in scope (the page it landed on, the source it came from), so the counts of one field's
 * values add up to the total; pageviews are counted under their own values, which add up as well. Per value
 * also: bounced sessions (at most one pageview in scope) and units that did the goal event in scope, and when
 * asked, the distinct visitors behind a value's units and behind its pageviews (for the small-group rule).
 */
import { eventView } from "../columns/views.ts";
import type { Ctx } from "../scan/ctx.ts";
import { compileFilters } from "../scan/filters.ts";
import type { AttributionOptions, AttributionResult, AttributionRow } from "../sequence_types.ts";

const before = (c: Ctx, b: number, i: number, b2: number, j: number) => {
  const x = c.batches[b], y = c.batches[b2];
  return x.t[i] < y.t[j] ||
    (x.t[i] === y.t[j] && (x.dt[i] < y.dt[j] || (x.dt[i] === y.dt[j] && x.seq[i] < y.seq[j])));
};

/** Value groups of one field: a group number per batch and code, made once per batch. */
class FieldGroups {
  index = new Map<string | null, number>();
  rows: AttributionRow[] = [];
  private perBatch: Int32Array[] = [];
  constructor(readonly c: Ctx, readonly field: string) {}
  /** The batch's codes (null: the field is absent, all rows null) and its code → group table. */
  table(b: number): { codes: ArrayLike<number> | null; groups: Int32Array } {
    const v = eventView(this.c.batches[b], this.field);
    let groups = this.perBatch[b];
    if (!groups) {
      groups = this.perBatch[b] = Int32Array.from(v.values, (value) => {
        const key = value ?? null;
        let g = this.index.get(key);
        if (g === undefined) {
          g = this.rows.length;
          this.index.set(key, g);
          this.rows.push({ value: key, units: 0, pageviews: 0, bounced: 0, converted: 0 });
        }
        return g;
      });
    }
    return { codes: v.codes.length ? v.codes : null, groups };
  }
  group(b: number, i: number): number {
    const { codes, groups } = this.table(b);
    return groups[codes ? codes[i] : 0];
  }
}

/** Distinct (value group, visitor) pairs of one field: counts each visitor once per group. */
class Distinct {
  private seen = new Set<number>();
  constructor(private nVis: number) {}
  /** true the first time this visitor is seen in this group */
  add(group: number, visitor: number): boolean {
    const k = group * this.nVis + visitor;
    if (this.seen.has(k)) return false;
    this.seen.add(k);
    return true;
  }
}

export function attribution(c: Ctx, o: AttributionOptions): AttributionResult {
  const byVisitor = o.unit === "visitor";
  const n = byVisitor ? c.nVis : c.nSes;
  const firstB = new Int32Array(n).fill(-1), firstR = new Int32Array(n);
  const pvOfSession = new Int32Array(c.nSes);
  const goal = new Uint8Array(n);
  const groups = o.fields.map((f) => new FieldGroups(c, f));
  const viewers = o.visitors ? groups.map(() => new Distinct(c.nVis)) : null;
  let pageviews = 0;
  c.batches.forEach((e, b) => {
    const m = c.inScope[b], pred = compileFilters(c, b, c.scope.filters);
    const et = eventView(e, "event_type"), bits = c.etBits[b];
    const goalCode = o.goal ? et.values.indexOf(o.goal.event_type) : -1;
    const goalPred = goalCode >= 1 ? compileFilters(c, b, o.goal!.filters) : null;
    const units = byVisitor ? e.vis : e.ses;
    const tables = groups.map((g) => g.table(b));
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
        for (let k = 0; k < tables.length; k++) {
          const { codes, groups: gs } = tables[k];
          const g = gs[codes ? codes[i] : 0], row = groups[k].rows[g];
          row.pageviews++;
          if (viewers && viewers[k].add(g, e.vis[i])) row.viewers = (row.viewers ?? 0) + 1;
        }
      }
      if (goalCode >= 1 && code === goalCode && (!goalPred || goalPred(i))) goal[u] = 1;
    }
  });
  const out: AttributionResult = { units: 0, pageviews, bounced: 0, converted: 0, by: {} };
  // a unit's visitor: itself, or a session's visitor (counted once per value and once in all)
  const placed = o.visitors ? groups.map(() => new Distinct(c.nVis)) : null;
  const inScope = o.visitors && !byVisitor ? new Uint8Array(c.nVis) : null;
  if (o.visitors) out.visitors = 0;
  for (let u = 0; u < n; u++) {
    if (firstB[u] < 0) continue;
    const bounced = !byVisitor && pvOfSession[u] <= 1 ? 1 : 0;
    const v = byVisitor ? u : c.batches[firstB[u]].vis[firstR[u]];
    out.units++;
    out.bounced += bounced;
    out.converted += goal[u];
    if (o.visitors && !(inScope && inScope[v])) {
      out.visitors!++;
      if (inScope) inScope[v] = 1;
    }
    for (let k = 0; k < groups.length; k++) {
      const g = groups[k], gi = g.group(firstB[u], firstR[u]), row = g.rows[gi];
      row.units++;
      row.bounced += bounced;
      row.converted += goal[u];
      if (placed && placed[k].add(gi, v)) row.visitors = (row.visitors ?? 0) + 1;
    }
  }
  // tables are made for a batch's whole dictionary: values no unit or pageview in scope had are no rows
  for (const g of groups) {
    out.by[g.field] = g.rows.filter((r) => r.units > 0 || r.pageviews > 0);
    if (!o.visitors) continue;
    for (const r of out.by[g.field]) {
      r.visitors ??= 0;
      r.viewers ??= 0;
    }
  }
  return out;
}
