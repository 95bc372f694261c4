/** The sessions question: sessions in scope, newest first, each with its ordered steps (no identifiers). */
import type { Ctx } from "../scan/ctx.ts";
import { matchMasks } from "../scan/filters.ts";
import type { SessionSeq, SessionsOptions } from "../sequence_types.ts";
import { forEachSession, type Ref, str } from "./rows.ts";

/** Arrival order of two rows: receive time, device time, number (where sessions lists place a session). */
const arrivalCmp = (c: Ctx, x: Ref, y: Ref) => {
  const a = c.batches[x.b], b = c.batches[y.b];
  return a.t[x.i] - b.t[y.i] || a.dt[x.i] - b.dt[y.i] || a.seq[x.i] - b.seq[y.i];
};

export function sessions(c: Ctx, opts: SessionsOptions): SessionSeq[] {
  const matchFilters = opts.matchFilters ?? true;
  const masks = matchFilters && c.scope.filters?.length ? matchMasks(c, c.scope.filters) : null;
  const found: { rows: Ref[]; vis: number; landed: Ref }[] = [];
  forEachSession(c, (_s, vis, rows) => {
    if (masks && !rows.some((r) => masks[r.b][r.i])) return;
    found.push({ rows, vis, landed: rows.reduce((m, r) => arrivalCmp(c, r, m) < 0 ? r : m) });
  });
  // newest first by the session's start (its first receive time), as the streamed lists place sessions
  found.sort((x, y) => -arrivalCmp(c, x.landed, y.landed));
  const visitors = new Map<number, number>();
  return found.slice(0, opts.limit).map(({ rows, vis }, k) => {
    if (!visitors.has(vis)) visitors.set(vis, visitors.size);
    const f = rows[0],
      landed = found[k].landed,
      last = rows.reduce((m, r) => Math.max(m, c.batches[r.b].t[r.i]), -Infinity);
    return {
      visitor: visitors.get(vis)!,
      session: k,
      start: c.batches[landed.b].t[landed.i],
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
