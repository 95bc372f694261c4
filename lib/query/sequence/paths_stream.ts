/**
 * Paths without holding the period: when its parts would not fit the scan's budget, they are read one at a
 * time, once, keeping the step and anchor rows of the sessions anchored so far and of those still open (see
 * `streamPaths`), as numbers (label, order, session, visitor, part: 41 bytes a row). Rows are then ordered
 * session by session, sessions visitor by visitor (counting sorts), and walked as `paths` walks them. The same
 * answer as the scan over all batches (tests/lib/query/paths_stream_test.ts).
 */
import type { PartMeta } from "../../parts/store.ts";
import type { EvBatch } from "../columns/batch.ts";
import { eventView } from "../columns/views.ts";
import type { ScanContexts } from "../scan/contexts.ts";
import { makeCtx } from "../scan/ctx.ts";
import type { PathsOptions, PathsResult } from "../sequence_types.ts";
import type { Scope } from "../types.ts";
import { paths } from "./paths.ts";
import { columnPaths } from "./paths_column.ts";
import { Rows, walk } from "./paths_rows.ts";
import { stepBits } from "./steps.ts";

/**
 * Paths streamed when the period's parts would not fit the budget (from their step columns when it can), else
 * by the scan.
 */
export async function scanPaths(
  scans: ScanContexts,
  s: Scope,
  o: PathsOptions,
  kv: Deno.Kv,
): Promise<PathsResult> {
  if (!(await scans.streams(s, o.anchor.filters))) return paths(await scans.of(s), o);
  return (await columnPaths(scans, s, o, kv)) ?? streamPaths(scans, s, o);
}

/** Growable list of (session, part) pairs: rows let go of sessions that had no anchor yet. */
class Pairs {
  n = 0;
  ses = new Int32Array(256);
  part = new Int32Array(256);
  push(ses: number, part: number) {
    if (this.n && this.ses[this.n - 1] === ses && this.part[this.n - 1] === part) return;
    if (this.n === this.ses.length) {
      const a = new Int32Array(this.n * 2), b = new Int32Array(this.n * 2);
      a.set(this.ses);
      b.set(this.part);
      this.ses = a;
      this.part = b;
    }
    this.ses[this.n] = ses;
    this.part[this.n++] = part;
  }
}

/** Bytes a kept row weighs (its arrays, 41, plus growth), for the limit below. */
const ROW_BYTES = 48;

/** How far past the parts still to come a session's rows are kept open (sessions end after 30 minutes idle). */
const OPEN_MS = 3_600_000;

/**
 * Paths in one read of the parts. While they stream, every step or anchor row in scope is kept (41 bytes a
 * row) and a session is marked anchored when one of its rows is an anchor. When the rows pass a limit (an
 * eighth of the parts' budget, or twice what the last let-go kept), rows of sessions without an anchor so far
 * are let go, except those of sessions that may go on in the parts still to come (parts are read newest
 * first; a session is open while it has a row up to an hour past the newest time those parts can hold): what
 * is held is the anchored sessions' rows plus what is still open. A session let go that is anchored later (a late
 * part, a session spanning several parts) has its rows read again from just the parts they were let go from,
 * so the answer stays exact. `keepRows` sets the limit (tests use 0: let go after every part).
 */
export async function streamPaths(
  scans: ScanContexts,
  s: Scope,
  o: PathsOptions,
  tune: { keepRows?: number; retries?: number } = {},
): Promise<PathsResult> {
  const source = scans.source, interner = source.interner(s.org, s.env);
  const depth = o.depth ?? 3, mode = o.step ?? "page";
  const base = tune.keepRows ?? Math.floor(source.partCapacity / 8 / ROW_BYTES);
  const ctxOf = (e: Parameters<typeof makeCtx>[0][0]) =>
    makeCtx([e], s, interner.visitorCount, interner.sessionCount);
  let rows = new Rows(), anchored = new Uint8Array(0), dropped = new Pairs();
  let labels = new Map<string, number>(), names: string[] = [];
  let metas: PartMeta[] = [], visited = 0, limit = base, misordered = false;
  const labelOf = (v: string) => {
    let id = labels.get(v);
    if (id === undefined) {
      labels.set(v, id = names.length);
      names.push(v);
    }
    return id;
  };
  // the batch's step or anchor rows in scope, of the sessions `take` takes
  const keepRows = (e: EvBatch, part: number, take: (ses: number) => boolean) => {
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
      if (!m[i] || !take(x)) continue;
      let l = byType[et.codes[i]];
      if (l === -2) l = page.codes.length ? byPage[page.codes[i]] : noPage;
      if (l < 0 && !bits[i]) continue;
      if (bits[i]) anchored[x] = 1;
      rows.push(e.t[i], e.dt[i], e.seq[i], x, e.vis[i], l, bits[i], part);
    }
  };
  await source.stream(s.org, s.env, s.from, s.to, {
    begin: () => {
      rows = new Rows();
      anchored = new Uint8Array(0);
      dropped = new Pairs();
      labels = new Map();
      names = [];
      metas = [];
      visited = 0;
      misordered = false;
      limit = base;
    },
    newestFirst: true,
    pick: (p) => (metas.push(p), true),
    visit: (e, tail) => {
      // the parts are visited newest first: the order `stream` sorts them in (stable, from the same list)
      if (visited === 0 && !tail) metas.sort((a, b) => b.max_t - a.max_t || b.min_t - a.min_t);
      if (anchored.length < interner.sessionCount) {
        const more = new Uint8Array(Math.max(interner.sessionCount, anchored.length * 2));
        more.set(anchored);
        anchored = more;
      }
      const part = tail ? -1 : visited++;
      // a batch not of the part expected (the order above out of step): nothing more is let go, and what
      // was is not trusted (the question is asked again holding every row)
      if (part >= 0 && !isPart(e, metas[part])) misordered = true;
      keepRows(e, part, () => true);
      if (tail || misordered || rows.n <= limit) return;
      // let go of the rows of sessions with no anchor so far, but those that may go on in the parts still
      // to come (newer ones are visited first): a session with a row up to an hour past this part's newest
      // time (a session crossing midnight, or of the day being visited)
      const open = new Uint8Array(anchored.length), until = metas[part].max_t + OPEN_MS;
      for (let k = 0; k < rows.n; k++) if (rows.t[k] <= until) open[rows.ses[k]] = 1;
      rows.filter((k) => {
        if (anchored[rows.ses[k]] || open[rows.ses[k]]) return true;
        dropped.push(rows.ses[k], rows.part[k]);
        return false;
      });
      limit = Math.max(base, rows.n * 2);
    },
  });
  if (misordered && dropped.n > 0) return streamPaths(scans, s, o, { keepRows: Infinity });
  // sessions anchored after some of their rows were let go: those rows again, from just those parts
  const again = new Map<string, Set<number>>();
  for (let k = 0; k < dropped.n; k++) {
    const x = dropped.ses[k];
    if (!anchored[x]) continue;
    const id = metas[dropped.part[k]].id;
    let set = again.get(id);
    if (!set) again.set(id, set = new Set());
    set.add(x);
  }
  if (again.size) {
    // visited in the order picked; a part list changed meanwhile restarts the read (begin)
    const before = rows.n;
    let picked: string[] = [], at = 0;
    await source.stream(s.org, s.env, s.from, s.to, {
      begin: () => {
        rows.n = before;
        picked = [];
        at = 0;
      },
      pick: (p) => again.has(p.id) && picked.push(p.id) > 0,
      visit: (e, tail) => {
        if (tail) return;
        const set = again.get(picked[at++])!;
        keepRows(e, -1, (x) => set.has(x));
      },
    });
    // a part let go of is gone (merged meanwhile): the question again over the new part list
    if (picked.length < again.size) {
      const retries = tune.retries ?? 0;
      return streamPaths(
        scans,
        s,
        o,
        retries < 2 ? { ...tune, retries: retries + 1 } : { keepRows: Infinity },
      );
    }
  }
  return walk(rows, names, o, depth);
}

/** Whether a batch is the part (the part's rows and time range are its `t` column's: lib/parts/build.ts). */
function isPart(e: EvBatch, p: PartMeta): boolean {
  if (e.n !== p.rows) return false;
  let min = Infinity, max = -Infinity;
  for (let i = 0; i < e.n; i++) {
    if (e.t[i] < min) min = e.t[i];
    if (e.t[i] > max) max = e.t[i];
  }
  return min === p.min_t && max === p.max_t;
}
