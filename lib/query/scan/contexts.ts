/** One question's scan context, with what the questions of one period share kept across them. */
import { CohortCache } from "../cohort/cache.ts";
import type { Source } from "../columns/source.ts";
import type { Filter, Scope } from "../types.ts";
import { type Ctx, type Derived, derivedBytes, makeCtx, rowsSpan } from "./ctx.ts";

export class ScanContexts {
  private cohorts: CohortCache;

  constructor(readonly source: Source) {
    this.cohorts = new CohortCache(source);
  }

  /**
   * Whether the period's parts, decoded, would fill more than half the scan's budget: holding them all at
   * once would leave no room for what questions keep (or pass it: each question would read them again), so
   * questions that can stream part by part do (as engine.ts siteFits: at 1M events funnel, paths and
   * sessions stream from step columns, funnel 187-242 ms cold / 9-12 warm against 416-861 / 63-102).
   */
  async tooLarge(s: Scope): Promise<boolean> {
    return !this.source.scanHolds(await this.source.periodRows(s.org, s.env, s.from, s.to));
  }

  /**
   * Whether a sequence question over `s` (with its steps' `filters`) streams part by part: when the period
   * does not fit, unless a cohort (evaluated over whole windows) or an entry/exit-page filter (each session's
   * every batch) needs the whole period at once.
   */
  async streams(s: Scope, filters: Filter[] = []): Promise<boolean> {
    const sessionLevel = [...(s.filters ?? []), ...filters].some((f) =>
      f.field === "entry_page" || f.field === "exit_page"
    );
    return !s.cohort && !sessionLevel && await this.tooLarge(s);
  }

  /** The batches of a scope's period (cached parts plus the raw tail), ready for a scan. */
  async of(s: Scope): Promise<Ctx> {
    const load = await this.source.events(s.org, s.env, s.from, s.to);
    const { batches, rawRows } = load;
    // evaluated after the question's own load: every visitor of its batches has a number by then
    const cohort = s.cohort
      ? await this.cohorts.membership(s, s.cohort, { from: s.from, to: s.to, load })
      : undefined;
    // the numbering the batches were read with (the environment's may have been renewed since: see
    // Source.interner), so counts and kept data's key agree with the batches' numbers
    const interner = batches[0]?.interner ?? this.source.interner(s.org, s.env);
    // the scope key's window: the parts' rows inside the range (a later "now" that passed no row shares it)
    const span = load.partSpan ? rowsSpan(batches.slice(0, load.parts), s.from, s.to) : null;
    const c = makeCtx(batches, s, interner.visitorCount, interner.sessionCount, cohort, span);
    // the raw tail (last batch, new each question) is merged into what is kept for the parts
    c.tail = rawRows > 0;
    /*
     * What questions over the same parts derive (visitor order, session facts, groups, per-run arrays) is
     * kept under the parts' ids and the visitor numbering, not under the batch objects: a part pushed out of
     * the cache and read again gives the same runs and numbers, so the kept data still fits it, and the kept
     * data never holds the batches themselves (it held every batch of its period beyond the part cache).
     * It is weighed in the part cache's budget, and weighed again each time a question takes it up (it grows
     * as questions add their facts).
     */
    const key = `scan|${s.org}|${s.env}|${interner.generation}|${load.partIds.join(",")}`;
    let d = this.source.kept<Derived>(key);
    if (!d) {
      d = {
        nVis: c.nVis,
        nSes: c.nSes,
        facts: new Map(),
        groups: new Map(),
        perRun: new Map(),
        dropped: new Map(),
      };
    }
    this.source.keep(key, d, derivedBytes(d));
    c.memo = d;
    return c;
  }
}
