/** The sessions question: sessions in scope, newest first, each with its ordered steps (no identifiers). */
import type { Ctx } from "../scan/ctx.ts";
import { matchMasks } from "../scan/filters.ts";
import type { SessionSeq, SessionsOptions } from "../sequence_types.ts";
import { cmpRef, forEachSession, type Ref, str } from "./rows.ts";

export function sessions(c: Ctx, opts: SessionsOptions): SessionSeq[] {
  const matchFilters = opts.matchFilters ?? true;
  const masks = matchFilters && c.scope.filters?.length ? matchMasks(c, c.scope.filters) : null;
  const found: { rows: Ref[]; vis: number }[] = [];
  forEachSession(c, (_s, vis, rows) => {
    if (masks && !rows.some((r) => masks[r.b][r.i])) return;
    found.push({ rows, vis });
  });
  const cmp = cmpRef(c);
  found.sort((x, y) => -cmp(x.rows[0], y.rows[0]));
  const visitors = new Map<number, number>();
  return found.slice(0, opts.limit).map(({ rows, vis }, k) => {
    if (!visitors.has(vis)) visitors.set(vis, visitors.size);
    const f = rows[0], last = rows.reduce((m, r) => Math.max(m, c.batches[r.b].t[r.i]), -Infinity);
    return {
      visitor: visitors.get(vis)!,
      session: k,
      start: c.batches[f.b].t[f.i],
      end: last,
      source: str(c, f, "source")!,
      channel: str(c, f, "channel")!,
      country: str(c, f, "country"),
      device_type: str(c, f, "device_type")!,
      steps: rows.map((r) => ({
        t: c.batches[r.b].t[r.i],
        event_type: str(c, r, "event_type")!,
        page: str(c, r, "page")!,
        element: str(c, r, "element"),
      })),
    };
  });
}
