/**
 * The reference meaning of a cohort definition, the plain way: per visitor, its stored human events of the
 * touchpoint in each condition's window, counted or ordered, then combined. Shares with the engine only the
 * meaning of one filter (`matches`) and of a field's value (`fieldOf`).
 */
import type { StoredEvent } from "../../../lib/store/records.ts";
import type { CohortExpr } from "../../../lib/query/types.ts";
import { matches } from "../../../lib/query/scan/filters.ts";
import { fieldOf, orderCmp } from "./reference.ts";

/** The anonymous ids in the cohort, among those that have any stored event. */
export function naiveCohort(all: StoredEvent[], touchpoint: string | null | undefined, expr: CohortExpr) {
  const byVisitor = new Map<string, StoredEvent[]>();
  for (const e of all) {
    if (!byVisitor.has(e.anonymous_id)) byVisitor.set(e.anonymous_id, []);
    byVisitor.get(e.anonymous_id)!.push(e);
  }
  const holds = (events: StoredEvent[], x: CohortExpr): boolean => {
    if ("all" in x) return x.all.every((y) => holds(events, y));
    if ("any" in x) return x.any.some((y) => holds(events, y));
    if ("not" in x) return !holds(events, x.not);
    const w = "did" in x ? x.did : x.first;
    const inWindow = events.filter((e) =>
      e.traffic === "human" && (!touchpoint || e.touchpoint === touchpoint) &&
      e.received_at >= w.from && e.received_at < w.to
    );
    if ("did" in x) {
      const n = inWindow.filter((e) => x.did.filters.every((f) => matches(fieldOf(e, f.field), f))).length;
      return n >= Math.max(1, x.did.min ?? 1);
    }
    const first = inWindow.sort(orderCmp)[0];
    return first !== undefined && matches(fieldOf(first, x.first.filter.field), x.first.filter);
  };
  const members = new Set<string>();
  for (const [id, events] of byVisitor) if (holds(events, expr)) members.add(id);
  return members;
}

/** The events a question under the cohort reads: its members' human events. */
export function cohortEvents(all: StoredEvent[], members: Set<string>): StoredEvent[] {
  return all.filter((e) => e.traffic === "human" && members.has(e.anonymous_id));
}
