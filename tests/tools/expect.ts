/** Independent computations over generated records, written plainly so a tool bug cannot hide in shared code. */
import type { StoredEvent } from "../../lib/store/records.ts";

export const DAY = 86_400_000;
/** last_7_days at NOW (2026-11-20T12:00Z) in UTC, and the window before it. */
export const LAST7 = { from: Date.parse("2026-11-14T00:00:00Z"), to: Date.parse("2026-11-20T12:00:00Z") + 1 };
export const PREV7 = { from: LAST7.from - 7 * DAY, to: LAST7.from - 7 * DAY + (LAST7.to - LAST7.from) };

export const within = (w: { from: number; to: number }) => (e: StoredEvent) =>
  e.received_at >= w.from && e.received_at < w.to;

export const humans = (events: StoredEvent[], w: { from: number; to: number }) =>
  events.filter((e) => e.traffic === "human" && within(w)(e));

export const distinct = <T>(xs: T[]) => new Set(xs).size;

export function countBy<T>(xs: T[], key: (x: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const x of xs) {
    const k = key(x);
    const list = m.get(k) ?? [];
    list.push(x);
    m.set(k, list);
  }
  return m;
}

export function sessionsOf(events: StoredEvent[]) {
  return [...countBy(events, (e) => e.session_id).values()].map((evs) => {
    const times = evs.map((e) => e.received_at);
    return {
      visitor: evs[0].anonymous_id,
      start: Math.min(...times),
      end: Math.max(...times),
      pageviews: evs.filter((e) => e.event_type === "$pageview").length,
      interactions: evs.filter((e) =>
        !["$pageview", "$pageleave", "$web_vitals", "$identify"].includes(e.event_type)
      )
        .length,
    };
  });
}
