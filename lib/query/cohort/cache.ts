/**
 * Cohorts evaluated once and kept while the data they were evaluated over is unchanged: the same batch
 * objects (immutable parts, shared from the part cache) and the same raw-tail size for every window. Any
 * new part, merge or raw event gives a new evaluation (and a new membership number, so masks built with the
 * old one are not reused).
 */
import { remember } from "../../lru.ts";
import type { Source } from "../columns/source.ts";
import type { EvBatch } from "../columns/batch.ts";
import type { Membership } from "../scan/ctx.ts";
import type { CohortExpr, Scope } from "../types.ts";
import { cohortWindows, evaluateCohort } from "./evaluate.ts";

interface Kept {
  membership: Membership;
  batches: EvBatch[][];
  rawRows: number[];
}

export class CohortCache {
  private kept = new Map<string, Kept>();
  constructor(private source: Source) {}

  async membership(s: Scope, expr: CohortExpr): Promise<Membership> {
    const interner = this.source.interner(s.org, s.env);
    const key = JSON.stringify([s.org, s.env, s.touchpoint ?? null, interner.generation, expr]);
    const windows = cohortWindows(expr);
    const loads = await Promise.all(windows.map((w) => this.source.events(s.org, s.env, w.from, w.to)));
    const batches = loads.map((l) => l.batches.slice(0, l.parts));
    const rawRows = loads.map((l) => l.rawRows);
    const old = this.kept.get(key);
    if (
      old && old.rawRows.every((r, i) => r === rawRows[i]) &&
      old.batches.every((bs, i) => bs.length === batches[i].length && bs.every((b, j) => b === batches[i][j]))
    ) return old.membership;
    const byWindow = new Map(windows.map((w, i) => [`${w.from}|${w.to}`, loads[i].batches]));
    const membership = await evaluateCohort(
      {
        events: (from, to) => Promise.resolve(byWindow.get(`${from}|${to}`)!),
        visitorCount: () => this.source.interner(s.org, s.env).visitorCount,
      },
      s,
      expr,
    );
    remember(this.kept, key, { membership, batches, rawRows }, 16);
    return membership;
  }
}
