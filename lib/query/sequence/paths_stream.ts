/**
 * Paths without holding the period: when its parts would not fit the scan's budget, they are read one at a
 * time, twice. The first read marks the sessions with an anchor row in scope (a byte a session); the second
 * keeps, of those sessions only, the rows that are steps or anchors, as numbers (label, order, session,
 * visitor: 37 bytes a row). Rows are then ordered session by session, sessions visitor by visitor, and walked
 * as `paths` walks them. The same answer as the scan over all batches (tests/lib/query/paths_stream_test.ts).
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
  // rows session by session (each in order), sessions visitor by visitor
  const bySession = new Map<number, number[]>();
  for (let k = 0; k < rows.n; k++) {
    let list = bySession.get(rows.ses[k]);
    if (!list) bySession.set(rows.ses[k], list = []);
    list.push(k);
  }
  const order = [...bySession.keys()].sort((a, b) =>
    rows.vis[bySession.get(a)![0]] - rows.vis[bySession.get(b)![0]]
  );
  const counts = Array.from({ length: depth }, () => new Map<string, Count>());
  const seqs = new Map<string, Count>();
  let sessions = 0, visitors = 0, lastVis = -1;
  const step = o.direction === "after" ? 1 : -1;
  for (const x of order) {
    const list = bySession.get(x)!.sort((a, b) =>
      rows.t[a] - rows.t[b] || rows.dt[a] - rows.dt[b] || rows.seq[a] - rows.seq[b]
    );
    const at = list.findIndex((k) => rows.anchor[k]);
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
