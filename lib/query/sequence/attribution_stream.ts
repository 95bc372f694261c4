/**
 * Attribution (explaining a change) without holding the period: when its parts would not fit the scan's
 * budget, they are read one at a time and each unit (visitor or session) carries its first row's order and
 * the value group of each field at that row, its goal bit and, per session, its pageviews: ~30 bytes plus 4
 * per field a unit, whatever the number of events. Distinct visitors per value are (value, visitor) pairs,
 * as in the scan. The same answer as `attribution` over all batches, rows in the same order (values in the
 * order the batches' dictionaries bring them); tests/lib/query/attribution_stream_test.ts.
 */
import type { EvBatch } from "../columns/batch.ts";
import { eventView } from "../columns/views.ts";
import type { ScanContexts } from "../scan/contexts.ts";
import { makeCtx } from "../scan/ctx.ts";
import { compileFilters } from "../scan/filters.ts";
import type { AttributionOptions, AttributionResult, AttributionRow } from "../sequence_types.ts";
import type { Scope } from "../types.ts";
import { attribution } from "./attribution.ts";

/** Attribution streamed when the period's parts would not fit the budget, else by the scan. */
export async function scanAttribution(
  scans: ScanContexts,
  s: Scope,
  o: AttributionOptions,
): Promise<AttributionResult> {
  if (!(await scans.streams(s))) return attribution(await scans.of(s), o);
  return streamAttribution(scans, s, o);
}

/** Growable per-unit arrays. */
class Units {
  n = 0;
  t = new Float64Array(0);
  dt = new Float64Array(0);
  seq = new Float64Array(0);
  vis = new Int32Array(0);
  goal = new Uint8Array(0);
  pv = new Int32Array(0); // pageviews of a session unit
  groups: Int32Array[];
  constructor(private fields: number) {
    this.groups = Array.from({ length: fields }, () => new Int32Array(0));
  }
  grow(n: number) {
    if (n <= this.n) return;
    const cap = Math.max(n, this.n * 2, 1024);
    const more = <T extends Float64Array | Int32Array | Uint8Array>(a: T, fill = 0): T => {
      const x = new (a.constructor as { new (n: number): T })(cap);
      x.fill(fill, a.length);
      x.set(a);
      return x;
    };
    this.t = more(this.t, Infinity);
    this.dt = more(this.dt);
    this.seq = more(this.seq);
    this.vis = more(this.vis, -1);
    this.goal = more(this.goal);
    this.pv = more(this.pv);
    this.groups = this.groups.map((g) => more(g));
    this.n = cap;
  }
}

/** One field's value groups, numbered as the batches' dictionaries bring them (as FieldGroups does). */
class Groups {
  index = new Map<string | null, number>();
  rows: AttributionRow[] = [];
  table(e: EvBatch, field: string): { codes: ArrayLike<number> | null; groups: Int32Array } {
    const v = eventView(e, field);
    const groups = Int32Array.from(v.values, (value) => {
      const key = value ?? null;
      let g = this.index.get(key);
      if (g === undefined) {
        g = this.rows.length;
        this.index.set(key, g);
        this.rows.push({ value: key, units: 0, pageviews: 0, bounced: 0, converted: 0 });
      }
      return g;
    });
    return { codes: v.codes.length ? v.codes : null, groups };
  }
}

export async function streamAttribution(
  scans: ScanContexts,
  s: Scope,
  o: AttributionOptions,
): Promise<AttributionResult> {
  const source = scans.source, interner = source.interner(s.org, s.env);
  const byVisitor = o.unit === "visitor";
  let units = new Units(o.fields.length), groups: Groups[] = [], viewers: Set<number>[] | null = null;
  let pageviews = 0;
  await source.stream(s.org, s.env, s.from, s.to, {
    begin: () => {
      units = new Units(o.fields.length);
      groups = o.fields.map(() => new Groups());
      viewers = o.visitors ? o.fields.map(() => new Set<number>()) : null;
      pageviews = 0;
    },
    visit: (e) => {
      const nVis = interner.visitorCount, nSes = interner.sessionCount;
      units.grow(byVisitor ? nVis : nSes);
      const c = makeCtx([e], s, nVis, nSes);
      const m = c.inScope[0], pred = compileFilters(c, 0, s.filters), bits = c.etBits[0];
      const et = eventView(e, "event_type");
      const goalCode = o.goal ? et.values.indexOf(o.goal.event_type) : -1;
      const goalPred = goalCode >= 1 ? compileFilters(c, 0, o.goal!.filters) : null;
      const ids = byVisitor ? e.vis : e.ses;
      const tables = groups.map((g, k) => g.table(e, o.fields[k]));
      const groupAt = (k: number, i: number) => tables[k].groups[tables[k].codes ? tables[k].codes![i] : 0];
      for (let i = 0; i < e.n; i++) {
        if (!m[i] || (pred && !pred(i))) continue;
        const u = ids[i], t = e.t[i], dt = e.dt[i], seq = e.seq[i];
        if (
          t < units.t[u] ||
          (t === units.t[u] && (dt < units.dt[u] || (dt === units.dt[u] && seq < units.seq[u])))
        ) {
          units.t[u] = t;
          units.dt[u] = dt;
          units.seq[u] = seq;
          units.vis[u] = e.vis[i];
          for (let k = 0; k < tables.length; k++) units.groups[k][u] = groupAt(k, i);
        }
        const code = et.codes[i];
        if (bits[code] & 1) {
          if (!byVisitor) units.pv[u]++;
          pageviews++;
          for (let k = 0; k < tables.length; k++) {
            const g = groupAt(k, i), row = groups[k].rows[g];
            row.pageviews++;
            if (viewers && addPair(viewers[k], g, e.vis[i])) row.viewers = (row.viewers ?? 0) + 1;
          }
        }
        if (goalCode >= 1 && code === goalCode && (!goalPred || goalPred(i))) units.goal[u] = 1;
      }
    },
  });
  const out: AttributionResult = { units: 0, pageviews, bounced: 0, converted: 0, by: {} };
  const placed = o.visitors ? o.fields.map(() => new Set<number>()) : null;
  const counted = o.visitors && !byVisitor ? new Set<number>() : null;
  if (o.visitors) out.visitors = 0;
  for (let u = 0; u < units.n; u++) {
    if (units.vis[u] < 0) continue;
    const bounced = !byVisitor && units.pv[u] <= 1 ? 1 : 0, v = units.vis[u];
    out.units++;
    out.bounced += bounced;
    out.converted += units.goal[u];
    if (o.visitors && !(counted && counted.has(v))) {
      out.visitors!++;
      counted?.add(v);
    }
    for (let k = 0; k < groups.length; k++) {
      const g = units.groups[k][u], row = groups[k].rows[g];
      row.units++;
      row.bounced += bounced;
      row.converted += units.goal[u];
      if (placed && addPair(placed[k], g, v)) row.visitors = (row.visitors ?? 0) + 1;
    }
  }
  groups.forEach((g, k) => {
    const rows = out.by[o.fields[k]] = g.rows.filter((r) => r.units > 0 || r.pageviews > 0);
    if (!o.visitors) return;
    for (const r of rows) {
      r.visitors ??= 0;
      r.viewers ??= 0;
    }
  });
  return out;
}

/** Adds a (value group, visitor) pair; true when it is new. Visitor numbers stay below 2^26 (interner.ts). */
function addPair(set: Set<number>, group: number, visitor: number): boolean {
  const k = group * 67_108_864 + visitor;
  if (set.has(k)) return false;
  set.add(k);
  return true;
}
