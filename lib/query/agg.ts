/** Aggregates over prepared batches: group ids per row, then one visitor-major pass for exact counts. */
import { sortRows } from "./naive.ts";
import { eventView, numericProp, viewAt } from "./prepared.ts";
import { compileFilters, type Ctx, matchMasks, sessionFacts, sessionPage, visitorOrder } from "./scan.ts";
import { bucketer } from "./time.ts";
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

class Acc {
  events: number[] = [];
  pageviews: number[] = [];
  visitors: number[] = [];
  sessions: number[] = [];
  bounces: number[] = [];
  dur: number[] = [];
  engSum: number[] = [];
  engN: number[] = [];
  depthSum: number[] = [];
  depthN: number[] = [];
  exits: number[] = [];
  entries: number[] = [];
  rage: number[] = [];
  conv: number[] = [];
  lastVis: number[] = [];
  lastSes: number[] = [];
  grow(g: number) {
    while (this.events.length <= g) {
      for (
        const a of [
          this.events,
          this.pageviews,
          this.visitors,
          this.sessions,
          this.bounces,
          this.dur,
          this.engSum,
          this.engN,
          this.depthSum,
          this.depthN,
          this.exits,
          this.entries,
          this.rage,
          this.conv,
        ]
      ) a.push(0);
      this.lastVis.push(-1);
      this.lastSes.push(-1);
    }
  }
  values(g: number, metrics: Metric[]): MetricValues {
    const r = (a: number, b: number) => (b > 0 ? a / b : null);
    const s = this.sessions[g];
    const all: Record<Metric, () => number | null> = {
      visitors: () => this.visitors[g],
      sessions: () => s,
      pageviews: () => this.pageviews[g],
      events: () => this.events[g],
      views_per_session: () => r(this.pageviews[g], s),
      bounce_rate: () => r(this.bounces[g], s),
      session_duration_s: () => (s > 0 ? this.dur[g] / s / 1000 : null),
      engagement_time_s: () => (this.engN[g] > 0 ? this.engSum[g] / this.engN[g] / 1000 : null),
      scroll_depth_percent: () => r(this.depthSum[g], this.depthN[g]),
      exits: () => this.exits[g],
      entries: () => this.entries[g],
      exit_rate: () => r(this.exits[g], this.pageviews[g]),
      rage_clicks: () => this.rage[g],
      conversions: () => this.conv[g],
      conversion_rate: () => r(this.conv[g], this.visitors[g]),
    };
    return Object.fromEntries(metrics.map((m) => [m, all[m]()]));
  }
}

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
  const buckets = new Map<KeyValue, number>(), bucketLabels: KeyValue[] = [];
  const bucketOf = bucket ? bucketer(bucket, c.scope.timezone) : null;
  const slotIds = new Map<number, number>();
  const groups = new Map<number | string, number>();
  const components = fields.length + (bucket ? 1 : 0);
  const keys: Record<string, KeyValue>[] = [];
  const rowGroup = c.batches.map((e, b) => {
    const m = masks[b];
    const out = new Int32Array(e.n).fill(-1);
    const getters = fields.map((f, d): (i: number) => number => {
      if (f === "entry_page" || f === "exit_page") return (i) => idOf(d, sessionPage(c, e.ses[i], f));
      const v = eventView(e, f);
      const ids = Int32Array.from(v.values, (s) => idOf(d, s));
      return v.codes.length ? (i) => ids[v.codes[i]] : () => ids[0];
    });
    for (let i = 0; i < e.n; i++) {
      if (!m[i]) continue;
      let bid = 0;
      if (bucketOf) {
        const slot = Math.floor(e.t[i] / 900_000);
        let got = slotIds.get(slot);
        if (got === undefined) {
          const label = bucketOf(e.t[i]);
          got = buckets.get(label);
          if (got === undefined) {
            buckets.set(label, got = bucketLabels.length);
            bucketLabels.push(label);
          }
          slotIds.set(slot, got);
        }
        bid = got;
      }
      // up to two components pack into one exact number; more use a string key
      let key: number | string;
      if (components <= 1) key = getters.length ? getters[0](i) : bid;
      else if (components === 2) {
        key = getters.length === 2
          ? getters[0](i) * 67_108_864 + getters[1](i)
          : getters[0](i) * 65_536 + bid;
      } else key = getters.map((gf) => gf(i)).join(",") + "," + bid;
      let g = groups.get(key);
      if (g === undefined) {
        g = keys.length;
        groups.set(key, g);
        const k: Record<string, KeyValue> = {};
        fields.forEach((f, d) => (k[f] = dimValues[d][getters[d](i)]));
        if (bucketOf) k.bucket = bucketLabels[bid];
        keys.push(k);
      }
      out[i] = g;
    }
    return out;
  });
  return { rowGroup, keys };
}

export function aggregateMany(c: Ctx, list: AggregateOptions[]): AggregateResult[] {
  const needSession = list.some((o) =>
    o.metrics.some((m) => SESSION_METRICS.has(m)) ||
    [...(o.breakdown ?? []), ...(c.scope.filters ?? []).map((f) => f.field)]
      .some((f) => f === "entry_page" || f === "exit_page")
  );
  const facts = needSession ? sessionFacts(c) : null;
  const masks = matchMasks(c, c.scope.filters);
  const order = visitorOrder(c);
  return list.map((o) => {
    const grouping = groupRows(c, masks, o.breakdown ?? [], o.bucket);
    const conv = converted(c, o.goal);
    const acc = new Acc(), tot = new Acc();
    acc.grow(grouping.keys.length - 1);
    tot.grow(0);
    const views = c.batches.map((e) => ({
      et: eventView(e, "event_type").codes,
      tr: eventView(e, "traffic"),
      eng: numericProp(e, "engagement_time_ms"),
      depth: numericProp(e, "depth_percent"),
      rage: eventView(e, "prop:rage_click"),
    }));
    const add = (a: Acc, g: number, b: number, i: number) => {
      const e = c.batches[b], vw = views[b];
      const bits = c.etBits[b][vw.et[i]];
      const s = e.ses[i];
      a.events[g]++;
      if (bits & 1) {
        a.pageviews[g]++;
        if (facts && facts.exitB[s] === b && facts.exitR[s] === i) a.exits[g]++;
        if (facts && facts.entryB[s] === b && facts.entryR[s] === i) a.entries[g]++;
      } else if (bits & 2) {
        const x = vw.eng.nums[vw.eng.codes[i] ?? 0];
        if (!Number.isNaN(x)) {
          a.engSum[g] += x;
          a.engN[g]++;
        }
        const d = vw.depth.nums[vw.depth.codes[i] ?? 0];
        if (!Number.isNaN(d)) {
          a.depthSum[g] += d;
          a.depthN[g]++;
        }
      } else if (bits & 4 && viewAt(vw.rage, i) === "true") a.rage[g]++;
      if (c.human[b][vw.tr.codes[i]]) {
        const v = e.vis[i];
        if (a.lastVis[g] !== v) {
          a.lastVis[g] = v;
          a.visitors[g]++;
          if (conv && conv[v]) a.conv[g]++;
        }
      }
      if (a.lastSes[g] !== s) {
        a.lastSes[g] = s;
        a.sessions[g]++;
        if (facts) {
          if (facts.pv[s] <= 1) a.bounces[g]++;
          a.dur[g] += facts.last[s] - facts.first[s];
        }
      }
    };
    for (let p = 0; p < order.rb.length; p++) {
      const b = order.rb[p], k = order.rk[p], e = c.batches[b], rg = grouping.rowGroup[b];
      for (let i = e.runStart[k]; i < e.runStart[k + 1]; i++) {
        const g = rg[i];
        if (g < 0) continue;
        add(acc, g, b, i);
        add(tot, 0, b, i);
      }
    }
    const rows: Row[] = grouping.keys.map((key, g) => ({ key, metrics: acc.values(g, o.metrics) }));
    const by = o.sort?.by ?? o.metrics[0];
    sortRows(rows, by, o.sort?.desc ?? (by !== "key"));
    const offset = o.offset ?? 0;
    return {
      totals: tot.values(0, o.metrics),
      rows: rows.slice(offset, o.limit === undefined ? undefined : offset + o.limit),
      total_rows: rows.length,
    };
  });
}
