/**
 * The two property questions counted from property rollups (build.ts) of the rows a question takes: hours
 * the planner found inside the period, the scope's touchpoint and traffic kinds, the asked event type.
 *  - keys: per key, the events that carried it and their people's visitors (the union of its ANY rows' sets);
 *  - values of one key: per value the events and visitors of its rows; the null row of a group (hour,
 *    touchpoint, traffic kind, event type) is its own null row when the group carried the key, else the
 *    group's totals row (no event of it carried the key); the totals are the totals rows'.
 * Visitor counts are exact unions over every part's and the raw tail's sets (one mark per visitor number).
 */
import { DistinctCounter } from "../../parts/visitor_set.ts";
import type { AggregateOptions, AggregateResult, MetricValues, Row, Scope } from "../types.ts";
import { ANY, type PropRollup, TOTAL_KEY, WHOLE } from "./build.ts";

/** A table as questions read it: rows by (event type, key) ranges. */
export interface LoadedProp {
  r: PropRollup;
  /** et code × 65,536 + key code → [first row, end) */
  ranges: Map<number, [number, number]>;
  /** the (et, key) pairs whose values the table does not keep */
  scanned: Set<number>;
  /** the pairs whose values it keeps merged over its hours */
  merged: Set<number>;
}

export function loadedProp(r: PropRollup): LoadedProp {
  const ranges = new Map<number, [number, number]>();
  for (let i = 0; i < r.n;) {
    const et = r.et[i], k = r.key[i];
    let j = i + 1;
    while (j < r.n && r.et[j] === et && r.key[j] === k) j++;
    ranges.set(et * 65_536 + k, [i, j]);
    i = j;
  }
  const scanned = new Set<number>();
  for (let p = 0; p < r.scan.length; p += 2) scanned.add(r.scan[p] * 65_536 + r.scan[p + 1]);
  const merged = new Set<number>();
  for (let p = 0; p < r.whole.length; p += 2) merged.add(r.whole[p] * 65_536 + r.whole[p + 1]);
  return { r, ranges, scanned, merged };
}

/**
 * Whether a table keeps the values of `key` for `eventType` as a question needs them (false: the part is read
 * for them): not past the cap, or merged over its hours and the question takes every hour (`whole`).
 */
export function keepsValues(l: LoadedProp, eventType: string, key: string, whole: boolean): boolean {
  const et = l.r.ets.indexOf(eventType), k = l.r.keys.indexOf(key);
  if (et < 0 || k < 0) return true;
  const pair = et * 65_536 + k;
  return !l.scanned.has(pair) && (whole || !l.merged.has(pair));
}

/**
 * A table taken by a question: `hours` inside the period (null: every hour of it); `skip`: keys whose rows
 * another table (built from the part for `only` those keys) gives.
 */
export interface Taken {
  l: LoadedProp;
  hours: Set<number> | null;
  skip?: Set<string>;
  /** a table built for these keys only: it gives their rows, never the totals */
  only?: Set<string>;
}

/** The rows of one table a question may take: a verdict per touchpoint, traffic kind and event type code. */
function selector(t: Taken, s: Scope, eventType: string | undefined) {
  const r = t.l.r;
  const traffic = new Set<string | null>(s.traffic ?? ["human"]);
  const tpOk = Uint8Array.from(r.tps, (x) => (!s.touchpoint || x === s.touchpoint ? 1 : 0));
  const trOk = Uint8Array.from(r.trs, (x) => (traffic.has(x) ? 1 : 0));
  const ets = eventType === undefined
    ? r.ets.map((_, c) => c)
    : [r.ets.indexOf(eventType)].filter((c) => c >= 0);
  const hours = t.hours;
  // a row merged over the part's hours is read only when the question takes every hour (keepsValues)
  const ok = (i: number) =>
    tpOk[r.tp[i]] === 1 && trOk[r.tr[i]] === 1 && (!hours || r.hour[i] === WHOLE || hours.has(r.hour[i]));
  return { r, ets, ok };
}

export interface PropKey {
  key: string;
  events: number;
  visitors: number;
}

/** Keys carried by events in scope (of `eventType` when given), as the scan (sequence/property_keys.ts) sorts them. */
export function keysAnswer(
  taken: Taken[],
  s: Scope,
  eventType: string | undefined,
  space: number,
): PropKey[] {
  const byKey = new Map<string, { events: number; refs: number[] }>();
  taken.forEach((t, ti) => {
    if (t.only) return;
    const { r, ets, ok } = selector(t, s, eventType);
    for (const et of ets) {
      for (let k = 0; k < r.keys.length; k++) {
        const range = t.l.ranges.get(et * 65_536 + k);
        if (!range) continue;
        let g: { events: number; refs: number[] } | undefined;
        // ANY rows sort first in a key's range
        for (let i = range[0]; i < range[1] && r.value[i] === ANY; i++) {
          if (!ok(i)) continue;
          if (!g) {
            g = byKey.get(r.keys[k]);
            if (!g) byKey.set(r.keys[k], g = { events: 0, refs: [] });
          }
          g.events += r.events[i];
          if (r.setAt[i + 1] > r.setAt[i]) g.refs.push(ti, i);
        }
      }
    }
  });
  const counter = new DistinctCounter(space);
  const out: PropKey[] = [];
  for (const [key, g] of byKey) {
    out.push({ key, events: g.events, visitors: union(counter, taken, g.refs) });
  }
  return out.sort((a, b) => b.events - a.events || (a.key < b.key ? -1 : 1));
}

function union(counter: DistinctCounter, taken: Taken[], refs: number[]): number {
  counter.next();
  for (let p = 0; p < refs.length; p += 2) {
    const r = taken[refs[p]].l.r, i = refs[p + 1];
    counter.addEncoded(r.sets, r.setAt[i], r.setAt[i + 1]);
  }
  return counter.count;
}

/**
 * One breakdown by `prop:<key>` with events and/or visitors, of events of `eventType`: rows per value (null
 * included), sorted and paged as the scan's (order.ts), and the totals.
 */
export function valuesAnswer(
  taken: Taken[],
  s: Scope,
  eventType: string,
  key: string,
  o: AggregateOptions,
  space: number,
): AggregateResult {
  const groups = new Map<string | null, { events: number; refs: number[] }>();
  const total = { events: 0, refs: [] as number[] };
  const addTo = (g: { events: number; refs: number[] }, ti: number, r: PropRollup, i: number) => {
    g.events += r.events[i];
    if (r.setAt[i + 1] > r.setAt[i]) g.refs.push(ti, i);
  };
  const group = (v: string | null) => {
    let g = groups.get(v);
    if (!g) groups.set(v, g = { events: 0, refs: [] });
    return g;
  };
  taken.forEach((t, ti) => {
    if (t.only && !t.only.has(key)) return;
    const { r, ets, ok } = selector(t, s, eventType);
    if (!ets.length) return;
    const et = ets[0], k = t.skip?.has(key) ? -1 : r.keys.indexOf(key);
    if (k < 0 && t.skip?.has(key)) {
      // the built table of this part gives the key's rows and null rows; this one only the totals
      const totals = t.l.ranges.get(et * 65_536 + TOTAL_KEY);
      if (totals) { for (let i = totals[0]; i < totals[1]; i++) if (ok(i)) addTo(total, ti, r, i); }
      return;
    }
    const carried = new Set<number>(); // groups (hour, touchpoint, traffic) that carried the key
    const cell = (i: number) => (r.hour[i] * r.tps.length + r.tp[i]) * r.trs.length + r.tr[i];
    const range = k < 0 ? undefined : t.l.ranges.get(et * 65_536 + k);
    if (range) {
      for (let i = range[0]; i < range[1]; i++) {
        if (!ok(i)) continue;
        if (r.value[i] === ANY) carried.add(cell(i));
        else addTo(group(r.values[r.value[i]]), ti, r, i);
      }
    }
    const totals = t.l.ranges.get(et * 65_536 + TOTAL_KEY);
    if (!totals) return;
    for (let i = totals[0]; i < totals[1]; i++) {
      if (!ok(i)) continue;
      if (!t.only) addTo(total, ti, r, i);
      if (!carried.has(cell(i))) addTo(group(null), ti, r, i);
    }
  });
  const counter = new DistinctCounter(space);
  const field = `prop:${key}`;
  const metricsOf = (g: { events: number; refs: number[] }): MetricValues => {
    const m: MetricValues = {};
    for (const x of o.metrics) m[x] = x === "events" ? g.events : union(counter, taken, g.refs);
    return m;
  };
  const rows: Row[] = [];
  for (const [v, g] of groups) rows.push({ key: { [field]: v }, metrics: metricsOf(g) });
  const paged = sortAndPageRows(rows, field, o);
  return { totals: metricsOf(total), rows: paged.rows, total_rows: paged.total_rows };
}

/**
 * order.ts's sortAndPage for rows of one key field, with the same order (by the metric, nulls last, ties by
 * the key's JSON; or by key), its keys' JSON kept in an array instead of a Map: a key with 100k values (a
 * duration in ms) spent most of its time there.
 */
function sortAndPageRows(
  rows: Row[],
  field: string,
  o: AggregateOptions,
): { rows: Row[]; total_rows: number } {
  const by = o.sort?.by ?? o.metrics[0];
  const desc = o.sort?.desc ?? (by !== "key");
  const json = rows.map((r) => JSON.stringify([r.key[field]]));
  const metric = by === "key" ? null : rows.map((r) => r.metrics[by] ?? null);
  const order = Array.from(rows, (_, i) => i).sort((a, b) => {
    if (metric) {
      const x = metric[a], y = metric[b];
      if (x !== y) {
        if (x === null) return 1;
        if (y === null) return -1;
        return desc ? y - x : x - y;
      }
    }
    const ka = json[a], kb = json[b];
    const c = ka < kb ? -1 : ka > kb ? 1 : 0;
    return by === "key" && desc ? -c : c;
  });
  const offset = o.offset ?? 0;
  const end = o.limit === undefined ? undefined : offset + o.limit;
  return { rows: order.slice(offset, end).map((i) => rows[i]), total_rows: rows.length };
}
