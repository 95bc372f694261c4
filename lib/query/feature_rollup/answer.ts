/**
 * behavior_features' questions counted from feature tables (build.ts): which questions they answer
 * (`featureQuestion`), each question's groups over the tables a period takes (`collectGroups`: events, rage
 * clicks, the distinct visitor numbers and sessions), the raw tail's groups added exactly (`addTail`), and the
 * answer as the scan gives it (`featureResult`).
 */
import { decodeSetInto, encodeSet, forEachMember } from "../../parts/visitor_set.ts";
import { sortAndPage } from "../order.ts";
import { releaseViews } from "../rollup/let_go.ts";
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
const DIMS = ["prop:action", "page", "element", "prop:form_element", "prop:element_plain"] as const;
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
  const c = new GroupCollector(s, o, space);
  for (const x of taken) c.add(x);
  return c.finish();
}

/** A group while the tables are added: its members so far (repeats allowed until compacted). */
interface Acc {
  key: KeyValue[];
  events: number;
  rage: number;
  vis: Uint32Array;
  nVis: number;
  /** session triples (visitor, h1, h2), repeats allowed until compacted */
  ses: Uint32Array;
  nSes: number;
}

/**
 * One question's groups counted table by table (`add`), then `finish`: a table is done with once added, so a
 * period's tables need not be held at once (at 10M events all 214 parts' tables decoded together raised the
 * peak 60-95 MB). A group keeps its visitor numbers and session triples as it meets them, sorted and deduped
 * when its list fills (growing only when that leaves it more than half full); the totals' visitors are a mark
 * per visitor number, their sessions one hash set. Same groups, in the same order (first met), as counting
 * all the tables at once.
 */
export class GroupCollector {
  private breakdown: Dim[];
  private touchpoint: string | null | undefined;
  private traffic: Set<string | null>;
  private rageOnly: boolean;
  private dimFilters: Filter[];
  private wantSessions: boolean;
  /** whether visitors are asked (else the rows' visitor sets are not read: the groups keep none) */
  private wantVisitors: boolean;
  private accs = new Map<string, Acc>();
  private events = 0;
  private rage = 0;
  /** a mark per visitor number met (the totals' members, read in order at the end: no list kept) */
  private inTotal: Uint8Array;
  private nTotal = 0;
  private perGroup = distinctSet();
  private overAll = distinctSet();

  constructor(s: Scope, o: AggregateOptions, space: number) {
    this.breakdown = (o.breakdown ?? []) as Dim[];
    this.touchpoint = s.touchpoint;
    this.traffic = new Set<string | null>(s.traffic ?? ["human"]);
    this.rageOnly = (s.filters ?? []).some(isRageFilter);
    this.dimFilters = (s.filters ?? []).filter((f) => isDim(f.field));
    this.wantSessions = o.metrics.includes("sessions");
    this.wantVisitors = o.metrics.includes("visitors");
    this.inTotal = new Uint8Array(Math.max(1, space));
    this.overAll.start();
  }

  /** Counts a table's rows in scope (its hours inside the period: all when `hours` is null). */
  add({ t, hours }: Taken): void {
    const tpOk = Uint8Array.from(t.tps, (x) => (!this.touchpoint || x === this.touchpoint ? 1 : 0));
    const trOk = Uint8Array.from(t.trs, (x) => (this.traffic.has(x) ? 1 : 0));
    const colOf = (d: Dim) =>
      d === "page"
        ? t.page
        : d === "element"
        ? t.element
        : d === "prop:action"
        ? t.action
        : d === "prop:element_plain"
        ? t.plain
        : t.form;
    // per filter, a verdict per text code
    const tests = this.dimFilters.map((f) => ({
      col: colOf(f.field as Dim),
      ok: Uint8Array.from(t.texts, (x) => (matches(x, f) ? 1 : 0)),
    }));
    const cols = this.breakdown.map(colOf);
    const byCodes = new Map<number, Acc>();
    const width = t.texts.length, rageOnly = this.rageOnly, wantSessions = this.wantSessions;
    const { tp, tr, hour, rage, events, setAt, sets, sesAt, sesVis, sesH1, sesH2 } = t;
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
        acc = this.accs.get(id);
        if (!acc) {
          acc = { key, events: 0, rage: 0, vis: EMPTY32, nVis: 0, ses: EMPTY32, nSes: 0 };
          this.accs.set(id, acc);
        }
        byCodes.set(code, acc);
      }
      const e = events[i], r = rage[i] ? e : 0;
      acc.events += e;
      acc.rage += r;
      this.events += e;
      this.rage += r;
      // the row's visitors into its group's list and the totals' marks
      if (this.wantVisitors) {
        const from = setAt[i], to = setAt[i + 1];
        if (acc.nVis + (to - from) > acc.vis.length) roomForVisitors(acc, to - from);
        const was = acc.nVis;
        acc.nVis = decodeSetInto(sets, from, to, acc.vis, was);
        for (let k = was; k < acc.nVis; k++) this.mark(acc.vis[k]);
      }
      if (wantSessions && sesAt[i + 1] > sesAt[i]) {
        const m = sesAt[i + 1] - sesAt[i];
        if (acc.nSes + 3 * m > acc.ses.length) this.roomForSessions(acc, 3 * m);
        for (let k = sesAt[i]; k < sesAt[i + 1]; k++) {
          acc.ses[acc.nSes++] = sesVis[k];
          acc.ses[acc.nSes++] = sesH1[k];
          acc.ses[acc.nSes++] = sesH2[k];
          this.overAll.add(sesVis[k], sesH1[k], sesH2[k]);
        }
      }
    }
  }

  /** A visitor number into the totals (first time seen: counted). */
  private mark(v: number) {
    if (v >= this.inTotal.length) {
      const grown = new Uint8Array(Math.max(v + 1, this.inTotal.length * 2));
      grown.set(this.inTotal);
      releaseViews([this.inTotal]);
      this.inTotal = grown;
    }
    if (this.inTotal[v]) return;
    this.inTotal[v] = 1;
    this.nTotal++;
  }

  /**
   * The totals' members in ascending order, read off the marks into an array of their count (a list grown
   * by doubling as they were met took ~2-3 times its bytes, ~11 MB a cold question at 10M events).
   */
  private totalMembers(): Uint32Array {
    const out = new Uint32Array(this.nTotal), marks = this.inTotal;
    for (let v = 0, k = 0; k < out.length; v++) if (marks[v]) out[k++] = v;
    return out;
  }

  /** Room for `m` more session numbers in a group's list: its sessions deduped first, grown if still full. */
  private roomForSessions(acc: Acc, m: number) {
    if (acc.nSes) {
      const d = this.dedupeSessions(acc.ses, acc.nSes);
      acc.ses.set(d);
      acc.nSes = d.length;
    }
    if (acc.nSes + m <= acc.ses.length && acc.nSes * 2 <= acc.ses.length) return;
    const grown = new Uint32Array(Math.max(48, 2 * (acc.nSes + m)));
    grown.set(acc.ses.subarray(0, acc.nSes));
    releaseViews([acc.ses]); // (the list outgrown: freed now, not at V8's next full collection)
    acc.ses = grown;
  }

  private dedupeSessions(ses: Uint32Array, n: number): Uint32Array {
    this.perGroup.start();
    for (let k = 0; k < n; k += 3) this.perGroup.add(ses[k], ses[k + 1], ses[k + 2]);
    return this.perGroup.done();
  }

  /**
   * The groups (first met first) and TOTALS. The collector's lists, marks and session sets are freed here
   * (what the groups keep is copied out): ~30 MB made a cold question at 10M events, left dead for V8's next
   * full collection otherwise. The collector is done with.
   */
  finish(): Map<string, Group> {
    const out = new Map<string, Group>();
    for (const [id, a] of this.accs) {
      const set = a.nVis ? encodeSet(a.vis.subarray(0, a.nVis)) : EMPTY8;
      out.set(id, {
        key: a.key,
        events: a.events,
        rage: a.rage,
        visitors: setSize(set),
        set,
        ses: this.wantSessions && a.nSes ? this.dedupeSessions(a.ses, a.nSes) : EMPTY32,
      });
      releaseViews([a.vis, a.ses]);
    }
    const members = this.nTotal ? this.totalMembers() : null;
    out.set(TOTALS, {
      key: [],
      events: this.events,
      rage: this.rage,
      visitors: this.nTotal,
      set: members ? encodeSet(members) : EMPTY8,
      ses: this.wantSessions ? this.overAll.done() : EMPTY32,
    });
    releaseViews([members, this.inTotal, ...this.perGroup.arrays(), ...this.overAll.arrays()]);
    return out;
  }
}

/** Room for `m` more visitor numbers in a group's list: sorted and deduped first, grown if still over half full. */
function roomForVisitors(acc: Acc, m: number) {
  if (acc.nVis) {
    const v = acc.vis.subarray(0, acc.nVis).sort();
    let n = 1;
    for (let k = 1; k < v.length; k++) if (v[k] !== v[n - 1]) v[n++] = v[k];
    acc.nVis = n;
  }
  if (acc.nVis + m <= acc.vis.length && acc.nVis * 2 <= acc.vis.length) return;
  const grown = new Uint32Array(Math.max(16, 2 * (acc.nVis + m)));
  grown.set(acc.vis.subarray(0, acc.nVis));
  releaseViews([acc.vis]); // (the list outgrown: freed now)
  acc.vis = grown;
}

/**
 * Distinct sessions (visitor, h1, h2): a hash set grown with what a round holds (twice its sessions at most),
 * cleared by a stamp per round, each new session listed at first sight; three arrays sized by the visitor
 * numbers took 12 MB a set at 1M visitors (two sets a question), and a set sized by the tables' session
 * entries more.
 */
function distinctSet() {
  let cap = 1024, vs = new Uint32Array(cap), h1 = new Uint32Array(cap), h2 = new Uint32Array(cap);
  let stamps = new Int32Array(cap);
  let stamp = 0, list = new Uint32Array(48), n = 0;
  const slot = (v: number, a: number, b: number) => {
    const mask = cap - 1;
    let i = (Math.imul(v, 0x9e3779b1) ^ Math.imul(a, 0x85ebca6b) ^ b) & mask;
    while (stamps[i] === stamp && !(vs[i] === v && h1[i] === a && h2[i] === b)) i = (i + 1) & mask;
    return i;
  };
  const grow = () => {
    const was = { vs, h1, h2, stamps };
    const free = () => releaseViews([was.vs, was.h1, was.h2, was.stamps]);
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
    free();
  };
  return {
    start() {
      stamp++;
      n = 0;
    },
    add(v: number, a: number, b: number) {
      let i = slot(v, a, b);
      if (stamps[i] === stamp) return;
      // (the round's sessions are n / 3: at most half the slots taken)
      if ((n / 3 + 1) * 2 > cap) (grow(), i = slot(v, a, b));
      stamps[i] = stamp;
      vs[i] = v;
      h1[i] = a;
      h2[i] = b;
      if (n + 3 > list.length) {
        const grown = new Uint32Array(list.length * 2);
        grown.set(list);
        releaseViews([list]);
        list = grown;
      }
      list[n++] = v;
      list[n++] = a;
      list[n++] = b;
    },
    done: () => (n ? list.slice(0, n) : EMPTY32),
    /** its arrays, to free once its last round is done */
    arrays: () => [vs, h1, h2, stamps, list],
  };
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
