/** One question's scan context, with what the questions of one period share kept across them. */
import { CohortCache } from "../cohort/cache.ts";
import type { EventLoad, Source } from "../columns/source.ts";
import { freeBatch, memberLoad } from "../cohort/members.ts";
import type { CohortExpr, Filter, Scope } from "../types.ts";
import { baseMask } from "../cohort/conditions.ts";
import { type Ctx, type Derived, derivedBytes, makeCtx, type Membership, rowsSpan } from "./ctx.ts";

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

  /**
   * How many of the cohort's members have a human event of the scope's touchpoint in its period, for a
   * period that does not fit (`tooLarge`; else null: the scan counts it): the members evaluated part by
   * part, then the period's parts read once more, one at a time, and let go; nothing is cut or kept but the
   * evaluation (previewing a saved cohort's size held the month cut to its members: all of it for a cohort
   * of every visitor).
   */
  async cohortSize(s: Scope, expr: CohortExpr): Promise<number | null> {
    if (!(await this.tooLarge(s))) return null;
    const m = await this.cohorts.streamed(s, expr, freeBatch);
    let seen = new Uint8Array(0), count = 0;
    await this.source.stream(s.org, s.env, s.from, s.to, {
      own: true,
      begin: () => {
        seen = new Uint8Array(0);
        count = 0;
      },
      visit: (e, tail) => {
        if (seen.length < e.interner.visitorCount) {
          const more = new Uint8Array(Math.max(e.interner.visitorCount, 2 * seen.length));
          more.set(seen);
          seen = more;
        }
        const inScope = baseMask(e, s, s.from, s.to), vis = e.vis;
        for (let i = 0; i < e.n; i++) {
          const v = vis[i];
          if (!inScope[i] || seen[v]) continue;
          if ((v < m.bits.length ? m.bits[v] : m.dflt) !== 1) continue;
          seen[v] = 1;
          count++;
        }
        if (!tail) freeBatch(e);
      },
    });
    return count;
  }

  /**
   * The batches of a scope's period (cached parts plus the raw tail), ready for a scan. Under a cohort, a
   * period that does not fit (`tooLarge`) is read as its members' rows only (cohort/members.ts), its members
   * evaluated part by part: no question holds the period decoded.
   */
  async of(s: Scope): Promise<Ctx> {
    let load: EventLoad, cohort: Membership | undefined, cut = "";
    if (s.cohort && await this.tooLarge(s)) {
      cohort = await this.cohorts.streamed(s, s.cohort, freeBatch);
      load = await memberLoad(this.source, s, cohort);
      cut = `|members${cohort.id}`;
    } else {
      load = await this.source.events(s.org, s.env, s.from, s.to);
      // evaluated after the question's own load: every visitor of its batches has a number by then
      cohort = s.cohort
        ? await this.cohorts.membership(s, s.cohort, { from: s.from, to: s.to, load })
        : undefined;
    }
    const { batches, rawRows } = load;
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
    const key = `scan|${s.org}|${s.env}|${interner.generation}|${load.partIds.join(",")}${cut}`;
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
