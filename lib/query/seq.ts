/** Sequence questions over prepared batches: sessions, funnels, paths, retention, property names. */
import { type EvBatch, eventView } from "./prepared.ts";
import { compileFilters, type Ctx, matchMasks, visitorOrder } from "./scan.ts";
import { bucketer, bucketsBetween } from "./time.ts";
import type {
  FunnelOptions,
  FunnelResult,
  PathsOptions,
  PathsResult,
  RetentionOptions,
  RetentionResult,
  SessionSeq,
  SessionsOptions,
  StepDef,
} from "./types.ts";

/** A row reference: batch b, row i. */
export interface Ref {
  b: number;
  i: number;
}

const cmpRef = (c: Ctx) => (x: Ref, y: Ref) => {
  const a = c.batches[x.b], b = c.batches[y.b];
  return a.t[x.i] - b.t[y.i] || a.dt[x.i] - b.dt[y.i] || a.seq[x.i] - b.seq[y.i];
};

/** Calls `fn` once per session with its in-scope rows in order (visitor by visitor). */
export function forEachSession(c: Ctx, fn: (ses: number, vis: number, rows: Ref[]) => void) {
  const { rb, rk, split } = visitorOrder(c);
  const cmp = cmpRef(c);
  let pending = new Map<number, Ref[]>(); // sessions split across batches, until their visitor is done
  let pendingVis = -1;
  const flush = () => {
    for (const [ses, rows] of pending) {
      if (!rows.length) continue;
      rows.sort(cmp);
      fn(ses, pendingVis, rows);
    }
    pending = new Map();
  };
  for (let p = 0; p < rb.length; p++) {
    const b = rb[p], k = rk[p], e = c.batches[b], ses = e.runSes[k], vis = e.runVis[k], m = c.inScope[b];
    if (vis !== pendingVis) {
      if (pending.size) flush();
      pendingVis = vis;
    }
    let rows: Ref[] | undefined = split[ses] ? pending.get(ses) : undefined;
    if (split[ses] && !rows) pending.set(ses, rows = []);
    const own: Ref[] = rows ?? [];
    for (let i = e.runStart[k]; i < e.runStart[k + 1]; i++) if (m[i]) own.push({ b, i });
    if (!split[ses] && own.length) fn(ses, vis, own);
  }
  if (pending.size) flush();
}

const str = (c: Ctx, r: Ref, field: string) => {
  const v = eventView(c.batches[r.b], field);
  return v.codes.length ? v.values[v.codes[r.i]] : null;
};

export function sessions(c: Ctx, opts: SessionsOptions): SessionSeq[] {
  const matchFilters = opts.matchFilters ?? true;
  const masks = matchFilters && c.scope.filters?.length ? matchMasks(c, c.scope.filters) : null;
  const found: { rows: Ref[]; vis: number }[] = [];
  forEachSession(c, (_s, vis, rows) => {
    if (masks && !rows.some((r) => masks[r.b][r.i])) return;
    found.push({ rows, vis });
  });
  const cmp = cmpRef(c);
  found.sort((x, y) => -cmp(x.rows[0], y.rows[0]));
  const visitors = new Map<number, number>();
  return found.slice(0, opts.limit).map(({ rows, vis }, k) => {
    if (!visitors.has(vis)) visitors.set(vis, visitors.size);
    const f = rows[0], last = rows.reduce((m, r) => Math.max(m, c.batches[r.b].t[r.i]), -Infinity);
    return {
      visitor: visitors.get(vis)!,
      session: k,
      start: c.batches[f.b].t[f.i],
      end: last,
      source: str(c, f, "source")!,
      channel: str(c, f, "channel")!,
      country: str(c, f, "country"),
      device_type: str(c, f, "device_type")!,
      steps: rows.map((r) => ({
        t: c.batches[r.b].t[r.i],
        event_type: str(c, r, "event_type")!,
        page: str(c, r, "page")!,
        element: str(c, r, "element"),
      })),
    };
  });
}

/** Per batch and row: bit k set when the row (in scope) matches step k. */
function stepBits(c: Ctx, steps: StepDef[]): Uint8Array[] {
  return c.batches.map((e, b) => {
    const out = new Uint8Array(e.n);
    const et = eventView(e, "event_type");
    steps.forEach((st, k) => {
      const code = et.values.indexOf(st.event_type);
      if (code < 1) return;
      const pred = compileFilters(c, b, st.filters);
      const m = c.inScope[b];
      for (let i = 0; i < e.n; i++) if (m[i] && et.codes[i] === code && (!pred || pred(i))) out[i] |= 1 << k;
    });
    return out;
  });
}

const ratio = (a: number, b: number) => (b > 0 ? a / b : null);

export function funnel(c: Ctx, opts: FunnelOptions): FunnelResult {
  const bits = stepBits(c, opts.steps);
  const nSteps = opts.steps.length;
  const reached = new Array(nSteps).fill(0);
  const cmp = cmpRef(c);
  const walk = (rows: Ref[]) => {
    let best = 0;
    for (let s = 0; s < rows.length && best < nSteps; s++) {
      if (!(bits[rows[s].b][rows[s].i] & 1)) continue;
      const t0 = c.batches[rows[s].b].t[rows[s].i];
      let n = 1;
      for (let j = s + 1; j < rows.length && n < nSteps; j++) {
        const r = rows[j];
        if (opts.window_ms !== undefined && c.batches[r.b].t[r.i] - t0 > opts.window_ms) break;
        if (bits[r.b][r.i] & (1 << n)) n++;
      }
      best = Math.max(best, n);
      if (opts.window_ms === undefined) break;
    }
    for (let i = 0; i < best; i++) reached[i]++;
  };
  if (opts.by === "session") {
    forEachSession(c, (_s, _v, rows) => walk(rows.filter((r) => bits[r.b][r.i])));
  } else {
    const { rb, rk } = visitorOrder(c);
    let p = 0;
    while (p < rb.length) {
      const vis = c.batches[rb[p]].runVis[rk[p]];
      const rows: Ref[] = [];
      let runs = 0;
      for (; p < rb.length && c.batches[rb[p]].runVis[rk[p]] === vis; p++, runs++) {
        const b = rb[p], e = c.batches[b], hb = c.human[b], tr = eventView(e, "traffic").codes;
        for (let i = e.runStart[rk[p]]; i < e.runStart[rk[p] + 1]; i++) {
          if (bits[b][i] && hb[tr[i]]) rows.push({ b, i });
        }
      }
      if (rows.length === 0) continue;
      if (runs > 1) rows.sort(cmp);
      walk(rows);
    }
  }
  return {
    unit: opts.by === "session" ? "session" : "visitor",
    steps: reached.map((count, i) => ({
      index: i + 1,
      count,
      conversion_from_start: ratio(count, reached[0]),
      conversion_from_previous: i === 0 ? null : ratio(count, reached[i - 1]),
      dropped: i === 0 ? 0 : reached[i - 1] - count,
    })),
  };
}

export function paths(c: Ctx, opts: PathsOptions): PathsResult {
  const depth = opts.depth ?? 3;
  const byPage = (opts.step ?? "page") === "page";
  const anchorBits = stepBits(c, [opts.anchor]);
  const counts = Array.from({ length: depth }, () => new Map<string, number>());
  const seqs = new Map<string, number>();
  let total = 0;
  const isPv = (r: Ref) => c.etBits[r.b][eventView(c.batches[r.b], "event_type").codes[r.i]] & 1;
  const label = (r: Ref) => str(c, r, byPage ? "page" : "event_type")!;
  forEachSession(c, (_s, _v, rows) => {
    const at = rows.findIndex((r) => anchorBits[r.b][r.i]);
    if (at < 0) return;
    total++;
    const labels: string[] = [];
    let prev = byPage && !isPv(rows[at]) ? null : label(rows[at]);
    const step = opts.direction === "after" ? 1 : -1;
    for (let j = at + step; j >= 0 && j < rows.length; j += step) {
      if (byPage && !isPv(rows[j])) continue;
      const l = label(rows[j]);
      if (l === prev) continue;
      labels.push(l);
      prev = l;
      if (labels.length === depth) break;
    }
    if (labels.length < depth) labels.push("(end)");
    labels.forEach((l, i) => counts[i].set(l, (counts[i].get(l) ?? 0) + 1));
    const k = JSON.stringify(labels);
    seqs.set(k, (seqs.get(k) ?? 0) + 1);
  });
  const top = (m: Map<string, number>) =>
    [...m].map(([value, n]) => ({ value, sessions: n })).sort((a, b) =>
      b.sessions - a.sessions || (a.value < b.value ? -1 : 1)
    );
  const limit = opts.limit ?? 25;
  return {
    sessions: total,
    steps: counts.map((m, i) => ({ depth: i + 1, rows: top(m).slice(0, limit), total_rows: m.size })),
    sequences: [...seqs].map(([k, n]) => ({ steps: JSON.parse(k) as string[], sessions: n }))
      .sort((a, b) => b.sessions - a.sessions || (JSON.stringify(a.steps) < JSON.stringify(b.steps) ? -1 : 1))
      .slice(0, limit),
  };
}

export function retention(c: Ctx, opts: RetentionOptions): RetentionResult {
  const periods = bucketsBetween(c.scope.from, c.scope.to, opts.period, c.scope.timezone);
  const index = new Map(periods.map((p, i) => [p.label, i]));
  const bucketOf = bucketer(opts.period, c.scope.timezone);
  const words = Math.max(1, Math.ceil(periods.length / 32));
  const active = new Uint32Array(c.nVis * words);
  const seen = new Uint8Array(c.nVis);
  const masks = matchMasks(c, c.scope.filters);
  c.batches.forEach((e: EvBatch, b) => {
    const m = masks[b], hb = c.human[b], tr = eventView(e, "traffic").codes;
    for (let i = 0; i < e.n; i++) {
      if (!m[i] || !hb[tr[i]]) continue;
      const p = index.get(bucketOf(e.t[i]))!;
      const v = e.vis[i];
      active[v * words + (p >> 5)] |= 1 << (p & 31);
      seen[v] = 1;
    }
  });
  const cohorts = periods.map((p, i) => ({
    cohort: String(p.label),
    visitors: 0,
    counts: new Array(Math.min(opts.periods ?? Infinity, periods.length - 1 - i) + 1).fill(0) as number[],
  }));
  for (let v = 0; v < c.nVis; v++) {
    if (!seen[v]) continue;
    let first = -1;
    for (let p = 0; p < periods.length; p++) {
      if (!(active[v * words + (p >> 5)] & (1 << (p & 31)))) continue;
      if (first < 0) {
        first = p;
        cohorts[p].visitors++;
      }
      const d = p - first;
      if (d < cohorts[first].counts.length) cohorts[first].counts[d]++;
    }
  }
  return { cohorts };
}

export function propertyKeys(
  c: Ctx,
  eventType?: string,
): { key: string; events: number; visitors: number }[] {
  const masks = matchMasks(c, c.scope.filters);
  const stats = new Map<string, { events: number; visitors: number; last: number }>();
  const { rb, rk } = visitorOrder(c);
  const perBatch = c.batches.map((e) => {
    const own = Object.keys(e.b.cols).filter((k) => k.startsWith("p:")).map((k) => ({
      key: k.slice(2),
      codes: (e.b.cols[k] as { codes: ArrayLike<number> }).codes,
    }));
    const rest = eventView(e, "p*" as never);
    const restKeys = rest.values.map((s) => (s === null ? [] : Object.keys(JSON.parse(s))));
    const et = eventView(e, "event_type");
    return {
      own,
      rest,
      restKeys,
      et,
      etCode: eventType === undefined ? -1 : et.values.indexOf(eventType),
      tr: eventView(e, "traffic").codes,
    };
  });
  for (let p = 0; p < rb.length; p++) {
    const b = rb[p], e = c.batches[b], pb = perBatch[b], m = masks[b];
    for (let i = e.runStart[rk[p]]; i < e.runStart[rk[p] + 1]; i++) {
      if (!m[i] || (eventType !== undefined && pb.et.codes[i] !== pb.etCode)) continue;
      const human = c.human[b][pb.tr[i]] === 1;
      const note = (key: string) => {
        let s = stats.get(key);
        if (!s) stats.set(key, s = { events: 0, visitors: 0, last: -1 });
        s.events++;
        if (human && s.last !== e.vis[i]) {
          s.last = e.vis[i];
          s.visitors++;
        }
      };
      for (const o of pb.own) if (o.codes[i]) note(o.key);
      if (pb.rest.codes.length) { for (const k of pb.restKeys[pb.rest.codes[i]]) note(k); }
    }
  }
  return [...stats].map(([key, s]) => ({ key, events: s.events, visitors: s.visitors }))
    .sort((a, b) => b.events - a.events || (a.key < b.key ? -1 : 1));
}
