/**
 * The two property questions counted from property rollups (build.ts) of the rows a question takes: hours
 * the planner found inside the period, the scope's touchpoint and traffic kinds, the asked event type.
 *  - keys: per key, the events that carried it and their people's visitors (the union of its ANY rows' sets);
 *  - values of one key: per value the events and visitors of its rows; the null row of a group (hour,
 *    touchpoint, traffic kind, event type) is its own null row when the group carried the key, else the
 *    group's totals row (no event of it carried the key); the totals are the totals rows'.
 * Visitor counts are exact unions over every part's and the raw tail's sets (one mark per visitor number).
 */
import { encodeSet, forEachMember } from "../../parts/visitor_set.ts";
import { releaseViews } from "../rollup/let_go.ts";

const EMPTY = new Uint8Array(0);
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

/** Per name (a key, or a value; null: the null row): events and the rows holding visitors (table, row). */
export type Collected = Map<Name, { events: number; refs: number[] }>;
/** A key, a value, null (the null row) or TOTALS. */
export type Name = string | null | symbol;

/** Per key: the events that carried it (ANY rows) in the tables taken (of `eventType` when given). */
export function collectKeys(taken: Taken[], s: Scope, eventType: string | undefined): Collected {
  const byKey: Collected = new Map();
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
  return byKey;
}

/** The name of the totals among `collectValues`' groups (never a value). */
export const TOTALS: unique symbol = Symbol("totals");

/**
 * Per value of `key` (null included) and the totals (under TOTALS): the events of `eventType` in the
 * tables taken.
 */
export function collectValues(taken: Taken[], s: Scope, eventType: string, key: string): Collected {
  const groups: Collected = new Map();
  const group = (v: Name) => {
    let g = groups.get(v);
    if (!g) groups.set(v, g = { events: 0, refs: [] });
    return g;
  };
  const total = group(TOTALS);
  const addTo = (g: { events: number; refs: number[] }, ti: number, r: PropRollup, i: number) => {
    g.events += r.events[i];
    if (r.setAt[i + 1] > r.setAt[i]) g.refs.push(ti, i);
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
  return groups;
}

/**
 * A group's figures as kept for a period's parts: events, its count of distinct visitor numbers and the
 * numbers themselves as an encoded set (visitor_set.ts: 1-2 bytes a member, a quarter of an array's).
 */
export interface KeptGroup {
  events: number;
  visitors: number;
  set: Uint8Array;
}

/**
 * The collected groups' distinct members (one mark per visitor number serves every group; the sets' varints
 * decoded inline, as DistinctCounter does: this is the loop a cold answer spends its time in).
 */
export function keepGroups(c: Collected, taken: Taken[], space: number): Map<Name, KeptGroup> {
  let marks = new Int32Array(Math.max(1, space));
  let buf = new Uint32Array(1 << 16);
  const out = new Map<Name, KeptGroup>();
  let stamp = 0;
  for (const [name, g] of c) {
    stamp++;
    let n = 0;
    for (let p = 0; p < g.refs.length; p += 2) {
      const r = taken[g.refs[p]].l.r, row = g.refs[p + 1], sets = r.sets, end = r.setAt[row + 1];
      let prev = -1;
      for (let i = r.setAt[row]; i < end;) {
        let d = sets[i++];
        if (d >= 0x80) {
          d &= 0x7f;
          let shift = 7, x: number;
          do {
            x = sets[i++];
            d += (x & 0x7f) * 2 ** shift;
            shift += 7;
          } while (x & 0x80);
        }
        prev += d + 1;
        if (prev >= marks.length) {
          const grown = new Int32Array(Math.max(prev + 1, marks.length * 2));
          grown.set(marks);
          releaseViews([marks]);
          marks = grown;
        }
        if (marks[prev] !== stamp) {
          marks[prev] = stamp;
          if (n === buf.length) {
            const grown = new Uint32Array(buf.length * 2);
            grown.set(buf);
            releaseViews([buf]);
            buf = grown;
          }
          buf[n++] = prev;
        }
      }
    }
    out.set(name, { events: g.events, visitors: n, set: n ? encodeSet(buf.subarray(0, n)) : EMPTY });
  }
  // the marks (4 bytes a visitor number: ~19 MB at 10M events) and the scratch are this answer's alone: freed
  // now, not at V8's next full collection (encodeSet copies what it keeps)
  releaseViews([marks, buf]);
  return out;
}

/** Bytes a kept answer weighs. */
export const keptBytes = (k: Map<Name, KeptGroup>): number => {
  let n = 0;
  for (const [name, g] of k) {
    n += 80 + (typeof name === "string" ? name.length * 2 : 0) + g.set.byteLength;
  }
  return n;
};

/**
 * The parts' kept groups with the raw tail's added (exact: a tail visitor counts where the parts' members
 * lack it; the kept set of a group the tail touches is decoded into marks once): per name, events and
 * visitors. `space` bounds the visitor numbers.
 */
export function withTail(
  parts: Map<Name, KeptGroup>,
  tail: Collected,
  tailTaken: Taken[],
  space: number,
): Map<Name, { events: number; visitors: number }> {
  const out = new Map<Name, { events: number; visitors: number }>();
  for (const [name, g] of parts) out.set(name, { events: g.events, visitors: g.visitors });
  if (!tail.size) return out;
  const marks = new Int32Array(Math.max(1, space));
  let stamp = 0;
  for (const [name, g] of tail) {
    const kept = parts.get(name);
    stamp++;
    const s = stamp;
    if (kept) {
      forEachMember(kept.set, 0, kept.set.length, (v) => {
        if (v < marks.length) marks[v] = s;
      });
    }
    let added = 0;
    for (let p = 0; p < g.refs.length; p += 2) {
      const r = tailTaken[g.refs[p]].l.r, i = g.refs[p + 1];
      forEachMember(r.sets, r.setAt[i], r.setAt[i + 1], (v) => {
        if (v >= marks.length || marks[v] !== s) {
          if (v < marks.length) marks[v] = s;
          added++;
        }
      });
    }
    const x = out.get(name) ?? { events: 0, visitors: 0 };
    out.set(name, { events: x.events + g.events, visitors: x.visitors + added });
  }
  return out;
}

/** Keys with events and visitors, as the scan (sequence/property_keys.ts) sorts them. */
export function keysFrom(figures: Map<Name, { events: number; visitors: number }>): PropKey[] {
  return [...figures].map(([key, f]) => ({ key: key as string, events: f.events, visitors: f.visitors }))
    .sort((a, b) => b.events - a.events || (a.key < b.key ? -1 : 1));
}

/** One `prop:<key>` breakdown's answer: rows per value (null included) sorted and paged as the scan's, totals. */
export function valuesFrom(
  figures: Map<Name, { events: number; visitors: number }>,
  key: string,
  o: AggregateOptions,
): AggregateResult {
  const field = `prop:${key}`;
  const metricsOf = (f: { events: number; visitors: number }): MetricValues => {
    const m: MetricValues = {};
    for (const x of o.metrics) m[x] = x === "events" ? f.events : f.visitors;
    return m;
  };
  const rows: Row[] = [];
  for (const [v, f] of figures) {
    if (v !== TOTALS) rows.push({ key: { [field]: v as string | null }, metrics: metricsOf(f) });
  }
  const paged = sortAndPageRows(rows, field, o);
  return {
    totals: metricsOf(figures.get(TOTALS) ?? { events: 0, visitors: 0 }),
    rows: paged.rows,
    total_rows: paged.total_rows,
  };
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
