/**
 * behavior_features' questions counted from feature tables (build.ts): which questions they answer
 * (`featureQuestion`), each question's groups over the tables a period takes (`collectGroups`: events, rage
 * clicks, the distinct visitor numbers and sessions), the raw tail's groups added exactly (`addTail`), and the
 * answer as the scan gives it (`featureResult`).
 */
import { encodeSet, forEachMember } from "../../parts/visitor_set.ts";
import { sortAndPage } from "../order.ts";
import { matches } from "../scan/filters.ts";
import type {
  AggregateOptions,
  AggregateResult,
  Filter,
  KeyValue,
  MetricValues,
  Row,
  Scope,
} from "../types.ts";
import { distinctSessions, FEATURE_EVENT, type FeatureTable, SESSION_ACTIONS } from "./build.ts";

/** Fields a table row carries (filters and breakdowns on them are answered). */
const DIMS = ["prop:action", "page", "element", "prop:form_element"] as const;
type Dim = typeof DIMS[number];
const isDim = (f: string): f is Dim => (DIMS as readonly string[]).includes(f);
const METRICS = new Set(["events", "visitors", "rage_clicks", "sessions"]);

const isRageFilter = (f: Filter) =>
  f.field === "prop:rage_click" && f.op === "eq" &&
  (f.value === "true" || (Array.isArray(f.value) && f.value.length === 1 && f.value[0] === "true"));

/** Why the tables cannot answer a scope (the scan does), or null. */
export function featureScopeBlocker(s: Scope): string | null {
  if (s.cohort) return "a cohort";
  const fs = s.filters ?? [];
  const et = fs.filter((f) => f.field === "event_type");
  if (!et.length || !et.every((f) => f.op === "eq" && f.value === FEATURE_EVENT)) {
    return `no event_type eq ${FEATURE_EVENT} filter`;
  }
  for (const f of fs) {
    if (f.field !== "event_type" && !isDim(f.field) && !isRageFilter(f)) return `a filter on ${f.field}`;
  }
  return null;
}

/** Whether the scope's filters keep only actions whose rows hold their sessions. */
function sessionsKept(s: Scope): boolean {
  return (s.filters ?? []).some((f) => {
    if (f.field !== "prop:action" || (f.op !== "eq" && f.op !== "in")) return false;
    const vals = Array.isArray(f.value) ? f.value : [f.value];
    return vals.every((v) => SESSION_ACTIONS.has(v));
  });
}

/** Whether the tables answer this question of this scope exactly (else the scan does). */
export function featureQuestion(s: Scope, o: AggregateOptions): boolean {
  if (featureScopeBlocker(s) !== null || o.bucket || o.goal || !o.metrics.length) return false;
  if (!o.metrics.every((m) => METRICS.has(m))) return false;
  if (o.metrics.includes("sessions") && !sessionsKept(s)) return false;
  const b = o.breakdown ?? [];
  if (!b.every(isDim) || new Set(b).size !== b.length) return false;
  return !o.sort || o.sort.by === "key" || o.metrics.includes(o.sort.by);
}

/** A table a question takes: its hours inside the period (null: all of them). */
export interface Taken {
  t: FeatureTable;
  hours: Set<number> | null;
}

/** A group's figures: distinct visitors as an encoded set, distinct sessions as sorted (visitor, h1, h2). */
export interface Group {
  key: KeyValue[];
  events: number;
  rage: number;
  visitors: number;
  set: Uint8Array;
  ses: Uint32Array;
}

/** The totals' name among a question's groups (never a key's JSON, which is an array). */
export const TOTALS = "*";

const EMPTY8 = new Uint8Array(0), EMPTY32 = new Uint32Array(0);

/** The groups (and TOTALS) of one question over the tables taken; `space` bounds the visitor numbers. */
export function collectGroups(
  taken: Taken[],
  s: Scope,
  o: AggregateOptions,
  space: number,
): Map<string, Group> {
  const breakdown = (o.breakdown ?? []) as Dim[];
  const traffic = new Set<string | null>(s.traffic ?? ["human"]);
  const rageOnly = (s.filters ?? []).some(isRageFilter);
  const dimFilters = (s.filters ?? []).filter((f) => isDim(f.field));
  const wantSessions = o.metrics.includes("sessions");
  interface Acc {
    key: KeyValue[];
    events: number;
    rage: number;
    refs: number[];
  }
  const accs = new Map<string, Acc>();
  const total: Acc = { key: [], events: 0, rage: 0, refs: [] };
  for (let ti = 0; ti < taken.length; ti++) {
    const { t, hours } = taken[ti];
    const tpOk = Uint8Array.from(t.tps, (x) => (!s.touchpoint || x === s.touchpoint ? 1 : 0));
    const trOk = Uint8Array.from(t.trs, (x) => (traffic.has(x) ? 1 : 0));
    const colOf = (d: Dim) =>
      d === "page" ? t.page : d === "element" ? t.element : d === "prop:action" ? t.action : t.form;
    // per filter, a verdict per text code
    const tests = dimFilters.map((f) => ({
      col: colOf(f.field as Dim),
      ok: Uint8Array.from(t.texts, (x) => (matches(x, f) ? 1 : 0)),
    }));
    const cols = breakdown.map(colOf);
    const byCodes = new Map<number, Acc>();
    const width = t.texts.length;
    const { tp, tr, hour, rage, events } = t;
    rows: for (let i = 0; i < t.n; i++) {
      if (!tpOk[tp[i]] || !trOk[tr[i]] || (hours && !hours.has(hour[i]))) continue;
      if (rageOnly && !rage[i]) continue;
      for (let k = 0; k < tests.length; k++) if (!tests[k].ok[tests[k].col[i]]) continue rows;
      let code = 0;
      for (let k = 0; k < cols.length; k++) code = code * width + cols[k][i];
      let acc = byCodes.get(code);
      if (!acc) {
        const key = cols.map((c) => t.texts[c[i]]);
        const id = JSON.stringify(key);
        acc = accs.get(id);
        if (!acc) accs.set(id, acc = { key, events: 0, rage: 0, refs: [] });
        byCodes.set(code, acc);
      }
      const e = events[i], r = rage[i] ? e : 0;
      acc.events += e;
      acc.rage += r;
      acc.refs.push(ti, i);
      total.events += e;
      total.rage += r;
    }
  }
  // one pass over the groups' sets: a group's members by a stamp per group, the totals' by a mark of their own
  let marks = new Int32Array(Math.max(1, space));
  let inTotal = new Uint8Array(Math.max(1, space));
  let buf = new Uint32Array(1 << 16), totalBuf = new Uint32Array(1 << 16);
  let stamp = 0, nTotal = 0;
  const grow = (a: Uint32Array) => {
    const grown = new Uint32Array(a.length * 2);
    grown.set(a);
    return grown;
  };
  const members = (refs: number[]) => {
    stamp++;
    let n = 0;
    for (let p = 0; p < refs.length; p += 2) {
      const t = taken[refs[p]].t, row = refs[p + 1], sets = t.sets, end = t.setAt[row + 1];
      let prev = -1;
      for (let i = t.setAt[row]; i < end;) {
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
          const size = Math.max(prev + 1, marks.length * 2);
          const m = new Int32Array(size), t2 = new Uint8Array(size);
          m.set(marks);
          t2.set(inTotal);
          marks = m;
          inTotal = t2;
        }
        if (marks[prev] !== stamp) {
          marks[prev] = stamp;
          if (n === buf.length) buf = grow(buf);
          buf[n++] = prev;
          if (!inTotal[prev]) {
            inTotal[prev] = 1;
            if (nTotal === totalBuf.length) totalBuf = grow(totalBuf);
            totalBuf[nTotal++] = prev;
          }
        }
      }
    }
    return n ? encodeSet(buf.subarray(0, n)) : EMPTY8;
  };
  const out = new Map<string, Group>();
  // distinct sessions (visitor, h1, h2): a hash set grown with what a round holds (twice its sessions at
  // most), cleared by a stamp per round, each new session listed at first sight; three arrays sized by the
  // visitor numbers took 12 MB a set at 1M visitors (two sets a question), and a set sized by the tables'
  // session entries more
  const distinct = () => {
    let cap = 1024, vs = new Uint32Array(cap), h1 = new Uint32Array(cap), h2 = new Uint32Array(cap);
    let stamps = new Int32Array(cap);
    let stamp = 0, list: number[] = [];
    const slot = (v: number, a: number, b: number) => {
      const mask = cap - 1;
      let i = (Math.imul(v, 0x9e3779b1) ^ Math.imul(a, 0x85ebca6b) ^ b) & mask;
      while (stamps[i] === stamp && !(vs[i] === v && h1[i] === a && h2[i] === b)) i = (i + 1) & mask;
      return i;
    };
    const grow = () => {
      const was = { vs, h1, h2, stamps };
      cap *= 2;
      vs = new Uint32Array(cap);
      h1 = new Uint32Array(cap);
      h2 = new Uint32Array(cap);
      stamps = new Int32Array(cap);
      for (let k = 0; k < was.stamps.length; k++) {
        if (was.stamps[k] !== stamp) continue;
        const i = slot(was.vs[k], was.h1[k], was.h2[k]);
        stamps[i] = stamp;
        vs[i] = was.vs[k];
        h1[i] = was.h1[k];
        h2[i] = was.h2[k];
      }
    };
    return {
      start() {
        stamp++;
        list = [];
      },
      add(v: number, a: number, b: number) {
        let i = slot(v, a, b);
        if (stamps[i] === stamp) return;
        // (the round's sessions are list.length / 3: at most half the slots taken)
        if ((list.length / 3 + 1) * 2 > cap) (grow(), i = slot(v, a, b));
        stamps[i] = stamp;
        vs[i] = v;
        h1[i] = a;
        h2[i] = b;
        list.push(v, a, b);
      },
      done: () => (list.length ? Uint32Array.from(list) : EMPTY32),
    };
  };
  const perGroup = distinct(), overAll = distinct();
  overAll.start();
  const sessions = (refs: number[]) => {
    if (!wantSessions) return EMPTY32;
    perGroup.start();
    for (let p = 0; p < refs.length; p += 2) {
      const t = taken[refs[p]].t, i = refs[p + 1];
      for (let k = t.sesAt[i]; k < t.sesAt[i + 1]; k++) {
        perGroup.add(t.sesVis[k], t.sesH1[k], t.sesH2[k]);
        overAll.add(t.sesVis[k], t.sesH1[k], t.sesH2[k]);
      }
    }
    return perGroup.done();
  };
  for (const [id, a] of accs) {
    if (a === total) continue;
    const set = members(a.refs);
    out.set(id, {
      key: a.key,
      events: a.events,
      rage: a.rage,
      visitors: setSize(set),
      set,
      ses: sessions(a.refs),
    });
  }
  out.set(TOTALS, {
    key: [],
    events: total.events,
    rage: total.rage,
    visitors: nTotal,
    set: nTotal ? encodeSet(totalBuf.subarray(0, nTotal)) : EMPTY8,
    ses: wantSessions ? overAll.done() : EMPTY32,
  });
  return out;
}

/** Members of an encoded set (one varint each: the bytes without a continuation bit). */
function setSize(set: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < set.length; i++) if (set[i] < 0x80) n++;
  return n;
}

/** Bytes a question's kept groups weigh. */
export function groupsBytes(gs: Map<string, Group>): number {
  let n = 0;
  for (const [id, g] of gs) n += 120 + id.length * 2 + g.set.byteLength + g.ses.byteLength;
  return n;
}

/** Figures of a group as answered. */
export interface Figures {
  key: KeyValue[];
  events: number;
  rage: number;
  visitors: number;
  sessions: number;
}

/**
 * The parts' groups with the raw tail's added: a tail visitor or session counts where the parts' lack it.
 * `space` bounds the visitor numbers.
 */
export function addTail(parts: Map<string, Group>, tail: Map<string, Group> | null, space: number) {
  const out = new Map<string, Figures>();
  for (const [id, g] of parts) {
    out.set(id, {
      key: g.key,
      events: g.events,
      rage: g.rage,
      visitors: g.visitors,
      sessions: g.ses.length / 3,
    });
  }
  if (!tail) return out;
  const marks = new Int32Array(Math.max(1, space));
  let stamp = 0;
  for (const [id, g] of tail) {
    const kept = parts.get(id);
    const s = ++stamp;
    if (kept) forEachMember(kept.set, 0, kept.set.length, (v) => (marks[v] = s));
    let added = 0;
    forEachMember(g.set, 0, g.set.length, (v) => {
      if (marks[v] !== s) added++;
    });
    let sessions = g.ses.length / 3;
    if (kept?.ses.length && g.ses.length) {
      const both: number[] = [...kept.ses, ...g.ses];
      sessions = distinctSessions(both).length / 3 - kept.ses.length / 3;
    }
    const x = out.get(id);
    if (!x && g.events === 0 && id !== TOTALS) continue;
    out.set(id, {
      key: g.key,
      events: (x?.events ?? 0) + g.events,
      rage: (x?.rage ?? 0) + g.rage,
      visitors: (x?.visitors ?? 0) + added,
      sessions: (x?.sessions ?? 0) + sessions,
    });
  }
  return out;
}

/** The answer as the scan gives it: a row per group (breakdown fields in order), sorted and paged, totals. */
export function featureResult(figures: Map<string, Figures>, o: AggregateOptions): AggregateResult {
  const metricsOf = (f: Figures): MetricValues => {
    const m: MetricValues = {};
    for (const x of o.metrics) {
      m[x] = x === "events"
        ? f.events
        : x === "rage_clicks"
        ? f.rage
        : x === "visitors"
        ? f.visitors
        : f.sessions;
    }
    return m;
  };
  const breakdown = o.breakdown ?? [];
  const rows: Row[] = [];
  for (const [id, f] of figures) {
    if (id === TOTALS) continue;
    const key: Record<string, KeyValue> = {};
    breakdown.forEach((d, k) => (key[d] = f.key[k]));
    rows.push({ key, metrics: metricsOf(f) });
  }
  const totals = metricsOf(figures.get(TOTALS) ?? { key: [], events: 0, rage: 0, visitors: 0, sessions: 0 });
  const paged = sortAndPage(rows, o);
  return { totals, rows: paged.rows, total_rows: paged.total_rows };
}
