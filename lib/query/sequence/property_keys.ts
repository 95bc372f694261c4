/**
 * Property names seen on events in scope, with event and (human) visitor counts. The rest column's entries are
 * parsed when a row in scope first uses one (a question about one event type never parses another's names:
 * 680 events of 90 names of 190 characters made every property question scan 11.6 MB of JSON), and the
 * loop gives the event loop a turn (`turn`) every WORK_A_TURN names.
 */
import type { Turn } from "../../turns.ts";
import { eventView } from "../columns/views.ts";
import type { Ctx } from "../scan/ctx.ts";
import { matchMasks } from "../scan/filters.ts";
import { visitorOrder } from "../scan/visitor_order.ts";

const WORK_A_TURN = 16_384;

export async function propertyKeys(
  c: Ctx,
  eventType: string | undefined,
  turn: Turn,
): Promise<{ key: string; events: number; visitors: number }[]> {
  const masks = matchMasks(c, c.scope.filters);
  const stats = new Map<string, { events: number; visitors: number; last: number }>();
  const { rb, rk } = visitorOrder(c);
  const perBatch = c.batches.map((e) => {
    const own = Object.keys(e.b.cols).filter((k) => k.startsWith("p:")).map((k) => ({
      key: k.slice(2),
      codes: (e.b.cols[k] as { codes: ArrayLike<number> }).codes,
    }));
    const rest = eventView(e, "p*" as never);
    const restKeys: (string[] | undefined)[] = [[]];
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
  let work = 0;
  for (let p = 0; p < rb.length; p++) {
    const b = rb[p], e = c.batches[b], pb = perBatch[b], m = masks[b];
    for (let i = e.runStart[rk[p]]; i < e.runStart[rk[p] + 1]; i++) {
      if (++work >= WORK_A_TURN) {
        work = 0;
        await turn();
      }
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
      const rc = pb.rest.codes.length ? pb.rest.codes[i] : 0;
      if (rc) {
        let ks = pb.restKeys[rc];
        if (ks === undefined) {
          const json = pb.rest.values[rc];
          pb.restKeys[rc] = ks = json === null ? [] : Object.keys(JSON.parse(json));
          work += ks.length;
        }
        for (const k of ks) note(k);
        work += ks.length;
      }
    }
  }
  return [...stats].map(([key, s]) => ({ key, events: s.events, visitors: s.visitors }))
    .sort((a, b) => b.events - a.events || (a.key < b.key ? -1 : 1));
}
