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
import { lastAtMost } from "../sorted.ts";
import { type FirstRows, pickFirstRows, pickRows } from "./store.ts";
import { releaseViews } from "./let_go.ts";
import { hold } from "../../working_memory.ts";

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
  /** the visitor numbers counted (one pass of several: rows past them are left out), every value's row kept */
  range: VisitorRange | null = null,
): AttributionResult {
  const traffic = new Set(s.traffic ?? ["human"]);
  const byVisitor = o.unit === "visitor";
  const lo = range?.lo ?? 0, hi = range?.hi ?? Infinity;
  // each fact row's unit: its visitor number (less `lo`), or its joined session
  let space = 0;
  const slots: Int32Array[] = [];
  if (byVisitor) {
    for (let ri = 0; ri < units.length; ri++) {
      const f = units[ri].rows, slot = new Int32Array(f.n).fill(-1);
      const tpOk = Uint8Array.from(units[ri].tps, (tp) => (!s.touchpoint || tp === s.touchpoint ? 1 : 0));
      const trOk = Uint8Array.from(units[ri].traffics, (t) => (t !== null && traffic.has(t) ? 1 : 0));
      space = Math.max(space, visitorSlots(f, slot, tpOk, trOk, hourMask(inside[ri]), lo, hi));
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
  // each unit's first event: its receive time and its row (numbered across the fact units, `base[ri] + k`);
  // device time and number are read from that row on a tie (12 bytes a unit where the three keys side by
  // side and the row twice took 40: 40 MB a question at 1M visitors, made and dropped each cold ask)
  const base = new Int32Array(units.length + 1);
  for (let ri = 0; ri < units.length; ri++) base[ri + 1] = base[ri] + units[ri].rows.n;
  const first: Firsts = {
    t: new Float64Array(space).fill(Infinity),
    row: new Int32Array(space).fill(-1),
    pv: byVisitor ? null : new Uint32Array(space),
  };
  // (this question's own while it answers: lib/working_memory.ts)
  hold([...slots, first.t, first.row, first.pv]);
  for (let ri = 0; ri < units.length; ri++) firstsOf(units, base, ri, slots[ri], first);
  const pv = first.pv, firstRow = first.row;
  const out: AttributionResult = { units: 0, pageviews: pageviews.total, bounced: 0, converted: 0, by: {} };
  for (let u = 0; u < space; u++) {
    if (firstRow[u] < 0) continue;
    out.units++;
    if (pv && pv[u] <= 1) out.bounced++;
    if (goal && byVisitor && goal[u + lo]) out.converted++;
  }
  // per field: its values numbered, each fact unit's codes mapped to them, then the units counted per value
  o.fields.forEach((field) => {
    const x = FIELD_AT.get(field)!;
    const ids = new Map<string | null, number>(), values: (string | null)[] = [];
    const idOf = (value: string | null) => {
      let g = ids.get(value);
      if (g === undefined) ids.set(value, g = values.push(value) - 1);
      return g;
    };
    const maps = units.map((un) => Int32Array.from(un.rows.values[x], idOf));
    const codes = units.map((un) => un.rows.codes[x]);
    for (const [value] of pageviews.by.get(field) ?? []) idOf(value);
    const n = values.length;
    const placed = new Int32Array(n), bounced = new Int32Array(n), converted = new Int32Array(n);
    // each unit once, at its first row: the rows in scope walked fact unit by fact unit
    for (let ri = 0; ri < units.length; ri++) {
      const slot = slots[ri], map = maps[ri], code = codes[ri], b = base[ri];
      for (let k = 0, m = slot.length; k < m; k++) {
        const u = slot[k];
        if (u < 0 || firstRow[u] !== b + k) continue;
        const g = map[code[k]];
        placed[g]++;
        if (pv && pv[u] <= 1) bounced[g]++;
        if (goal && byVisitor && goal[u + lo]) converted[g]++;
      }
    }
    const pvOf = pageviews.by.get(field);
    const rows: AttributionRow[] = [];
    for (let g = 0; g < n; g++) {
      const views = pvOf?.get(values[g]) ?? 0;
      if (!placed[g] && !views && !range) continue;
      rows.push({
        value: values[g],
        units: placed[g],
        pageviews: views,
        bounced: bounced[g],
        converted: converted[g],
      });
    }
    out.by[field] = rows;
  });
  // arrays by unit and row, this question's alone: freed now, not at V8's next full collection (at 10M
  // events ~12 MB a 7-day question, left dead while the tool asks its previous period)
  releaseViews([...slots, first.t, first.row, first.pv]);
  return out;
}

/**
 * Frees a unit's rows and id hashes read for one question (decoded in place: views on their inflated
 * section): ~25 MB a 7-day period at 10M events, which waited dead for V8's next full collection while the
 * previous period's were read (one engine at 10M: explain-a-change's first ask made the largest rise).
 * Not for a unit whose arrays another holds (the raw tail's facts).
 */
export function releaseFirstUnit(u: FirstUnit): void {
  const r = u.rows;
  releaseViews([
    r.vis,
    r.hour,
    r.tp,
    r.traffic,
    r.pv,
    r.first,
    r.dt,
    r.seq,
    ...r.codes,
    u.ids?.h1,
    u.ids?.h2,
  ]);
}

/** Each unit's first event so far: its receive time, its row (`base[ri] + k`; -1: none yet), a session's pageviews. */
interface Firsts {
  t: Float64Array;
  row: Int32Array;
  pv: Uint32Array | null;
}

/** Takes fact unit `ri`'s rows in scope (`slot`: each row's unit) into the units' first events. */
function firstsOf(units: FirstUnit[], base: Int32Array, ri: number, slot: Int32Array, x: Firsts) {
  // (every array a local: the hot loop's accesses are typed-array loads)
  const f = units[ri].rows, b = base[ri];
  const hour = f.hour, firstT = f.first, fDt = f.dt, fSeq = f.seq, fPv = f.pv;
  const t = x.t, row = x.row, pv = x.pv;
  for (let k = 0, n = f.n; k < n; k++) {
    const u = slot[k];
    if (u < 0) continue;
    if (pv !== null) pv[u] += fPv[k];
    const t0 = hour[k] * HOUR + firstT[k], was = t[u];
    // strictly earlier wins, as the scan orders a unit's events: on equal receive times the device time,
    // then the number, of the row held so far
    if (t0 > was) continue;
    if (t0 === was) {
      // the fact unit holding the row kept so far (`base`: each unit's first row, then the rows' count)
      const at = row[u], hi = lastAtMost(base, at, base.length - 1);
      const g = units[hi].rows, j = at - base[hi];
      if (!(fDt[k] < g.dt[j] || (fDt[k] === g.dt[j] && fSeq[k] < g.seq[j]))) continue;
    }
    t[u] = t0;
    row[u] = b + k;
  }
}

/**
 * Each row in scope's visitor number less `lo` into `slot` (-1 else, and for numbers outside [lo, hi));
 * answers a bound on those.
 */
function visitorSlots(
  f: FirstRows,
  slot: Int32Array,
  tpOk: Uint8Array,
  trOk: Uint8Array,
  mask: { base: number; inHour: Uint8Array },
  lo: number,
  hi: number,
): number {
  const hour = f.hour, tp = f.tp, tr = f.traffic, vis = f.vis, { base, inHour } = mask, hours = inHour.length;
  let space = 0;
  for (let k = 0, n = f.n; k < n; k++) {
    const ho = hour[k] - base;
    if (!(ho >= 0 && ho < hours && inHour[ho]) || !tpOk[tp[k]] || !trOk[tr[k]]) continue;
    if (vis[k] < lo || vis[k] >= hi) continue;
    const u = vis[k] - lo;
    slot[k] = u;
    if (u >= space) space = u + 1;
  }
  return space;
}

/** Visitor numbers [lo, hi): one pass's (explain-a-change over a period too large for one). */
export interface VisitorRange {
  lo: number;
  hi: number;
}

/**
 * A unit's rows whose visitor numbers are in the range, in new buffers (the unit's own are the caller's to
 * let go). A visitor's sessions all carry its number, so a pass has whole sessions.
 */
export function rowsInRange(u: FirstUnit, range: VisitorRange): FirstUnit {
  const vis = u.rows.vis, at: number[] = [];
  for (let k = 0; k < u.rows.n; k++) if (vis[k] >= range.lo && vis[k] < range.hi) at.push(k);
  const order = Uint32Array.from(at);
  return {
    rows: pickFirstRows(u.rows, order),
    ids: u.ids ? { h1: pickRows(u.ids.h1, order), h2: pickRows(u.ids.h2, order) } : null,
    tps: u.tps,
    traffics: u.traffics,
  };
}

/**
 * The answers of passes over disjoint visitor ranges as one: units, bounces and conversions added per value
 * (a unit is in one range), pageviews the hourly rows' (every pass gives the same), values neither placed nor
 * viewed left out as a single pass leaves them.
 */
export function passesAdded(passes: AttributionResult[]): AttributionResult {
  const out: AttributionResult = {
    units: 0,
    pageviews: passes[0].pageviews,
    bounced: 0,
    converted: 0,
    by: {},
  };
  const byField = new Map<string, Map<string | null, AttributionRow>>();
  for (const a of passes) {
    out.units += a.units;
    out.bounced += a.bounced;
    out.converted += a.converted;
    for (const [field, rows] of Object.entries(a.by)) {
      let m = byField.get(field);
      if (!m) byField.set(field, m = new Map());
      for (const r of rows) {
        const was = m.get(r.value);
        if (!was) m.set(r.value, { ...r });
        else {
          was.units += r.units;
          was.bounced += r.bounced;
          was.converted += r.converted;
        }
      }
    }
  }
  for (const [field, m] of byField) out.by[field] = [...m.values()].filter((r) => r.units || r.pageviews);
  return out;
}
