/**
 * behavior_explain_change's figures computed plainly from stored records: each visitor or session under its
 * first event's values, pageviews under their own; `verify` checks an answer's totals, named segments and the
 * additivity of each dimension against them.
 */
import assert from "node:assert/strict";
import type { StoredEvent } from "../../lib/store/records.ts";
import { countBy, humans } from "./expect.ts";

export type Window = { from: number; to: number };
export const DIMS: Record<string, (e: StoredEvent) => string | null> = {
  channel: (e) => e.channel,
  source: (e) => e.source,
  page: (e) => e.path,
  country: (e) => e.geo.country,
  device: (e) => e.device_type,
  browser: (e) => e.browser,
};
const name = (v: string | null) => v ?? "(none)";
export const firstOf = (evs: StoredEvent[]) =>
  evs.reduce((a, b) =>
    b.received_at < a.received_at || (b.received_at === a.received_at &&
        b.sequence_no < a.sequence_no)
      ? b
      : a
  );

interface Part {
  units: number;
  count: number;
}

/** Per dimension value: units and the metric's count in one window, computed plainly from the records. */
export function parts(events: StoredEvent[], w: Window, metric: string, dim: string, goal?: string) {
  const evs = humans(events, w);
  const out = new Map<string, Part>();
  const at = (v: string | null) => {
    const k = name(v);
    if (!out.has(k)) out.set(k, { units: 0, count: 0 });
    return out.get(k)!;
  };
  if (metric === "pageviews") {
    for (const e of evs.filter((e) => e.event_type === "$pageview")) at(DIMS[dim](e)).count++;
    return out;
  }
  const bySession = metric === "sessions" || metric === "bounce_rate";
  for (const unit of countBy(evs, (e) => bySession ? e.session_id : e.anonymous_id).values()) {
    const p = at(DIMS[dim](firstOf(unit)));
    p.units++;
    if (metric === "visitors" || metric === "sessions") p.count++;
    if (metric === "bounce_rate" && unit.filter((e) => e.event_type === "$pageview").length <= 1) p.count++;
    if (metric === "conversion_rate" && unit.some((e) => e.event_type === goal)) p.count++;
  }
  return out;
}

const isRate = (m: string) => m.endsWith("_rate");
const value = (m: string, p: Part) => isRate(m) ? (p.units ? p.count / p.units : null) : p.count;
const sum = (m: Map<string, Part>) =>
  [...m.values()].reduce((a, p) => ({ units: a.units + p.units, count: a.count + p.count }), {
    units: 0,
    count: 0,
  });

// deno-lint-ignore no-explicit-any
export type Answer = Record<string, any>;

const small = (n: number) => n > 0 && n < 5;

/**
 * Whether a rate's whole tells 1 to 4 units that did it (or did not) in either period: under a saved cohort
 * such a question is refused (rule 5).
 */
export function totalTells(
  events: StoredEvent[],
  now: Window,
  before: Window,
  m: string,
  goal?: string,
): boolean {
  if (!isRate(m)) return false;
  return [now, before].some((w) => {
    const t = sum(parts(events, w, m, "channel", goal));
    return small(t.count) || small(t.units - t.count);
  });
}

/** Checks an answer's totals, every named segment and the additivity of every dimension against the records. */
export function verify(a: Answer, events: StoredEvent[], now: Window, before: Window, goal?: string) {
  const m = a.metric;
  const eps = isRate(m) ? 2e-6 : 0;
  const close = (x: number | null, y: number | null, what: string) =>
    assert.ok(
      x === y || (x !== null && y !== null && Math.abs(x - y) <= eps),
      `${what}: ${x} vs ${y}`,
    );
  for (const d of a.dimensions) {
    const cur = parts(events, now, m, d.dimension, goal), prev = parts(events, before, m, d.dimension, goal);
    const tc = sum(cur), tp = sum(prev);
    close(a.total.value, value(m, tc), `${m} total`);
    close(a.total.previous, value(m, tp), `${m} previous total`);
    assert.equal(d.segments_total, new Set([...cur.keys(), ...prev.keys()]).size, d.dimension);
    for (const s of d.segments) {
      if (s.name === "(other)") continue;
      const c = cur.get(s.name) ?? { units: 0, count: 0 }, p = prev.get(s.name) ?? { units: 0, count: 0 };
      close(s.value, value(m, c), `${m} ${d.dimension} ${s.name} value`);
      close(s.previous, value(m, p), `${m} ${d.dimension} ${s.name} previous`);
      if (!isRate(m)) assert.equal(s.contribution, c.count - p.count, `${d.dimension} ${s.name}`);
      if (isRate(m)) assert.ok(Math.abs(s.mix + s.rate - s.contribution) <= eps);
    }
    const added = d.segments.reduce((n: number, s: Answer) => n + s.contribution, 0);
    const slack = isRate(m) ? 1e-5 : 0;
    assert.ok(Math.abs(added - a.total.difference) <= slack, `${m} ${d.dimension}: ${added} vs total`);
  }
}

/**
 * Per dimension value: the distinct visitors behind its figures in one window, those of the units placed
 * under it (visitors, or the visitors of the sessions) and those whose pageviews it counts.
 */
export function behind(events: StoredEvent[], w: Window, metric: string, dim: string) {
  const evs = humans(events, w);
  const out = new Map<string, { placed: Set<string>; viewers: Set<string> }>();
  const at = (v: string | null) => {
    const k = name(v);
    if (!out.has(k)) out.set(k, { placed: new Set(), viewers: new Set() });
    return out.get(k)!;
  };
  const bySession = !["visitors", "conversion_rate"].includes(metric);
  for (const unit of countBy(evs, (e) => bySession ? e.session_id : e.anonymous_id).values()) {
    const first = firstOf(unit);
    at(DIMS[dim](first)).placed.add(first.anonymous_id);
  }
  for (const e of evs.filter((e) => e.event_type === "$pageview")) {
    at(DIMS[dim](e)).viewers.add(e.anonymous_id);
  }
  return out;
}
