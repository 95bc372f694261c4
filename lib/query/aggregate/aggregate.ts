/**
 * Aggregates over prepared batches: a group number per matching row (groups.ts), then one pass over the
 * rows in visitor order into every question's accumulators. Visitors are distinct per group without hash
 * sets (a visitor's rows are contiguous, so "last visitor seen in this group" suffices); sessions likewise,
 * except the few split across batches. Several questions over one scope share the pass.
 */
import { droppedBySession } from "../scan/drops.ts";
import type { Ctx } from "../scan/ctx.ts";
import { matchMasks } from "../scan/filters.ts";
import { sessionFacts } from "../scan/session_facts.ts";
import { sortAndPage } from "../order.ts";
import type { AggregateOptions, AggregateResult, Row } from "../types.ts";
import { Accumulators } from "./accumulators.ts";
import { fullLoop } from "./full_loop.ts";
import { convertedVisitors } from "./goal.ts";
import { isTotals } from "./group_source.ts";
import { directGroups, groupsOf } from "./groups.ts";
import { leanLoop } from "./lean_loop.ts";
import { DETAIL, EXITS, LEAN, metricValues, needsSessionFacts, PER_SESSION } from "./metrics.ts";
import { type Pass, preparePass } from "./pass.ts";
import { passTurns } from "./slice.ts";
import { totalsLoop } from "./totals_loop.ts";
import type { Turn } from "../../turns.ts";

const whole = (o: AggregateOptions) => !o.breakdown?.length && !o.bucket;
const goalKey = (o: AggregateOptions) => JSON.stringify(o.goal ?? null);

/**
 * Every question's answer from one pass. The pass gives the event loop a turn (when it has held it for
 * the turn's budget) between its steps and every few thousand rows: over a raw tail of 40,000 events the
 * loops ran 100-450 ms in one go, and /healthz waited as long.
 */
export async function aggregateMany(
  c: Ctx,
  list: AggregateOptions[],
  turn: Turn = passTurns(),
): Promise<AggregateResult[]> {
  const facts = needsSessionFacts(list, c.scope.filters) ? sessionFacts(c) : null;
  await turn();
  const drops = list.some((o) => o.metrics.includes("dropped_events")) ? droppedBySession(c) : null;
  const masks = matchMasks(c, c.scope.filters);
  await turn();
  // totals depend only on the scope and the goal: one run without breakdown per goal serves every question
  const convs = new Map<string, Uint8Array | null>();
  const convOf = (o: AggregateOptions) => {
    const k = goalKey(o);
    if (!convs.has(k)) convs.set(k, convertedVisitors(c, o.goal));
    return convs.get(k)!;
  };
  const totals = new Map<string, Accumulators>();
  const all: Accumulators[] = [];
  const totalsOf = (o: AggregateOptions) => {
    const k = goalKey(o);
    let t = totals.get(k);
    if (!t) {
      const asked = list.filter((x) => goalKey(x) === k);
      t = new Accumulators(directGroups(c, [], undefined)!, {
        full: true,
        converted: convOf(o),
        detail: asked.some((x) => x.metrics.some((m) => DETAIL.has(m))),
        exits: asked.some((x) => x.metrics.some((m) => EXITS.has(m))),
        viewers: asked.some((x) => x.metrics.includes("viewers")),
        reporters: asked.some((x) => x.metrics.includes("reporters")),
      });
      totals.set(k, t);
      all.push(t);
    }
    return t;
  };
  for (const o of list) if (whole(o)) totalsOf(o);
  const mine: Accumulators[] = [];
  for (const o of list) {
    if (whole(o)) {
      mine.push(totalsOf(o));
      continue;
    }
    // a breakdown's group numbers cost a walk over the rows: a turn after each
    const acc = new Accumulators(groupsOf(c, masks, o), {
      full: !o.metrics.every((m) => LEAN.has(m)),
      converted: convOf(o),
      perSession: o.metrics.some((m) => PER_SESSION.has(m)),
      engaged: o.metrics.includes("engaged_visitors"),
      viewers: o.metrics.includes("viewers"),
      reporters: o.metrics.includes("reporters"),
    });
    all.push(acc);
    mine.push(acc);
    await turn();
  }
  for (const o of list) totalsOf(o);
  const pass = await preparePass(c, masks, facts, drops, turn);
  await runLoops(pass, all, turn);
  return list.map((o, k) => {
    const acc = mine[k];
    const rows: Row[] = [];
    if (!whole(o)) {
      for (let g = 0; g < acc.gs.size; g++) {
        if (acc.events[g] > 0) rows.push({ key: acc.gs.key(g), metrics: metricValues(o, acc, g) });
      }
    } else if (acc.events[0] > 0) rows.push({ key: {}, metrics: metricValues(o, acc, 0) });
    const page = sortAndPage(rows, o);
    return {
      totals: metricValues(o, totals.get(goalKey(o))!, 0),
      rows: page.rows,
      total_rows: page.total_rows,
    };
  });
}

/**
 * The matching rows, visitor by visitor, into every question's accumulators. A visitor's rows are
 * contiguous in this order, so "last visitor counted in this group" makes visitor counts exact.
 * One monomorphic loop per kind of question: lean ones count only events, pageviews and visitors.
 */
async function runLoops(p: Pass, all: Accumulators[], turn: Turn): Promise<void> {
  const lean: Accumulators[] = [];
  for (const acc of all) {
    if (acc.full && isTotals(acc.gs)) await totalsLoop(p, acc, turn);
    else if (acc.full) await fullLoop(p, acc, turn);
    else lean.push(acc);
  }
  if (lean.length) await leanLoop(p, lean, turn);
}
