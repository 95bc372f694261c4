/** Property names seen on events in scope, with event and (human) visitor counts. */
import { eventView } from "../columns/views.ts";
import type { Ctx } from "../scan/ctx.ts";
import { matchMasks } from "../scan/filters.ts";
import { visitorOrder } from "../scan/visitor_order.ts";

export function propertyKeys(
  c: Ctx,
  eventType?: string,
): { key: string; events: number; visitors: number }[] {
  const masks = matchMasks(c, c.scope.filters);
  const stats = new Map<string, { events: number; visitors: number; last: number }>();
  const { rb, rk } = visitorOrder(c);
  const perBatch = c.batches.map((e) => {
    const own = Object.keys(e.b.cols).filter((k) => k.startsWith("p:")).map((k) => ({
      key: k.slice(2),
      codes: (e.b.cols[k] as { codes: ArrayLike<number> }).codes,
    }));
    const rest = eventView(e, "p*" as never);
    const restKeys = rest.values.map((s) => (s === null ? [] : Object.keys(JSON.parse(s))));
    const et = eventView(e, "event_type");
    return {
      own,
      rest,
      restKeys,
      et,
      etCode: eventType === undefined ? -1 : et.values.indexOf(eventType),
      tr: eventView(e, "traffic").codes,
    };
  });
  for (let p = 0; p < rb.length; p++) {
    const b = rb[p], e = c.batches[b], pb = perBatch[b], m = masks[b];
    for (let i = e.runStart[rk[p]]; i < e.runStart[rk[p] + 1]; i++) {
      if (!m[i] || (eventType !== undefined && pb.et.codes[i] !== pb.etCode)) continue;
      const human = c.human[b][pb.tr[i]] === 1;
      const note = (key: string) => {
        let s = stats.get(key);
        if (!s) stats.set(key, s = { events: 0, visitors: 0, last: -1 });
        s.events++;
        if (human && s.last !== e.vis[i]) {
          s.last = e.vis[i];
          s.visitors++;
        }
      };
      for (const o of pb.own) if (o.codes[i]) note(o.key);
      if (pb.rest.codes.length) { for (const k of pb.restKeys[pb.rest.codes[i]]) note(k); }
    }
  }
  return [...stats].map(([key, s]) => ({ key, events: s.events, visitors: s.visitors }))
    .sort((a, b) => b.events - a.events || (a.key < b.key ? -1 : 1));
}
