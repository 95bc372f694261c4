/**
 * Paths: where sessions went after (or came from before) an anchor step; consecutive views of one page are
 * one step, "(end)" ends the visit.
 */
import { eventView } from "../columns/views.ts";
import type { Ctx } from "../scan/ctx.ts";
import type { PathsOptions, PathsResult } from "../types.ts";
import { forEachSession, type Ref, str } from "./rows.ts";
import { stepBits } from "./steps.ts";

export function paths(c: Ctx, opts: PathsOptions): PathsResult {
  const depth = opts.depth ?? 3;
  const byPage = (opts.step ?? "page") === "page";
  const anchorBits = stepBits(c, [opts.anchor]);
  const counts = Array.from({ length: depth }, () => new Map<string, number>());
  const seqs = new Map<string, number>();
  let total = 0;
  const isPv = (r: Ref) => c.etBits[r.b][eventView(c.batches[r.b], "event_type").codes[r.i]] & 1;
  const label = (r: Ref) => str(c, r, byPage ? "page" : "event_type")!;
  forEachSession(c, (_s, _v, rows) => {
    const at = rows.findIndex((r) => anchorBits[r.b][r.i]);
    if (at < 0) return;
    total++;
    const labels: string[] = [];
    let prev = byPage && !isPv(rows[at]) ? null : label(rows[at]);
    const step = opts.direction === "after" ? 1 : -1;
    for (let j = at + step; j >= 0 && j < rows.length; j += step) {
      if (byPage && !isPv(rows[j])) continue;
      const l = label(rows[j]);
      if (l === prev) continue;
      labels.push(l);
      prev = l;
      if (labels.length === depth) break;
    }
    if (labels.length < depth) labels.push("(end)");
    labels.forEach((l, i) => counts[i].set(l, (counts[i].get(l) ?? 0) + 1));
    const k = JSON.stringify(labels);
    seqs.set(k, (seqs.get(k) ?? 0) + 1);
  });
  const top = (m: Map<string, number>) =>
    [...m].map(([value, n]) => ({ value, sessions: n })).sort((a, b) =>
      b.sessions - a.sessions || (a.value < b.value ? -1 : 1)
    );
  const limit = opts.limit ?? 25;
  return {
    sessions: total,
    steps: counts.map((m, i) => ({ depth: i + 1, rows: top(m).slice(0, limit), total_rows: m.size })),
    sequences: [...seqs].map(([k, n]) => ({ steps: JSON.parse(k) as string[], sessions: n }))
      .sort((a, b) => b.sessions - a.sessions || (JSON.stringify(a.steps) < JSON.stringify(b.steps) ? -1 : 1))
      .slice(0, limit),
  };
}
