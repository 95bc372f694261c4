/**
 * Paths without holding the period: when its parts would not fit the scan's budget, they are read one at a
 * time, twice. The first read marks the sessions with an anchor row in scope (a byte a session); the second
 * keeps, of those sessions only, the rows that are steps or anchors, as numbers (label, order, session,
 * visitor: 37 bytes a row). Rows are then ordered session by session, sessions visitor by visitor (counting
 * sorts), and walked as `paths` walks them. The same answer as the scan over all batches (tests/lib/query/paths_stream_test.ts).
 */
import { eventView } from "../columns/views.ts";
import type { ScanContexts } from "../scan/contexts.ts";
import { makeCtx } from "../scan/ctx.ts";
import type { PathsOptions, PathsResult } from "../sequence_types.ts";
import type { Scope } from "../types.ts";
import { type Count, note, paths, pathsResult } from "./paths.ts";
import { stepBits } from "./steps.ts";

/** Paths streamed when the period's parts would not fit the budget, else by the scan. */
export async function scanPaths(scans: ScanContexts, s: Scope, o: PathsOptions): Promise<PathsResult> {
  const sessionLevel = [...(s.filters ?? []), ...(o.anchor.filters ?? [])].some((f) =>
    f.field === "entry_page" || f.field === "exit_page"
  );
  if (s.cohort || sessionLevel || !(await scans.tooLarge(s))) return paths(await scans.of(s), o);
  return streamPaths(scans, s, o);
}

/** Rows kept for the walk, in growable typed arrays. */
class Rows {
  n = 0;
  t = new Float64Array(1024);
  dt = new Float64Array(1024);
  seq = new Float64Array(1024);
  ses = new Int32Array(1024);
  vis = new Int32Array(1024);
  /** label number, -1: not a step (an anchor row that is no step) */
  label = new Int32Array(1024);
  anchor = new Uint8Array(1024);
  push(t: number, dt: number, seq: number, ses: number, vis: number, label: number, anchor: number) {
    if (this.n === this.t.length) {
      const more = <T extends Float64Array | Int32Array | Uint8Array>(a: T): T => {
        const x = new (a.constructor as { new (n: number): T })(a.length * 2);
        x.set(a);
        return x;
      };
      this.t = more(this.t);
      this.dt = more(this.dt);
      this.seq = more(this.seq);
      this.ses = more(this.ses);
      this.vis = more(this.vis);
      this.label = more(this.label);
      this.anchor = more(this.anchor);
    }
    const k = this.n++;
    this.t[k] = t;
    this.dt[k] = dt;
    this.seq[k] = seq;
    this.ses[k] = ses;
    this.vis[k] = vis;
    this.label[k] = label;
    this.anchor[k] = anchor;
  }
}

export async function streamPaths(scans: ScanContexts, s: Scope, o: PathsOptions): Promise<PathsResult> {
  const source = scans.source, interner = source.interner(s.org, s.env);
  const depth = o.depth ?? 3, mode = o.step ?? "page";
  const ctxOf = (e: Parameters<typeof makeCtx>[0][0]) =>
    makeCtx([e], s, interner.visitorCount, interner.sessionCount);
  // first read: sessions with an anchor row in scope
  let anchored = new Uint8Array(0);
  await source.stream(s.org, s.env, s.from, s.to, {
    begin: () => (anchored = new Uint8Array(0)),
    visit: (e) => {
      if (anchored.length < interner.sessionCount) {
        const more = new Uint8Array(Math.max(interner.sessionCount, anchored.length * 2));
        more.set(anchored);
        anchored = more;
      }
      const bits = stepBits(ctxOf(e), [o.anchor])[0], ses = e.ses;
      for (let i = 0; i < e.n; i++) if (bits[i]) anchored[ses[i]] = 1;
    },
  });
  // second read: their rows that are steps or anchors
  let rows = new Rows();
  let labels = new Map<string, number>(), names: string[] = [];
  const labelOf = (v: string) => {
    let id = labels.get(v);
    if (id === undefined) {
      labels.set(v, id = names.length);
      names.push(v);
    }
    return id;
  };
  await source.stream(s.org, s.env, s.from, s.to, {
    begin: () => {
      rows = new Rows();
      labels = new Map();
      names = [];
    },
    visit: (e) => {
      const c = ctxOf(e), m = c.inScope[0], bits = stepBits(c, [o.anchor])[0];
      const et = eventView(e, "event_type"), page = eventView(e, "page");
      // per event type code: -1 not a step, -2 its page is the step, else the event type's label
      const byType = Int32Array.from(et.values, (v) => {
        if (v === null) return -1;
        if (mode === "event") return labelOf(v);
        if (v === "$pageview") return -2;
        return mode === "page_or_event" && !v.startsWith("$") ? labelOf(v) : -1;
      });
      const byPage = Int32Array.from(page.values, (v) => labelOf(v ?? ""));
      const noPage = labelOf("");
      for (let i = 0; i < e.n; i++) {
        const x = e.ses[i];
        if (!m[i] || x >= anchored.length || !anchored[x]) continue;
        let l = byType[et.codes[i]];
        if (l === -2) l = page.codes.length ? byPage[page.codes[i]] : noPage;
        if (l < 0 && !bits[i]) continue;
        rows.push(e.t[i], e.dt[i], e.seq[i], x, e.vis[i], l, bits[i]);
      }
    },
  });
  // rows session by session (counting sorts: by session, then sessions by visitor), each session in order
  const bySession = countingOrder(rows.ses, rows.n);
  const sessionsOf = new Int32Array(bySession.keys.length);
  bySession.keys.forEach((x, j) => (sessionsOf[j] = rows.vis[bySession.idx[bySession.start[x]]]));
  const byVisitor = countingOrder(sessionsOf, sessionsOf.length);
  const counts = Array.from({ length: depth }, () => new Map<string, Count>());
  const seqs = new Map<string, Count>();
  let sessions = 0, visitors = 0, lastVis = -1;
  const step = o.direction === "after" ? 1 : -1;
  const { t, dt, seq } = rows;
  const cmp = (a: number, b: number) => t[a] - t[b] || dt[a] - dt[b] || seq[a] - seq[b] || a - b;
  for (const g of byVisitor.idx) {
    const x = bySession.keys[g];
    const list = bySession.idx.subarray(bySession.start[x], bySession.start[x + 1]).sort(cmp);
    const at = list.findIndex((k) => rows.anchor[k] === 1);
    if (at < 0) continue;
    const vis = rows.vis[list[0]];
    sessions++;
    if (lastVis !== vis) {
      lastVis = vis;
      visitors++;
    }
    const path: string[] = [];
    let prev = rows.label[list[at]];
    for (let j = at + step; j >= 0 && j < list.length; j += step) {
      const l = rows.label[list[j]];
      if (l < 0 || l === prev) continue;
      path.push(names[l]);
      prev = l;
      if (path.length === depth) break;
    }
    if (path.length < depth) path.push("(end)");
    path.forEach((l, i) => note(counts[i], l, vis));
    note(seqs, JSON.stringify(path), vis);
  }
  return pathsResult(o, counts, seqs, sessions, visitors);
}

/**
 * Positions 0..n-1 grouped by their number in `of` (a counting sort, stable): idx lists them group by
 * group, group g at idx[start[g] .. start[g + 1]); keys are the numbers that occur, ascending.
 */
function countingOrder(of: Int32Array, n: number): { idx: Int32Array; start: Int32Array; keys: number[] } {
  let max = -1;
  for (let k = 0; k < n; k++) if (of[k] > max) max = of[k];
  const start = new Int32Array(max + 2);
  for (let k = 0; k < n; k++) start[of[k] + 1]++;
  const keys: number[] = [];
  for (let g = 0; g <= max; g++) {
    if (start[g + 1] > 0) keys.push(g);
    start[g + 1] += start[g];
  }
  const at = start.slice(0, max + 1), idx = new Int32Array(n);
  for (let k = 0; k < n; k++) idx[at[of[k]]++] = k;
  return { idx, start, keys };
}
