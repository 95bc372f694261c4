/**
 * What behavior_funnel, behavior_paths and behavior_retention should answer, computed from the generated
 * records with plain loops (UTC organizations only: days, Mondays and months by the UTC calendar). Written
 * apart from the engine and its reference so that a shared mistake cannot hide.
 */
import type { StoredEvent } from "../../lib/store/records.ts";
import { countBy, DAY } from "./expect.ts";

export interface Step {
  page?: string;
  event?: string;
  property?: string;
  value?: string | number | boolean;
}

const FEW = "fewer than 5";
const r4 = (x: number) => Math.round(x * 10000) / 10000;
const r1 = (x: number) => Math.round(x * 10) / 10;
const byTime = (a: StoredEvent, b: StoredEvent) =>
  a.received_at - b.received_at || a.sequence_no - b.sequence_no;

export function doesStep(e: StoredEvent, s: Step): boolean {
  if (s.page !== undefined) {
    if (e.event_type !== "$pageview") return false;
    const ok = s.page.endsWith("*") ? e.path.startsWith(s.page.slice(0, -1)) : e.path === s.page;
    if (!ok) return false;
  } else if (e.event_type !== s.event) return false;
  if (s.property === undefined) return true;
  const v = e.properties[s.property];
  return v !== undefined && v !== null && String(v) === String(s.value);
}

function medianOf(xs: number[]): number | null {
  if (!xs.length) return null;
  const a = [...xs].sort((x, y) => x - y);
  const h = Math.floor(a.length / 2);
  return a.length % 2 ? a[h] : (a[h - 1] + a[h]) / 2;
}

const SPLIT_OF: Record<string, (e: StoredEvent) => string | null> = {
  channel: (e) => e.channel,
  source: (e) => e.source,
  country: (e) => e.geo.country,
  device: (e) => e.device_type,
  browser: (e) => e.browser,
};

/** The funnel tool's answer (its steps and splits) for human events in [from, to). */
export function expectFunnel(
  events: StoredEvent[],
  w: { from: number; to: number },
  steps: Step[],
  windowMs: number,
  splitBy?: string,
) {
  const guarded = steps.some((s) => s.property !== undefined);
  // per visitor: the furthest-reaching attempt (earliest start among equals) and the times of its steps
  const outcomes: { times: number[]; start: StoredEvent }[] = [];
  const visitors = countBy(
    events.filter((e) => e.traffic === "human" && e.received_at >= w.from && e.received_at < w.to),
    (e) => e.anonymous_id,
  );
  for (const evs of visitors.values()) {
    evs.sort(byTime);
    let best: { times: number[]; start: StoredEvent } | null = null;
    evs.forEach((first, s) => {
      if (!doesStep(first, steps[0])) return;
      const times = [first.received_at];
      for (const e of evs.slice(s + 1)) {
        if (times.length === steps.length || e.received_at - first.received_at > windowMs) break;
        if (doesStep(e, steps[times.length])) times.push(e.received_at);
      }
      if (!best || times.length > best.times.length) best = { times, start: first };
    });
    if (best) outcomes.push(best);
  }
  const small = (n: number) => guarded && n > 0 && n < 5;
  const describe = (list: typeof outcomes) => {
    const reached = steps.map((_, i) => list.filter((o) => o.times.length > i).length);
    const out = steps.map((_, i) => {
      const n = reached[i], prev = i > 0 ? reached[i - 1] : 0;
      const hide = small(n), hidePrev = i > 0 && small(prev);
      const gaps = list.filter((o) => o.times.length > i && i > 0).map((o) => o.times[i] - o.times[i - 1]);
      const med = i > 0 && n >= 5 ? medianOf(gaps) : null;
      return {
        visitors: hide ? FEW : n,
        conversion_from_first: hide || reached[0] === 0 ? null : r4(n / reached[0]),
        conversion_from_previous: i === 0 || hide || hidePrev || prev === 0 ? null : r4(n / prev),
        dropped_off: i === 0 ? 0 : hide || hidePrev ? null : prev - n,
        drop_off_rate: i === 0 || hide || hidePrev || prev === 0 ? null : r4((prev - n) / prev),
        time_from_previous_median_s: med === null ? null : r1(med / 1000),
      };
    });
    const last = reached[reached.length - 1];
    const overall = small(last) || small(reached[0]) || reached[0] === 0 ? null : r4(last / reached[0]);
    return { steps: out, overall };
  };
  const splits: { name: string; visitors: number | string; overall: number | null; steps: unknown[] }[] = [];
  let splitsTotal = 0;
  if (splitBy) {
    const groups = countBy(outcomes, (o) => JSON.stringify(SPLIT_OF[splitBy](o.start)));
    splitsTotal = groups.size;
    const ranked = [...groups].map(([k, list]) => ({ value: JSON.parse(k) as string | null, list }))
      .sort((a, b) =>
        b.list.length - a.list.length || (a.value === null ? 1 : 0) - (b.value === null ? 1 : 0) ||
        (String(a.value) < String(b.value) ? -1 : String(a.value) > String(b.value) ? 1 : 0)
      );
    const named = ranked.slice(0, 10).map((g) => ({ name: g.value ?? "(none)", list: g.list }));
    if (ranked.length > 10) named.push({ name: "(other)", list: ranked.slice(10).flatMap((g) => g.list) });
    for (const g of named) {
      const d = describe(g.list);
      splits.push({
        name: g.name,
        visitors: small(g.list.length) ? FEW : g.list.length,
        overall: d.overall,
        steps: d.steps,
      });
    }
  }
  const whole = describe(outcomes);
  return { steps: whole.steps, overall: whole.overall, splits, splitsTotal };
}

/** The paths tool's paths and nearest steps, ranked by visitors, then visits, then the path's text. */
export function expectPaths(
  events: StoredEvent[],
  w: { from: number; to: number },
  anchor: Step,
  direction: "after" | "before",
  depth: number,
  includeEvents: boolean,
) {
  const name = (e: StoredEvent): string | null =>
    e.event_type === "$pageview"
      ? e.path
      : includeEvents && !e.event_type.startsWith("$")
      ? e.event_type
      : null;
  const inside = events.filter((e) =>
    e.traffic === "human" && e.received_at >= w.from && e.received_at < w.to
  );
  const sessions = countBy(inside, (e) => `${e.anonymous_id}/${e.session_id}`);
  const seqs = new Map<string, { visits: number; visitors: Set<string> }>();
  const nearest = new Map<string, { visits: number; visitors: Set<string> }>();
  const anchored = new Set<string>();
  let visits = 0;
  const add = (m: typeof seqs, k: string, v: string) => {
    if (!m.has(k)) m.set(k, { visits: 0, visitors: new Set() });
    m.get(k)!.visits++;
    m.get(k)!.visitors.add(v);
  };
  for (const evs of sessions.values()) {
    evs.sort(byTime);
    const at = evs.findIndex((e) => doesStep(e, anchor));
    if (at < 0) continue;
    visits++;
    anchored.add(evs[at].anonymous_id);
    const walk = direction === "after" ? evs.slice(at + 1) : evs.slice(0, at).reverse();
    const path: string[] = [];
    let last = name(evs[at]);
    for (const e of walk) {
      const n = name(e);
      if (n === null || n === last) continue;
      path.push(n);
      last = n;
      if (path.length === depth) break;
    }
    if (path.length < depth) path.push(direction === "after" ? "(exit)" : "(entry)");
    add(seqs, JSON.stringify(path), evs[at].anonymous_id);
    add(nearest, path[0], evs[at].anonymous_id);
  }
  // ranked by visitors, then visits, then the text the engine ranks by: its end marker is "(end)"
  const ranked = (m: typeof seqs, engineKey: (k: string) => string) =>
    [...m].map(([k, x]) => ({ k, key: engineKey(k), visits: x.visits, visitors: x.visitors.size }))
      .sort((a, b) => b.visitors - a.visitors || b.visits - a.visits || (a.key < b.key ? -1 : 1));
  const rankPaths = ranked(
    seqs,
    (k) => k.replaceAll('"(exit)"', '"(end)"').replaceAll('"(entry)"', '"(end)"'),
  );
  const nearestRanked = ranked(nearest, (k) => (k === "(exit)" || k === "(entry)" ? "(end)" : k));
  const share = (n: number) => (anchored.size ? r4(n / anchored.size) : null);
  return {
    anchorVisitors: anchored.size,
    anchorVisits: visits,
    paths: rankPaths.map((x) => ({
      steps: JSON.parse(x.k) as string[],
      visitors: x.visitors,
      visits: x.visits,
      share: share(x.visitors),
    })),
    nearest: nearestRanked.map((x) => ({
      name: x.k,
      visitors: x.visitors,
      visits: x.visits,
      share: share(x.visitors),
    })),
  };
}

/** UTC calendar labels of an instant: day "2026-11-20", week (its Monday) "2026-11-16", month "2026-11". */
export function utcLabel(t: number, interval: "day" | "week" | "month"): string {
  const d = new Date(t);
  if (interval === "month") return d.toISOString().slice(0, 7);
  if (interval === "day") return d.toISOString().slice(0, 10);
  const monday = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) -
    ((d.getUTCDay() + 6) % 7) * DAY;
  return new Date(monday).toISOString().slice(0, 10);
}

/** The retention tool's cohorts and average curve. */
export function expectRetention(
  events: StoredEvent[],
  w: { from: number; to: number },
  interval: "day" | "week" | "month",
  cohortEvent?: string,
  returnEvent?: string,
) {
  const labels: string[] = [];
  for (let t = w.from; t < w.to; t += 3_600_000) {
    const l = utcLabel(t, interval);
    if (labels[labels.length - 1] !== l) labels.push(l);
  }
  const inside = events.filter((e) =>
    e.traffic === "human" && e.received_at >= w.from && e.received_at < w.to
  );
  const cohorts = labels.map((label, i) => ({
    label,
    visitors: 0,
    returned: new Array(labels.length - i).fill(0),
  }));
  for (const evs of countBy(inside, (e) => e.anonymous_id).values()) {
    const entering = evs.filter((e) => cohortEvent === undefined || e.event_type === cohortEvent);
    if (!entering.length) continue;
    const at = Math.min(...entering.map((e) => e.received_at));
    const first = labels.indexOf(utcLabel(at, interval));
    cohorts[first].visitors++;
    const back = new Set(
      evs.filter((e) => e.received_at >= at && (returnEvent === undefined || e.event_type === returnEvent))
        .map((e) => labels.indexOf(utcLabel(e.received_at, interval)) - first),
    );
    for (const d of back) cohorts[first].returned[d]++;
  }
  const curve = labels.map((_, d) => {
    const used = cohorts.filter((c) => c.visitors >= 5 && c.returned.length > d);
    const n = used.reduce((s, c) => s + c.visitors, 0);
    return n ? r4(used.reduce((s, c) => s + c.returned[d], 0) / n) : null;
  });
  return {
    cohorts: cohorts.map((c) => {
      const shown = c.visitors === 0 || c.visitors >= 5;
      return {
        cohort: c.label,
        visitors: shown ? c.visitors : FEW,
        returned: shown && c.visitors > 0 ? c.returned : null,
        rates: shown && c.visitors > 0 ? c.returned.map((x) => r4(x / c.visitors)) : null,
      };
    }),
    curve,
  };
}
