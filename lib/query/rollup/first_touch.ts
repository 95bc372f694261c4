/**
 * Explain-a-change's units (visitors or sessions) placed under the values of their first event in scope,
 * from the session facts' first events (rollups v9, session_facts.ts) without events: each fact row keeps
 * its first event in (receive time, device time, number) order, the order the scan takes a unit's first
 * event in (attribution.ts), with that event's channel, source, page, country, device type and browser. A
 * unit's first event is the earliest of its rows' first events in scope (a session's rows are joined across
 * parts by visitor number and id hashes, as sessions.ts joins them); a session bounced when its rows in
 * scope hold at most one pageview; a visitor converted when the goal event type's visitor sets in scope
 * hold them. Pageviews per value come from the hourly rows (the caller). Exact, as the scan counts them:
 * tests/lib/query/rollup_first_touch_property_test.ts.
 */
import type { AttributionOptions, AttributionResult, AttributionRow } from "../sequence_types.ts";
import type { Scope } from "../types.ts";
import { wholeHourOffsets } from "./answer.ts";
import { attributionJoin } from "./attribution.ts";
import { hourMask } from "./sessions.ts";
import { FIRST_FIELDS, HOUR, type SessionFacts } from "./session_facts.ts";
import type { FirstRows } from "./store.ts";

const FIELD_AT = new Map<string, number>(FIRST_FIELDS.map((f, i) => [f, i]));

/**
 * Why the facts' first events cannot answer this attribution question, or null when they can (the parts'
 * hours are checked beside: hoursInside).
 */
export function firstTouchBlocker(s: Scope, o: AttributionOptions): string | null {
  if (s.cohort) return "a cohort";
  if (s.filters?.length) return "a filter";
  // (the distinct visitors behind each value's pageviews are asked only under a cohort)
  if (o.visitors) return "distinct visitors per value";
  const field = o.fields.find((f) => !FIELD_AT.has(f));
  if (field) return `the field ${field}`;
  if (o.goal) {
    // the goal event type's visitor sets are people's: sessions converting would need the events' sessions
    if (o.unit !== "visitor") return "a goal by session";
    if (o.goal.filters?.length) return "a goal with conditions";
    const traffic = s.traffic ?? ["human"];
    if (traffic.length !== 1 || traffic[0] !== "human") return "a goal beside traffic other than people";
  }
  if (!wholeHourOffsets(s.timezone, s.from, s.to)) return "a timezone cutting hours";
  return null;
}

/** A part's (or the raw tail's) first-event rows, their id hashes (by session), what their indices name. */
export interface FirstUnit {
  rows: FirstRows;
  ids: { h1: Uint32Array; h2: Uint32Array } | null;
  tps: (string | null)[];
  traffics: (string | null)[];
}

/** Pageviews per value of one field in scope (the hourly rows), and the total. */
export interface PageviewsOf {
  total: number;
  by: Map<string, Map<string | null, number>>;
}

/**
 * The answer from the units' fact rows in scope (`inside[i]`: unit i's hours in the period), `goal` the
 * visitor numbers with the goal event in scope (null without one).
 */
export function firstTouch(
  units: FirstUnit[],
  inside: Set<number>[],
  s: Scope,
  o: AttributionOptions,
  goal: Uint8Array | null,
  pageviews: PageviewsOf,
): AttributionResult {
  const traffic = new Set(s.traffic ?? ["human"]);
  const byVisitor = o.unit === "visitor";
  // each fact row's unit: its visitor number, or its joined session
  let space = 0;
  const slots: Int32Array[] = [];
  if (byVisitor) {
    for (let ri = 0; ri < units.length; ri++) {
      const f = units[ri].rows, slot = new Int32Array(f.n).fill(-1);
      const tpOk = Uint8Array.from(units[ri].tps, (tp) => (!s.touchpoint || tp === s.touchpoint ? 1 : 0));
      const trOk = Uint8Array.from(units[ri].traffics, (t) => (t !== null && traffic.has(t) ? 1 : 0));
      const { base, inHour } = hourMask(inside[ri]);
      for (let k = 0; k < f.n; k++) {
        const ho = f.hour[k] - base;
        if (!(ho >= 0 && ho < inHour.length && inHour[ho]) || !tpOk[f.tp[k]] || !trOk[f.traffic[k]]) continue;
        slot[k] = f.vis[k];
        if (f.vis[k] >= space) space = f.vis[k] + 1;
      }
      slots.push(slot);
    }
  } else {
    // (the join reads a row's session, hour, touchpoint and traffic kind: those of the facts)
    const asFacts = units.map((u) => ({
      facts: { ...u.rows, h1: u.ids!.h1, h2: u.ids!.h2 } as unknown as SessionFacts,
      tps: u.tps,
      traffics: u.traffics,
    }));
    const join = attributionJoin(asFacts, inside, s.touchpoint, traffic, 0, true);
    slots.push(...join.slots);
    space = join.n;
  }
  // each unit's first event (receive time, device time, number) and where it is (fact unit, row)
  const t = new Float64Array(space).fill(Infinity),
    dt = new Float64Array(space),
    seq = new Float64Array(space);
  const at = new Int32Array(space).fill(-1), row = new Int32Array(space);
  const pv = byVisitor ? null : new Uint32Array(space);
  for (let ri = 0; ri < units.length; ri++) {
    const f = units[ri].rows, fx = f, slot = slots[ri];
    for (let k = 0; k < f.n; k++) {
      const u = slot[k];
      if (u < 0) continue;
      if (pv) pv[u] += f.pv[k];
      const t0 = f.hour[k] * HOUR + f.first[k];
      // strictly earlier wins, as the scan orders a unit's events
      if (t0 < t[u] || (t0 === t[u] && (fx.dt[k] < dt[u] || (fx.dt[k] === dt[u] && fx.seq[k] < seq[u])))) {
        t[u] = t0;
        dt[u] = fx.dt[k];
        seq[u] = fx.seq[k];
        at[u] = ri;
        row[u] = k;
      }
    }
  }
  // per field: its values' rows, and per fact unit its codes' rows (made when first met)
  const fieldAt = o.fields.map((f) => FIELD_AT.get(f)!);
  const rows = o.fields.map(() => new Map<string | null, AttributionRow>());
  const rowOf = (k: number, value: string | null) => {
    let r = rows[k].get(value);
    if (!r) rows[k].set(value, r = { value, units: 0, pageviews: 0, bounced: 0, converted: 0 });
    return r;
  };
  const tables = units.map((u) =>
    fieldAt.map((x, k) => u.rows.values[x].map((value) => () => rowOf(k, value)))
  );
  const resolved = units.map((u) =>
    fieldAt.map((x) => new Array<AttributionRow | undefined>(u.rows.values[x].length))
  );
  const out: AttributionResult = { units: 0, pageviews: pageviews.total, bounced: 0, converted: 0, by: {} };
  for (let u = 0; u < space; u++) {
    const ri = at[u];
    if (ri < 0) continue;
    const bounced = pv && pv[u] <= 1 ? 1 : 0;
    const converted = goal && byVisitor && goal[u] ? 1 : 0;
    out.units++;
    out.bounced += bounced;
    out.converted += converted;
    const fx = units[ri].rows, k0 = row[u];
    for (let k = 0; k < fieldAt.length; k++) {
      const code = fx.codes[fieldAt[k]][k0];
      const r = resolved[ri][k][code] ??= tables[ri][k][code]();
      r.units++;
      r.bounced += bounced;
      r.converted += converted;
    }
  }
  o.fields.forEach((field, k) => {
    for (const [value, n] of pageviews.by.get(field) ?? []) rowOf(k, value).pageviews += n;
    out.by[field] = [...rows[k].values()].filter((r) => r.units > 0 || r.pageviews > 0);
  });
  return out;
}
