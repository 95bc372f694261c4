/**
 * Aggregates over prepared batches: a group number per matching row, then one pass over the rows in
 * visitor order. Visitors are distinct per group without hash sets (a visitor's rows are contiguous, so
 * "last visitor seen in this group" suffices); sessions likewise, except the few split across batches.
 */
import { sortRows } from "./naive.ts";
import { AUTO, type EvBatch, eventView, HUMAN, LEAVE, PV, RAGE } from "./prepared.ts";
import {
  compileFilters,
  type Ctx,
  matchMasks,
  type SessionFacts,
  sessionFacts,
  sessionPage,
  type VisitorOrder,
  visitorOrder,
} from "./scan.ts";
import { bucketer, bucketsBetween } from "./time.ts";
import type {
  AggregateOptions,
  AggregateResult,
  EventField,
  KeyValue,
  Metric,
  MetricValues,
  Row,
} from "./types.ts";

const SESSION_METRICS = new Set<Metric>([
  "bounce_rate",
  "session_duration_s",
  "exits",
  "entries",
  "exit_rate",
]);
const SLOT = 900_000;

/** Visitors with a goal event in scope. */
function converted(c: Ctx, goal: AggregateOptions["goal"]): Uint8Array | null {
  if (!goal) return null;
  const out = new Uint8Array(c.nVis);
  c.batches.forEach((e, b) => {
    const et = eventView(e, "event_type");
    const code = et.values.indexOf(goal.event_type);
    if (code < 1) return;
    const pred = compileFilters(c, b, goal.filters);
    const m = c.inScope[b];
    for (let i = 0; i < e.n; i++) if (m[i] && et.codes[i] === code && (!pred || pred(i))) out[e.vis[i]] = 1;
  });
  return out;
}

interface Grouping {
  rowGroup: Int32Array[]; // per batch: group of each matching row, -1 otherwise
  keys: Record<string, KeyValue>[];
}

/** Bucket number of every 15-minute slot of the scope (all bucket edges fall on such slots). */
function bucketTable(c: Ctx, bucket: NonNullable<AggregateOptions["bucket"]>) {
  const of = bucketer(bucket, c.scope.timezone);
  const labels = bucketsBetween(c.scope.from, c.scope.to, bucket, c.scope.timezone).map((b) => b.label);
  const index = new Map(labels.map((l, i) => [l, i]));
  const slot0 = Math.floor(c.scope.from / SLOT);
  const table = new Int32Array(Math.floor((c.scope.to - 1) / SLOT) - slot0 + 1);
  for (let k = 0; k < table.length; k++) {
    table[k] = index.get(of(Math.max(c.scope.from, (slot0 + k) * SLOT)))!;
  }
  return { labels, table, slot0 };
}

/** ids[i] = byCode[codes[i]]: one monomorphic loop shared by every query. */
function mapCodes(codes: ArrayLike<number>, byCode: Int32Array, ids: Int32Array, n: number) {
  for (let i = 0; i < n; i++) ids[i] = byCode[codes[i]];
}

function bucketIds(t: Float64Array, m: Uint8Array, table: Int32Array, slot0: number, ids: Int32Array) {
  for (let i = 0; i < t.length; i++) if (m[i]) ids[i] = table[Math.floor(t[i] / SLOT) - slot0];
}

/** Groups of matching rows whose group key is a small number: a dense key → group table. */
function denseGroups(
  m: Uint8Array,
  keyOf: Int32Array | null,
  table: Int32Array,
  out: Int32Array,
  fresh: (key: number, i: number) => number,
) {
  for (let i = 0; i < m.length; i++) {
    if (!m[i]) continue;
    const key = keyOf === null ? 0 : keyOf[i];
    let g = table[key];
    if (g < 0) g = table[key] = fresh(key, i);
    out[i] = g;
  }
}

function groupRows(
  c: Ctx,
  masks: Uint8Array[],
  fields: EventField[],
  bucket: AggregateOptions["bucket"],
): Grouping {
  const dimIds = fields.map(() => new Map<KeyValue, number>());
  const dimValues: KeyValue[][] = fields.map(() => []);
  const idOf = (d: number, v: KeyValue) => {
    let id = dimIds[d].get(v);
    if (id === undefined) {
      dimIds[d].set(v, id = dimValues[d].length);
      dimValues[d].push(v);
    }
    return id;
  };
  const bt = bucket ? bucketTable(c, bucket) : null;
  const keys: Record<string, KeyValue>[] = [];
  const parts: number[][] = [];
  const sparse = new Map<number | string, number>();
  const newGroup = (p: number[]) => {
    parts.push(p);
    keys.push({});
    return keys.length - 1;
  };
  // first every row's dimension value numbers (this assigns all value numbers), then the groups
  const allDims = c.batches.map((e, b) => {
    const m = masks[b];
    const dims = fields.map((f, d): Int32Array => {
      const ids = new Int32Array(e.n);
      if (f === "entry_page" || f === "exit_page") {
        for (let i = 0; i < e.n; i++) if (m[i]) ids[i] = idOf(d, sessionPage(c, e.ses[i], f));
        return ids;
      }
      const v = eventView(e, f);
      const byCode = Int32Array.from(v.values, (s) => idOf(d, s));
      if (!v.codes.length) return ids.fill(byCode[0]);
      mapCodes(v.codes, byCode, ids, e.n);
      return ids;
    });
    if (bt) {
      const ids = new Int32Array(e.n);
      bucketIds(e.t, m, bt.table, bt.slot0, ids);
      dims.push(ids);
    }
    return dims;
  });
  const width = bt ? bt.labels.length : 1;
  const nd = fields.length + (bt ? 1 : 0);
  const size = nd === 0
    ? 1
    : fields.length === 0
    ? width
    : fields.length === 1
    ? dimValues[0].length * width
    : Infinity;
  const dense = size <= 4_000_000 ? new Int32Array(size).fill(-1) : null;
  const rowGroup = c.batches.map((e, b) => {
    const m = masks[b], dims = allDims[b];
    const out = new Int32Array(e.n).fill(-1);
    if (dense) {
      // one small number per row: value * width + bucket
      let keyOf: Int32Array | null = null;
      if (dims.length === 1) keyOf = dims[0];
      else if (dims.length === 2) {
        keyOf = new Int32Array(e.n);
        const a = dims[0], z = dims[1];
        for (let i = 0; i < e.n; i++) keyOf[i] = a[i] * width + z[i];
      }
      denseGroups(m, keyOf, dense, out, (_key, i) => newGroup(dims.map((x) => x[i])));
    } else {
      for (let i = 0; i < e.n; i++) {
        if (!m[i]) continue;
        const key = dims.length === 2
          ? dims[0][i] * 67_108_864 + dims[1][i]
          : dims.map((x) => x[i]).join(",");
        let g = sparse.get(key);
        if (g === undefined) sparse.set(key, g = newGroup(dims.map((x) => x[i])));
        out[i] = g;
      }
    }
    return out;
  });
  parts.forEach((p, g) => {
    fields.forEach((f, d) => (keys[g][f] = dimValues[d][p[d]]));
    if (bt) keys[g].bucket = bt.labels[p[fields.length]];
  });
  return { rowGroup, keys };
}

/**
 * Where a row's group comes from: rows with masks[b][i] set belong to group tables[b][codes[b][i]].
 * One breakdown field: its dictionary codes and a code → group table (no per-row work before the pass).
 */
interface GroupSource {
  masks: Uint8Array[];
  codes: ArrayLike<number>[];
  tables: Int32Array[];
  keys: Record<string, KeyValue>[];
}

const zeros = new WeakMap<EvBatch, Uint8Array>();

/** Groups straight from dictionary codes: no breakdown, or one plain field without a bucket. */
function directGroups(
  c: Ctx,
  masks: Uint8Array[],
  fields: EventField[],
  bucket: AggregateOptions["bucket"],
): GroupSource | null {
  if (bucket || fields.length > 1 || fields.some((f) => f === "entry_page" || f === "exit_page")) return null;
  const ids = new Map<KeyValue, number>();
  const keys: Record<string, KeyValue>[] = [];
  const zero = (e: EvBatch) => {
    let z = zeros.get(e);
    if (!z) zeros.set(e, z = new Uint8Array(e.n));
    return z;
  };
  const codes: ArrayLike<number>[] = [], tables: Int32Array[] = [];
  for (const e of c.batches) {
    const v = fields.length ? eventView(e, fields[0]) : null;
    const values = v ? v.values : [null];
    tables.push(Int32Array.from(values, (s) => {
      let id = ids.get(s);
      if (id === undefined) {
        ids.set(s, id = keys.length);
        keys.push(fields.length ? { [fields[0]]: s } : {});
      }
      return id;
    }));
    codes.push(v && v.codes.length ? v.codes : zero(e));
  }
  return { masks, codes, tables, keys };
}

function viaRows(g: Grouping, masks: Uint8Array[]): GroupSource {
  const identity = Int32Array.from(g.keys, (_, i) => i);
  return { masks, codes: g.rowGroup, tables: g.rowGroup.map(() => identity), keys: g.keys };
}

/** Accumulators of every group (typed arrays: one shape, so the loops below stay optimized). */
class Acc {
  events: Float64Array;
  pageviews: Float64Array;
  visitors: Float64Array;
  sessions: Float64Array;
  bounces: Float64Array;
  dur: Float64Array;
  engSum: Float64Array;
  engN: Float64Array;
  depthSum: Float64Array;
  depthN: Float64Array;
  exits: Float64Array;
  entries: Float64Array;
  rage: Float64Array;
  convs: Float64Array;
  lastVis: Int32Array;
  lastSes: Int32Array;
  splitSeen = new Set<number>();
  pv: Int32Array;
  first: Float64Array;
  last: Float64Array;
  entryB: Int32Array;
  entryR: Int32Array;
  exitB: Int32Array;
  exitR: Int32Array;
  constructor(
    n: number,
    readonly nSes: number,
    readonly conv: Uint8Array | null,
    readonly split: Uint8Array,
    facts: SessionFacts | null,
  ) {
    const f = () => new Float64Array(n);
    [this.events, this.pageviews, this.visitors, this.sessions, this.bounces, this.dur] = [
      f(),
      f(),
      f(),
      f(),
      f(),
      f(),
    ];
    [this.engSum, this.engN, this.depthSum, this.depthN, this.exits, this.entries, this.rage, this.convs] = [
      f(),
      f(),
      f(),
      f(),
      f(),
      f(),
      f(),
      f(),
    ];
    this.lastVis = new Int32Array(n).fill(-1);
    this.lastSes = new Int32Array(n).fill(-1);
    this.hasFacts = facts !== null;
    const none = new Int32Array(0);
    this.pv = facts?.pv ?? none;
    this.first = facts?.first ?? new Float64Array(0);
    this.last = facts?.last ?? new Float64Array(0);
    this.entryB = facts?.entryB ?? none;
    this.entryR = facts?.entryR ?? none;
    this.exitB = facts?.exitB ?? none;
    this.exitR = facts?.exitR ?? none;
  }
  hasFacts: boolean;
}

function add(
  a: Acc,
  g: number,
  bits: number,
  eng: number,
  depth: number,
  v: number,
  s: number,
  isExit: boolean,
  isEntry: boolean,
) {
  a.events[g]++;
  if (bits & PV) {
    a.pageviews[g]++;
    if (isExit) a.exits[g]++;
    if (isEntry) a.entries[g]++;
  } else if (bits & LEAVE) {
    if (eng === eng) {
      a.engSum[g] += eng;
      a.engN[g]++;
    }
    if (depth === depth) {
      a.depthSum[g] += depth;
      a.depthN[g]++;
    }
  } else if ((bits & (AUTO | RAGE)) === (AUTO | RAGE)) a.rage[g]++;
  if (bits & HUMAN && a.lastVis[g] !== v) {
    a.lastVis[g] = v;
    a.visitors[g]++;
    if (a.conv !== null && a.conv[v]) a.convs[g]++;
  }
  if (a.lastSes[g] !== s) {
    a.lastSes[g] = s;
    if (a.split[s]) {
      const k = g * a.nSes + s;
      if (a.splitSeen.has(k)) return;
      a.splitSeen.add(k);
    }
    a.sessions[g]++;
    if (a.hasFacts) {
      if (a.pv[s] <= 1) a.bounces[g]++;
      a.dur[g] += a.last[s] - a.first[s];
    }
  }
}

/** Every row range in visitor order into the accumulators: its group, and the totals slot T unless T < 0. */
function runRows(a: Acc, batches: EvBatch[], o: VisitorOrder, gs: GroupSource, T: number) {
  const { rbq, rs, re } = o;
  for (let q = 0; q < rbq.length; q++) {
    const b = rbq[q], e = batches[b], m = gs.masks[b], codes = gs.codes[b], table = gs.tables[b];
    const bitsRow = e.bits, engRow = e.eng, depthRow = e.depth, visRow = e.vis, sesRow = e.ses;
    for (let i = rs[q], end = re[q]; i < end; i++) {
      if (!m[i]) continue;
      const g = table[codes[i]];
      const s = sesRow[i], bits = bitsRow[i];
      const isExit = a.hasFacts && (bits & PV) !== 0 && a.exitR[s] === i && a.exitB[s] === b;
      const isEntry = a.hasFacts && (bits & PV) !== 0 && a.entryR[s] === i && a.entryB[s] === b;
      add(a, g, bits, engRow[i], depthRow[i], visRow[i], s, isExit, isEntry);
      if (T >= 0) add(a, T, bits, engRow[i], depthRow[i], visRow[i], s, isExit, isEntry);
    }
  }
}

/** The same for questions that need only events, pageviews and visitors (most breakdowns). */
function runRowsLean(a: Acc, batches: EvBatch[], o: VisitorOrder, gs: GroupSource, T: number) {
  const { rbq, rs, re } = o;
  const { events, pageviews, visitors, lastVis, conv, convs } = a;
  for (let q = 0; q < rbq.length; q++) {
    const b = rbq[q], e = batches[b], m = gs.masks[b], codes = gs.codes[b], table = gs.tables[b];
    const bitsRow = e.bits, visRow = e.vis;
    for (let i = rs[q], end = re[q]; i < end; i++) {
      if (!m[i]) continue;
      const g = table[codes[i]];
      const bits = bitsRow[i], v = visRow[i];
      events[g]++;
      if (bits & PV) pageviews[g]++;
      if (bits & HUMAN && lastVis[g] !== v) {
        lastVis[g] = v;
        visitors[g]++;
        if (conv !== null && conv[v]) convs[g]++;
      }
      if (T < 0) continue;
      events[T]++;
      if (bits & PV) pageviews[T]++;
      if (bits & HUMAN && lastVis[T] !== v) {
        lastVis[T] = v;
        visitors[T]++;
        if (conv !== null && conv[v]) convs[T]++;
      }
    }
  }
}

const LEAN = new Set<Metric>(["events", "pageviews", "visitors", "conversions", "conversion_rate"]);

export function aggregateMany(c: Ctx, list: AggregateOptions[]): AggregateResult[] {
  const needSession = list.some((o) =>
    o.metrics.some((m) => SESSION_METRICS.has(m)) ||
    [...(o.breakdown ?? []), ...(c.scope.filters ?? []).map((f) => f.field)]
      .some((f) => f === "entry_page" || f === "exit_page")
  );
  const facts = needSession ? sessionFacts(c) : null;
  const masks = matchMasks(c, c.scope.filters);
  const order = visitorOrder(c);
  // totals depend only on the scope and the goal: computed once per goal, shared by the list
  const totalsBy = new Map<string, { a: Acc; g: number }>();
  return list.map((o) => {
    const grouping = directGroups(c, masks, o.breakdown ?? [], o.bucket) ??
      viaRows(groupRows(c, masks, o.breakdown ?? [], o.bucket), masks);
    const conv = converted(c, o.goal);
    const G = grouping.keys.length, T = G; // slot T holds the totals
    const st = new Acc(G + 1, c.nSes, conv, visitorOrder(c).split, facts);
    const lean = o.metrics.every((m) => LEAN.has(m));
    const goalKey = JSON.stringify(o.goal ?? null);
    // full totals serve every later question; lean ones only lean questions
    const shared = totalsBy.get(goalKey) ?? (lean ? totalsBy.get(`lean:${goalKey}`) : undefined);
    // without a breakdown the one group is the total: no second slot to fill
    const whole = !o.breakdown?.length && !o.bucket;
    const slot = shared || whole ? -1 : T;
    if (lean) runRowsLean(st, c.batches, order, grouping, slot);
    else runRows(st, c.batches, order, grouping, slot);
    const mine = { a: st, g: whole ? 0 : T };
    if (!shared) totalsBy.set(lean ? `lean:${goalKey}` : goalKey, mine);
    const values = (a: Acc, g: number): MetricValues => {
      const r = (x: number, y: number) => (y > 0 ? x / y : null);
      const s = a.sessions[g];
      const all: Record<Metric, () => number | null> = {
        visitors: () => a.visitors[g],
        sessions: () => s,
        pageviews: () => a.pageviews[g],
        events: () => a.events[g],
        views_per_session: () => r(a.pageviews[g], s),
        bounce_rate: () => r(a.bounces[g], s),
        session_duration_s: () => (s > 0 ? a.dur[g] / s / 1000 : null),
        engagement_time_s: () => (a.engN[g] > 0 ? a.engSum[g] / a.engN[g] / 1000 : null),
        scroll_depth_percent: () => r(a.depthSum[g], a.depthN[g]),
        exits: () => a.exits[g],
        entries: () => a.entries[g],
        exit_rate: () => r(a.exits[g], a.pageviews[g]),
        rage_clicks: () => a.rage[g],
        conversions: () => a.convs[g],
        conversion_rate: () => r(a.convs[g], a.visitors[g]),
      };
      return Object.fromEntries(o.metrics.map((m) => [m, all[m]()]));
    };
    const rows: Row[] = [];
    grouping.keys.forEach((key, g) => st.events[g] > 0 && rows.push({ key, metrics: values(st, g) }));
    const by = o.sort?.by ?? o.metrics[0];
    sortRows(rows, by, o.sort?.desc ?? (by !== "key"));
    const offset = o.offset ?? 0;
    return {
      totals: values((shared ?? mine).a, (shared ?? mine).g),
      rows: rows.slice(offset, o.limit === undefined ? undefined : offset + o.limit),
      total_rows: rows.length,
    };
  });
}
