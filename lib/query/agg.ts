/**
 * Aggregates over prepared batches: a group number per matching row, then one pass over the rows in
 * visitor order. Visitors are distinct per group without hash sets (a visitor's rows are contiguous, so
 * "last visitor seen in this group" suffices); sessions likewise, except the few split across batches.
 */
import { sortRows } from "./naive.ts";
import { isEngagedSession } from "./engaged.ts";
import { droppedBySession } from "./drops.ts";
import {
  ALL_ROWS,
  AUTO,
  type EvBatch,
  eventView,
  fieldIds,
  fullRuns,
  HUMAN,
  keepIds,
  LEAVE,
  NO_ROWS,
  PV,
  RAGE,
  runSums,
  runValue,
} from "./prepared.ts";
import {
  compileFilters,
  type Ctx,
  matchMasks,
  type RunColumns,
  type SessionFacts,
  sessionFacts,
  sessionPage,
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
  "engaged_visitors",
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

function bucketIds(t: Float64Array, m: Uint8Array, table: Int32Array, slot0: number, ids: Int32Array) {
  for (let i = 0; i < t.length; i++) if (m[i]) ids[i] = table[Math.floor(t[i] / SLOT) - slot0];
}

/** Groups of matching rows whose group key is a small number: a dense key → group table. */
function denseGroups(
  m: Uint8Array,
  ranges: Int32Array,
  keyOf: Int32Array | null,
  table: Int32Array,
  out: Int32Array,
  fresh: (key: number, i: number) => number,
) {
  for (let j = 0; j < ranges.length; j += 2) {
    for (let i = ranges[j]; i < ranges[j + 1]; i++) {
      if (!m[i]) continue;
      const key = keyOf === null ? 0 : keyOf[i];
      let g = table[key];
      if (g < 0) g = table[key] = fresh(key, i);
      out[i] = g;
    }
  }
}

/** denseGroups for two dimensions (a field and a bucket): key = a * width + z, for matching rows only. */
function denseGroups2(
  m: Uint8Array,
  ranges: Int32Array,
  a: Int32Array,
  z: Int32Array,
  width: number,
  table: Int32Array,
  out: Int32Array,
  fresh: (i: number) => number,
) {
  for (let j = 0; j < ranges.length; j += 2) {
    for (let i = ranges[j]; i < ranges[j + 1]; i++) {
      if (!m[i]) continue;
      const key = a[i] * width + z[i];
      let g = table[key];
      if (g < 0) g = table[key] = fresh(i);
      out[i] = g;
    }
  }
}

/** Row ranges [r[2j], r[2j+1]) covering every session run of the batch with a matching row. */
function matchingRanges(e: EvBatch, m: Uint8Array): Int32Array {
  const states = fullRuns(e, m), out: number[] = [];
  for (let k = 0; k < states.length; k++) {
    if (states[k] === NO_ROWS) continue;
    if (out.length && out[out.length - 1] === e.runStart[k]) out[out.length - 1] = e.runStart[k + 1];
    else out.push(e.runStart[k], e.runStart[k + 1]);
  }
  return Int32Array.from(out);
}

function groupRows(
  c: Ctx,
  masks: Uint8Array[],
  fields: EventField[],
  bucket: AggregateOptions["bucket"],
): GroupSource {
  // plain fields use the process-wide value numbers (cached per batch); entry/exit pages their own
  const plain = (f: EventField) => f !== "entry_page" && f !== "exit_page";
  const numbering = c.batches.length ? c.batches[0].interner : null;
  const dimIds = fields.map(() => new Map<KeyValue, number>());
  const dimValues: KeyValue[][] = fields.map((
    f,
  ) => (plain(f) && numbering ? numbering.valueIds(f).values : []));
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
      if (plain(f)) return fieldIds(e, f);
      const ids = new Int32Array(e.n);
      for (let i = 0; i < e.n; i++) if (m[i]) ids[i] = idOf(d, sessionPage(c, e.ses[i], f as "entry_page"));
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
    const dims = allDims[b], m = masks[b], ranges = matchingRanges(e, m);
    const out = new Int32Array(e.n).fill(-1);
    if (dense) {
      // one small number per row: value * width + bucket
      const fresh = (i: number) => newGroup(dims.map((x) => x[i]));
      if (dims.length === 2) denseGroups2(m, ranges, dims[0], dims[1], width, dense, out, fresh);
      else denseGroups(m, ranges, dims.length === 1 ? dims[0] : null, dense, out, (_key, i) => fresh(i));
    } else {
      for (let j = 0; j < ranges.length; j += 2) {
        for (let i = ranges[j]; i < ranges[j + 1]; i++) {
          if (!m[i]) continue;
          const key = dims.length === 2
            ? dims[0][i] * 67_108_864 + dims[1][i]
            : dims.map((x) => x[i]).join(",");
          let g = sparse.get(key);
          if (g === undefined) sparse.set(key, g = newGroup(dims.map((x) => x[i])));
          out[i] = g;
        }
      }
    }
    return out;
  });
  parts.forEach((p, g) => {
    fields.forEach((f, d) => (keys[g][f] = dimValues[d][p[d]]));
    if (bt) keys[g].bucket = bt.labels[p[fields.length]];
  });
  return { gids: rowGroup, size: keys.length, key: (g) => keys[g] };
}

/** Where each matching row's group comes from: gids[b][i] for batch b, row i (rows with masks[b][i] set). */
interface GroupSource {
  gids: Int32Array[];
  /** number of groups, and a group's key (made only for groups with rows: a field may have many values) */
  size: number;
  key: (g: number) => Record<string, KeyValue>;
  /** per session run in visitor order: the run's group when all its rows share one, else -1 */
  runGids?: Int32Array;
}

const zeros = new WeakMap<EvBatch, Int32Array>();
const zeroIdArrays = new WeakSet<Int32Array>();
/** Group 0 for every row: a question without breakdown. */
const zeroIds = (e: EvBatch) => {
  let z = zeros.get(e);
  if (!z) {
    zeros.set(e, z = new Int32Array(e.n));
    zeroIdArrays.add(z);
  }
  return z;
};

const MAX_DIRECT_GROUPS = 65_536;

/** Groups straight from process-wide value numbers: no breakdown, or one plain field without a bucket. */
function directGroups(c: Ctx, fields: EventField[], bucket: AggregateOptions["bucket"]): GroupSource | null {
  if (bucket || fields.length > 1 || fields.some((f) => f === "entry_page" || f === "exit_page")) return null;
  if (!fields.length) {
    return {
      gids: c.batches.map((e) => zeroIds(e)),
      size: 1,
      key: () => ({}),
      runGids: new Int32Array(visitorOrder(c).rb.length),
    };
  }
  const f = fields[0];
  const gids = c.batches.map((e) => fieldIds(e, f));
  const values = c.batches.length ? c.batches[0].interner.valueIds(f).values : [];
  // many values (ids, free text): accumulators per value seen in the process would be large; number the
  // groups of the matching rows instead
  if (values.length > MAX_DIRECT_GROUPS) return null;
  const runGids = runValuesInOrder(c, f);
  return { gids, size: values.length, key: (g) => ({ [f]: values[g] }), runGids };
}

/** Accumulators of one question's groups (typed arrays: one shape, so the pass below stays optimized). */
class Run {
  events: Float64Array;
  pageviews: Float64Array;
  visitors: Float64Array;
  engaged: Float64Array;
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
  /** dropped events of the group's sessions (drops.ts) */
  dropped: Float64Array;
  lastVis: Int32Array;
  lastEng: Int32Array;
  lastSes: Int32Array;
  splitSeen = new Set<number>();
  constructor(
    readonly gs: GroupSource,
    /** sessions, session facts, engagement, scroll depth and rage clicks too (not only events/visitors) */
    readonly full: boolean,
    readonly conv: Uint8Array | null,
    /** page-leave sums and rage clicks too (totals: only when a question asks for them) */
    readonly detail = true,
    /** breakdowns: session counts (sessions, bounces, durations) and engaged visitors, when asked */
    readonly perSession = true,
    readonly wantEngaged = true,
    /** totals: entries and exits, when a question asks for them */
    readonly wantExits = true,
  ) {
    const n = gs.size, f = () => new Float64Array(full ? n : 0);
    this.events = new Float64Array(n);
    this.pageviews = new Float64Array(n);
    this.visitors = new Float64Array(n);
    this.convs = new Float64Array(conv ? n : 0);
    [this.engaged, this.sessions, this.bounces, this.dur, this.engSum, this.engN] = [
      f(),
      f(),
      f(),
      f(),
      f(),
      f(),
    ];
    [this.depthSum, this.depthN, this.exits, this.entries, this.rage] = [f(), f(), f(), f(), f()];
    this.dropped = f();
    this.lastVis = new Int32Array(n).fill(-1);
    this.lastEng = new Int32Array(full ? n : 0).fill(-1);
    this.lastSes = new Int32Array(full ? n : 0).fill(-1);
  }
}

/** Engaged sessions (engaged.ts) from the session facts of the scope. */
function engagedSessions(c: Ctx, f: SessionFacts): Uint8Array {
  const out = new Uint8Array(c.nSes);
  for (let s = 0; s < out.length; s++) {
    if (f.first[s] <= f.last[s] && isEngagedSession(f.last[s] - f.first[s], f.pv[s], f.act[s] === 1)) {
      out[s] = 1;
    }
  }
  return out;
}

type PerRun = Int32Array | Uint32Array | Uint8Array;

/**
 * A per-run array in visitor order. Over the parts it is kept (under key) across questions; with a raw tail
 * the parts' array is reused and the tail's runs are placed by the order's `from` map.
 */
function perRun<T extends PerRun>(
  c: Ctx,
  key: string | null,
  make: (rb: Int32Array, rk: Int32Array) => T,
): T {
  const order = visitorOrder(c), memo = c.memo, kept = key === null ? undefined : memo?.perRun;
  const base = c.tail ? memo?.order : order;
  if (!base || (c.tail && !order.from)) return make(order.rb, order.rk);
  let partsArray = kept?.get(key!) as T | undefined;
  if (!partsArray) {
    partsArray = make(base.rb, base.rk);
    if (kept) {
      if (kept.size >= 24) kept.delete(kept.keys().next().value!);
      kept.set(key!, partsArray);
    }
  }
  if (!c.tail) return partsArray;
  const tail = c.batches.length - 1, tailRuns = c.batches[tail].runSes.length;
  const tailArray = make(
    new Int32Array(tailRuns).fill(tail),
    Int32Array.from({ length: tailRuns }, (_, k) => k),
  );
  const from = order.from!;
  const out = new (partsArray.constructor as { new (n: number): T })(from.length);
  for (let p = 0; p < from.length; p++) out[p] = from[p] >= 0 ? partsArray[from[p]] : tailArray[-from[p] - 1];
  return out;
}

/** Session-run figures in visitor order. */
function runColumns(c: Ctx): RunColumns {
  const column = (name: string, of: (e: EvBatch, k: number) => number) =>
    perRun(c, `run:${name}`, (rb, rk) => {
      const out = new Uint32Array(rb.length);
      for (let q = 0; q < out.length; q++) out[q] = of(c.batches[rb[q]], rk[q]);
      return out;
    });
  return {
    vis: column("vis", (e, k) => e.runVis[k]),
    ses: column("ses", (e, k) => e.runSes[k]),
    rows: column("rows", (e, k) => e.runStart[k + 1] - e.runStart[k]),
    pv: column("pv", (e, k) => e.runPv[k]),
    human: column("human", (e, k) => e.runHuman[k]),
  };
}

/** Each run's state under the masks, in visitor order (kept per scope and filters). */
function runStates(c: Ctx, masks: Uint8Array[]): Uint8Array {
  const sessionLevel = c.scope.filters?.some((f) => f.field === "entry_page" || f.field === "exit_page");
  const key = sessionLevel ? null : `state:${c.scopeKey}#${JSON.stringify(c.scope.filters ?? [])}`;
  const full = c.batches.map((e, b) => fullRuns(e, masks[b]));
  return perRun(c, key, (rb, rk) => {
    const out = new Uint8Array(rb.length);
    for (let q = 0; q < out.length; q++) out[q] = full[rb[q]][rk[q]];
    return out;
  });
}

/** A field's value number per run in visitor order, -1 where it varies inside the run. */
function runValuesInOrder(c: Ctx, field: EventField): Int32Array {
  const per = c.batches.map((e) => runValue(e, field));
  return perRun(c, `value:${field}`, (rb, rk) => {
    const out = new Int32Array(rb.length);
    for (let q = 0; q < out.length; q++) out[q] = per[rb[q]][rk[q]];
    return out;
  });
}

/** What the passes share: the visitor order of the rows and the per-session facts of the scope. */
interface Pass {
  batches: EvBatch[];
  masks: Uint8Array[];
  /** session runs in visitor order (run rk[p] of batch rb[p]), and per batch which runs match whole */
  rb: Int32Array;
  rk: Int32Array;
  full: Uint8Array[];
  /** the same runs' figures and states in that order (contiguous) */
  runs: RunColumns;
  states: Uint8Array;
  split: Uint8Array;
  nSes: number;
  hasFacts: boolean;
  engagedS: Uint8Array;
  pvS: Int32Array;
  first: Float64Array;
  last: Float64Array;
  entryB: Int32Array;
  entryR: Int32Array;
  exitB: Int32Array;
  exitR: Int32Array;
  /** per session: dropped events (empty when no question asks for them) */
  drops: Float64Array;
}

/**
 * The matching rows, visitor by visitor, into every question's accumulators. A visitor's rows are
 * contiguous in this order, so "last visitor counted in this group" makes visitor counts exact.
 * One monomorphic loop per kind of question: lean ones count only events, pageviews and visitors.
 */
function pass(
  c: Ctx,
  runs: Run[],
  masks: Uint8Array[],
  facts: SessionFacts | null,
  drops: Float64Array | null,
) {
  const { split, rb, rk } = visitorOrder(c);
  const none = new Int32Array(0), noTimes = new Float64Array(0);
  const p: Pass = {
    batches: c.batches,
    masks,
    rb,
    rk,
    full: c.batches.map((e, b) => fullRuns(e, masks[b])),
    runs: runColumns(c),
    states: runStates(c, masks),
    split,
    nSes: c.nSes,
    hasFacts: facts !== null,
    engagedS: facts ? engagedSessions(c, facts) : new Uint8Array(0),
    pvS: facts?.pv ?? none,
    first: facts?.first ?? noTimes,
    last: facts?.last ?? noTimes,
    entryB: facts?.entryB ?? none,
    entryR: facts?.entryR ?? none,
    exitB: facts?.exitB ?? none,
    exitR: facts?.exitR ?? none,
    drops: drops ?? noTimes,
  };
  const lean: Run[] = [];
  for (const r of runs) {
    const whole = r.gs.size === 1 && r.gs.gids.every((g) => zeroIdArrays.has(g));
    if (r.full && whole) totalsLoop(p, r);
    else if (r.full) fullLoop(p, r);
    else lean.push(r);
  }
  if (lean.length) leanRunsTogether(p, lean);
}

/**
 * Lean questions (events, pageviews, visitors) in one walk over the session runs in visitor order: the
 * run's figures are read once (contiguous), then each question adds the run whole or row by row.
 */
function leanRunsTogether(p: Pass, runs: Run[]) {
  const { rb, rk, states } = p;
  const { vis: runVis, rows: runRows, pv: runPv, human: runHuman } = p.runs;
  const K = runs.length;
  const runGids = runs.map((r) => r.gs.runGids ?? null);
  const gids = runs.map((r) => r.gs.gids);
  const events = runs.map((r) => r.events), pageviews = runs.map((r) => r.pageviews);
  const visitors = runs.map((r) => r.visitors), lastVis = runs.map((r) => r.lastVis);
  const convs = runs.map((r) => r.convs), conv = runs.map((r) => r.conv);
  for (let q = 0; q < states.length; q++) {
    const state = states[q];
    if (state === NO_ROWS) continue;
    const v = runVis[q], rows = runRows[q], pvs = runPv[q], human = runHuman[q] > 0;
    for (let x = 0; x < K; x++) {
      const rg = runGids[x], g0 = state === ALL_ROWS && rg !== null ? rg[q] : -1;
      const ev = events[x], pv = pageviews[x], vs = visitors[x], last = lastVis[x], cv = conv[x];
      if (g0 >= 0) {
        ev[g0] += rows;
        pv[g0] += pvs;
        if (human && last[g0] !== v) {
          last[g0] = v;
          vs[g0]++;
          if (cv !== null && cv[v]) convs[x][g0]++;
        }
        continue;
      }
      const b = rb[q], k = rk[q], e = p.batches[b];
      const m = p.masks[b], gid = gids[x][b], bitsRow = e.bits;
      for (let i = e.runStart[k], end = e.runStart[k + 1]; i < end; i++) {
        if (!m[i]) continue;
        const g = gid[i], bits = bitsRow[i];
        ev[g]++;
        if (bits & PV) pv[g]++;
        if (bits & HUMAN && last[g] !== v) {
          last[g] = v;
          vs[g]++;
          if (cv !== null && cv[v]) convs[x][g]++;
        }
      }
    }
  }
}

/**
 * A question without breakdown (one group, e.g. the totals): counters instead of per-group arrays, and the
 * session figures summed over the sessions that had a matching row, after the pass.
 */
function totalsLoop(p: Pass, r: Run) {
  const { rb, rk, hasFacts, engagedS, entryB, entryR, exitB, exitR, states } = p;
  const { vis: runVis, ses: runSes, rows: runRows, pv: runPv, human: runHuman } = p.runs;
  const conv = r.conv, detail = r.detail, wantExits = hasFacts && r.wantExits;
  const matched = new Uint8Array(p.nSes);
  let events = 0, pageviews = 0, visitors = 0, convs = 0, engaged = 0, exits = 0, entries = 0;
  let engSum = 0, engN = 0, depthSum = 0, depthN = 0, rage = 0, lastVis = -1, lastEng = -1;
  for (let q = 0; q < states.length; q++) {
    const state = states[q];
    if (state === NO_ROWS) continue;
    const v = runVis[q], s = runSes[q];
    if (state === ALL_ROWS) {
      // every row of the run matches: its precomputed figures, read in order
      events += runRows[q];
      matched[s] = 1;
      if (runHuman[q] > 0) {
        if (lastVis !== v) {
          lastVis = v;
          visitors++;
          if (conv !== null && conv[v]) convs++;
        }
        if (hasFacts && engagedS[s] && lastEng !== v) {
          lastEng = v;
          engaged++;
        }
      }
      const pvs = runPv[q];
      pageviews += pvs;
      if (!wantExits && !detail) continue;
      const b = rb[q], k = rk[q], e = p.batches[b];
      const start = e.runStart[k], end = e.runStart[k + 1];
      if (pvs > 0 && wantExits) {
        if (exitB[s] === b && exitR[s] >= start && exitR[s] < end) exits++;
        if (entryB[s] === b && entryR[s] >= start && entryR[s] < end) entries++;
      }
      if (detail && pvs < end - start) {
        const sums = runSums(e);
        engSum += sums.engSum[k];
        engN += sums.engN[k];
        depthSum += sums.depthSum[k];
        depthN += sums.depthN[k];
        rage += sums.rage[k];
      }
      continue;
    }
    const b = rb[q], k = rk[q], e = p.batches[b];
    const start = e.runStart[k], end = e.runStart[k + 1];
    const m = p.masks[b], bitsRow = e.bits;
    let engRow: Float64Array | null = null, depthRow: Float64Array | null = null;
    for (let i = start; i < end; i++) {
      if (!m[i]) continue;
      const bits = bitsRow[i];
      events++;
      matched[s] = 1;
      if (bits & HUMAN) {
        if (lastVis !== v) {
          lastVis = v;
          visitors++;
          if (conv !== null && conv[v]) convs++;
        }
        if (hasFacts && engagedS[s] && lastEng !== v) {
          lastEng = v;
          engaged++;
        }
      }
      if (bits & PV) {
        pageviews++;
        if (wantExits && exitR[s] === i && exitB[s] === b) exits++;
        if (wantExits && entryR[s] === i && entryB[s] === b) entries++;
      } else if (!detail) continue;
      else if (bits & LEAVE) {
        const x = (engRow ??= e.eng)[i], y = (depthRow ??= e.depth)[i];
        if (x === x) {
          engSum += x;
          engN++;
        }
        if (y === y) {
          depthSum += y;
          depthN++;
        }
      } else if ((bits & (AUTO | RAGE)) === (AUTO | RAGE)) rage++;
    }
  }
  let sessions = 0, bounces = 0, dur = 0, dropped = 0;
  const { pvS, first, last, drops } = p;
  const hasDrops = drops.length > 0;
  for (let s = 0; s < matched.length; s++) {
    if (!matched[s]) continue;
    sessions++;
    if (hasDrops) dropped += drops[s];
    if (hasFacts) {
      if (pvS[s] <= 1) bounces++;
      dur += last[s] - first[s];
    }
  }
  r.events[0] = events;
  r.pageviews[0] = pageviews;
  r.visitors[0] = visitors;
  if (conv !== null) r.convs[0] = convs;
  r.engaged[0] = engaged;
  r.sessions[0] = sessions;
  r.bounces[0] = bounces;
  r.dur[0] = dur;
  r.exits[0] = exits;
  r.entries[0] = entries;
  r.engSum[0] = engSum;
  r.engN[0] = engN;
  r.depthSum[0] = depthSum;
  r.depthN[0] = depthN;
  r.rage[0] = rage;
  r.dropped[0] = dropped;
}

function fullLoop(p: Pass, r: Run) {
  const { rb, rk, states, split, nSes, hasFacts, engagedS, pvS, first, last, entryB, entryR, exitB, exitR } =
    p;
  const { events, pageviews, visitors, lastVis, conv, convs, engaged, lastEng, lastSes, sessions } = r;
  const { bounces, dur, exits, entries, engSum, engN, depthSum, depthN, rage, splitSeen, dropped } = r;
  const perSession = r.perSession, wantEngaged = hasFacts && r.wantEngaged;
  const drops = p.drops, hasDrops = drops.length > 0;
  for (let q = 0; q < rb.length; q++) {
    if (states[q] === NO_ROWS) continue;
    const b = rb[q], k = rk[q], e = p.batches[b], m = p.masks[b], gid = r.gs.gids[b];
    const bitsRow = e.bits, visRow = e.vis, sesRow = e.ses, engRow = e.eng, depthRow = e.depth;
    for (let i = e.runStart[k], end = e.runStart[k + 1]; i < end; i++) {
      if (!m[i]) continue;
      const g = gid[i], bits = bitsRow[i], v = visRow[i], s = sesRow[i];
      events[g]++;
      if (bits & HUMAN) {
        if (lastVis[g] !== v) {
          lastVis[g] = v;
          visitors[g]++;
          if (conv !== null && conv[v]) convs[g]++;
        }
        if (wantEngaged && engagedS[s] && lastEng[g] !== v) {
          lastEng[g] = v;
          engaged[g]++;
        }
      }
      if (perSession && lastSes[g] !== s) {
        lastSes[g] = s;
        let fresh = true;
        if (split[s]) {
          const key = g * nSes + s;
          if (splitSeen.has(key)) fresh = false;
          else splitSeen.add(key);
        }
        if (fresh) {
          sessions[g]++;
          if (hasDrops) dropped[g] += drops[s];
          if (hasFacts) {
            if (pvS[s] <= 1) bounces[g]++;
            dur[g] += last[s] - first[s];
          }
        }
      }
      if (bits & PV) {
        pageviews[g]++;
        if (hasFacts && exitR[s] === i && exitB[s] === b) exits[g]++;
        if (hasFacts && entryR[s] === i && entryB[s] === b) entries[g]++;
      } else if (bits & LEAVE) {
        const x = engRow[i], y = depthRow[i];
        if (x === x) {
          engSum[g] += x;
          engN[g]++;
        }
        if (y === y) {
          depthSum[g] += y;
          depthN[g]++;
        }
      } else if ((bits & (AUTO | RAGE)) === (AUTO | RAGE)) rage[g]++;
    }
  }
}

function values(o: AggregateOptions, a: Run, g: number): MetricValues {
  const r = (x: number, y: number) => (y > 0 ? x / y : null);
  const s = a.sessions[g];
  const all: Record<Metric, () => number | null> = {
    visitors: () => a.visitors[g],
    engaged_visitors: () => a.engaged[g],
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
    dropped_events: () => a.dropped[g],
  };
  return Object.fromEntries(o.metrics.map((m) => [m, all[m]()]));
}

const PER_SESSION = new Set<Metric>([
  "sessions",
  "views_per_session",
  "bounce_rate",
  "session_duration_s",
  "dropped_events",
]);
const EXITS = new Set<Metric>(["exits", "entries", "exit_rate"]);
const DETAIL = new Set<Metric>(["engagement_time_s", "scroll_depth_percent", "rage_clicks"]);

/**
 * A bucketed breakdown by at most one plain field with few groups: group = value number * buckets + bucket,
 * the same in every question over the scope, so each batch's row groups are kept with the batch (a raw tail
 * then costs only its own rows).
 */
function stableGroups(c: Ctx, masks: Uint8Array[], o: AggregateOptions): GroupSource | null {
  const fields = o.breakdown ?? [];
  const sessionLevel = (f: string) => f === "entry_page" || f === "exit_page";
  if (!o.bucket || fields.length > 1 || fields.some(sessionLevel) || !c.batches.length) return null;
  if (c.scope.filters?.some((x) => sessionLevel(x.field))) return null;
  const f = fields[0];
  const ids = f ? c.batches.map((e) => fieldIds(e, f)) : null;
  const values = f ? c.batches[0].interner.valueIds(f).values : [null];
  const bt = bucketTable(c, o.bucket), width = bt.labels.length;
  if (values.length * width > MAX_DIRECT_GROUPS) return null;
  const key = `grp:${
    JSON.stringify([c.scopeKey, c.scope.timezone, c.scope.filters ?? [], fields, o.bucket])
  }`;
  const gids = c.batches.map((e, b) => {
    const kept = e.ids.get(key);
    if (kept) return kept;
    const m = masks[b], out = new Int32Array(e.n).fill(-1), ranges = matchingRanges(e, m);
    const buckets = new Int32Array(e.n);
    bucketIds(e.t, m, bt.table, bt.slot0, buckets);
    stableIds(m, ranges, ids ? ids[b] : null, buckets, width, out);
    keepIds(e, key, out);
    return out;
  });
  return {
    gids,
    size: values.length * width,
    key: (g) => {
      const k: Record<string, KeyValue> = {};
      if (f) k[f] = values[Math.floor(g / width)];
      k.bucket = bt.labels[g % width];
      return k;
    },
  };
}

function stableIds(
  m: Uint8Array,
  ranges: Int32Array,
  ids: Int32Array | null,
  buckets: Int32Array,
  width: number,
  out: Int32Array,
) {
  for (let j = 0; j < ranges.length; j += 2) {
    for (let i = ranges[j]; i < ranges[j + 1]; i++) {
      if (m[i]) out[i] = (ids === null ? 0 : ids[i] * width) + buckets[i];
    }
  }
}

/** Row groups of a bucketed or several-field breakdown, kept across the questions over one period. */
function keptGroups(c: Ctx, masks: Uint8Array[], o: AggregateOptions): GroupSource {
  const stable = stableGroups(c, masks, o);
  if (stable) return stable;
  const key = JSON.stringify([
    c.scopeKey,
    c.scope.timezone,
    c.scope.filters ?? [],
    o.breakdown ?? [],
    o.bucket,
  ]);
  const memo = c.tail ? undefined : c.memo;
  const kept = memo?.groups.get(key) as GroupSource | undefined;
  if (kept) return kept;
  const gs = groupRows(c, masks, o.breakdown ?? [], o.bucket);
  if (memo) {
    if (memo.groups.size >= 4) memo.groups.delete(memo.groups.keys().next().value!);
    memo.groups.set(key, gs);
  }
  return gs;
}

const LEAN = new Set<Metric>(["events", "pageviews", "visitors", "conversions", "conversion_rate"]);
const whole = (o: AggregateOptions) => !o.breakdown?.length && !o.bucket;

export function aggregateMany(c: Ctx, list: AggregateOptions[]): AggregateResult[] {
  const needFacts = list.some((o) =>
    o.metrics.some((m) => SESSION_METRICS.has(m)) ||
    [...(o.breakdown ?? []), ...(c.scope.filters ?? []).map((f) => f.field)]
      .some((f) => f === "entry_page" || f === "exit_page")
  );
  const facts = needFacts ? sessionFacts(c) : null;
  const drops = list.some((o) => o.metrics.includes("dropped_events")) ? droppedBySession(c) : null;
  const masks = matchMasks(c, c.scope.filters);
  // totals depend only on the scope and the goal: one run without breakdown per goal serves every question
  const convs = new Map<string, Uint8Array | null>();
  const convOf = (o: AggregateOptions) => {
    const k = JSON.stringify(o.goal ?? null);
    if (!convs.has(k)) convs.set(k, converted(c, o.goal));
    return convs.get(k)!;
  };
  const totals = new Map<string, Run>();
  const runs: Run[] = [];
  const totalRun = (o: AggregateOptions) => {
    const k = JSON.stringify(o.goal ?? null);
    let t = totals.get(k);
    if (!t) {
      const detail = list.some((x) =>
        JSON.stringify(x.goal ?? null) === k && x.metrics.some((m) => DETAIL.has(m))
      );
      const exits = list.some((x) =>
        JSON.stringify(x.goal ?? null) === k && x.metrics.some((m) => EXITS.has(m))
      );
      totals.set(k, t = new Run(directGroups(c, [], undefined)!, true, convOf(o), detail, true, true, exits));
      runs.push(t);
    }
    return t;
  };
  for (const o of list) if (whole(o)) totalRun(o);
  const mine = list.map((o) => {
    if (whole(o)) return totalRun(o);
    const gs = directGroups(c, o.breakdown ?? [], o.bucket) ?? keptGroups(c, masks, o);
    const perSession = o.metrics.some((m) => PER_SESSION.has(m));
    const run = new Run(
      gs,
      !o.metrics.every((m) => LEAN.has(m)),
      convOf(o),
      true,
      perSession,
      o.metrics.includes("engaged_visitors"),
    );
    runs.push(run);
    return run;
  });
  for (const o of list) totalRun(o);
  pass(c, runs, masks, facts, drops);
  return list.map((o, k) => {
    const run = mine[k];
    const rows: Row[] = [];
    if (!whole(o)) {
      for (let g = 0; g < run.gs.size; g++) {
        if (run.events[g] > 0) rows.push({ key: run.gs.key(g), metrics: values(o, run, g) });
      }
    } else if (run.events[0] > 0) rows.push({ key: {}, metrics: values(o, run, 0) });
    const by = o.sort?.by ?? o.metrics[0];
    sortRows(rows, by, o.sort?.desc ?? (by !== "key"));
    const offset = o.offset ?? 0;
    return {
      totals: values(o, totals.get(JSON.stringify(o.goal ?? null))!, 0),
      rows: rows.slice(offset, o.limit === undefined ? undefined : offset + o.limit),
      total_rows: rows.length,
    };
  });
}
