/** One question's scan context, with what the questions of one period share kept across them. */
import { CohortCache } from "../cohort/cache.ts";
import type { Source } from "../columns/source.ts";
import type { Scope } from "../types.ts";
import { type Ctx, type Derived, makeCtx } from "./ctx.ts";

export class ScanContexts {
  // the visitor order and session facts of recent batch sets: questions come in groups over one period
  private recent: Derived[] = [];
  private cohorts: CohortCache;

  constructor(private source: Source) {
    this.cohorts = new CohortCache(source);
  }

  /** The batches of a scope's period (cached parts plus the raw tail), ready for a scan. */
  async of(s: Scope): Promise<Ctx> {
    const load = await this.source.events(s.org, s.env, s.from, s.to);
    const { batches, rawRows } = load;
    // evaluated after the question's own load: every visitor of its batches has a number by then
    const cohort = s.cohort
      ? await this.cohorts.membership(s, s.cohort, { from: s.from, to: s.to, load })
      : undefined;
    const interner = this.source.interner(s.org, s.env);
    const c = makeCtx(batches, s, interner.visitorCount, interner.sessionCount, cohort, load.partSpan);
    // the raw tail (last batch, new each question) is merged into what is kept for the parts
    c.tail = rawRows > 0;
    const parts = c.tail ? batches.slice(0, -1) : batches;
    let d = this.recent.find((x) =>
      x.batches.length === parts.length && x.batches.every((b, i) => b === parts[i])
    );
    if (!d) {
      this.recent.unshift(
        d = {
          batches: parts,
          nVis: c.nVis,
          nSes: c.nSes,
          facts: new Map(),
          groups: new Map(),
          perRun: new Map(),
        },
      );
      if (this.recent.length > 4) this.recent.pop();
    }
    c.memo = d;
    return c;
  }
}
