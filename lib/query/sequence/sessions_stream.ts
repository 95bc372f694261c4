/**
 * The sessions question without holding the period. When its parts would not fit the scan's budget and a
 * limit is asked, the newest parts are read first until the newest sessions are known whole
 * (sessions_newest.ts); failing that (no step columns, parts changing meanwhile, or no limit), the
 * parts are read one at a time, twice. First every session in scope gets its first row's order (receive
 * time, device time, number), its last time and whether a row matched the filters: ~35 bytes a session,
 * whatever the number of events. The newest `limit` sessions are then chosen, and a second read takes their
 * rows from the parts their time range overlaps (usually the newest day or two). Exact: the same sessions and
 * steps as the scan over all batches (tests/lib/query/sessions_stream_test.ts).
 */
import type { EvBatch } from "../columns/batch.ts";
import { eventView, viewAt } from "../columns/views.ts";
import type { ScanContexts } from "../scan/contexts.ts";
import { makeCtx } from "../scan/ctx.ts";
import { matchMasks } from "../scan/filters.ts";
import type { SessionSeq, SessionsOptions } from "../sequence_types.ts";
import type { Scope } from "../types.ts";
import { sessions } from "./sessions.ts";
import { type Chosen, newestSessions } from "./sessions_newest.ts";

/** Sessions with fewer than this many asked are read newest part first (sessions_newest.ts). */
const NEWEST_FIRST_LIMIT = 1_000;

/**
 * Sessions newest first. With a limit (no cohort, no entry or exit page filter): the newest parts only, when
 * the step columns show that the sessions asked for are whole in them (`newestSessions`), whatever the
 * period's size (a period that fits the budget was scanned whole each ask: 330-580 ms warm for 7 days of a
 * 3M-event month). Else, when the period's parts would not fit the budget, every part streamed; when they
 * fit, the scan.
 */
export async function scanSessions(
  scans: ScanContexts,
  s: Scope,
  o: SessionsOptions,
  kv: Deno.Kv,
): Promise<SessionSeq[]> {
  const sessionLevel = (s.filters ?? []).some((f) => f.field === "entry_page" || f.field === "exit_page");
  if (o.limit !== undefined && o.limit >= 1 && o.limit <= NEWEST_FIRST_LIMIT && !s.cohort && !sessionLevel) {
    const found = await newestFirst(scans, s, { ...o, limit: o.limit }, kv);
    if (found) return found;
  }
  if (!(await scans.streams(s))) return sessions(await scans.of(s), o);
  return streamSessions(scans, s, o);
}

/** The newest sessions from the newest parts (sessions_newest.ts), or null when that cannot be shown. */
export async function newestFirst(
  scans: ScanContexts,
  s: Scope,
  o: SessionsOptions & { limit: number },
  kv: Deno.Kv,
): Promise<SessionSeq[] | null> {
  const chosen = await newestSessions(scans, s, o, kv);
  return chosen && readChosen(scans, s, chosen);
}

/** Per session number, growing as batches bring new sessions. */
class SessionState {
  n = 0;
  t = new Float64Array(0);
  dt = new Float64Array(0);
  seq = new Float64Array(0);
  last = new Float64Array(0);
  vis = new Int32Array(0);
  /** 1: a row in scope; 2: also a row matching the filters */
  seen = new Uint8Array(0);
  grow(n: number) {
    if (n <= this.n) return;
    const cap = Math.max(n, this.n * 2, 1024);
    const more = <T extends Float64Array | Int32Array | Uint8Array>(a: T, fill = 0): T => {
      const x = new (a.constructor as { new (n: number): T })(cap);
      x.fill(fill, a.length);
      x.set(a);
      return x;
    };
    this.t = more(this.t, Infinity);
    this.dt = more(this.dt);
    this.seq = more(this.seq);
    this.last = more(this.last, -Infinity);
    this.vis = more(this.vis);
    this.seen = more(this.seen);
    this.n = cap;
  }
}

interface Row {
  t: number;
  dt: number;
  seq: number;
  e: EvBatch;
  i: number;
}

export async function streamSessions(
  scans: ScanContexts,
  s: Scope,
  o: SessionsOptions,
): Promise<SessionSeq[]> {
  const source = scans.source;
  const interner = source.interner(s.org, s.env);
  const filters = (o.matchFilters ?? true) && s.filters?.length ? s.filters : null;
  const ctxOf = (e: EvBatch) => makeCtx([e], s, interner.visitorCount, interner.sessionCount);
  let st = new SessionState();
  await source.stream(s.org, s.env, s.from, s.to, {
    begin: () => (st = new SessionState()),
    visit: (e) => {
      st.grow(interner.sessionCount);
      const c = ctxOf(e), m = c.inScope[0], ok = filters ? matchMasks(c, filters)[0] : m;
      const { t, ses, vis } = e;
      for (let i = 0; i < e.n; i++) {
        if (!m[i]) continue;
        const x = ses[i];
        if (ok[i]) st.seen[x] = 2;
        else if (!st.seen[x]) st.seen[x] = 1;
        if (t[i] > st.last[x]) st.last[x] = t[i];
        if (t[i] > st.t[x]) continue;
        const dt = e.dt[i], seq = e.seq[i];
        if (t[i] < st.t[x] || dt < st.dt[x] || (dt === st.dt[x] && seq < st.seq[x])) {
          st.t[x] = t[i];
          st.dt[x] = dt;
          st.seq[x] = seq;
          st.vis[x] = vis[i];
        }
      }
    },
  });
  const chosen = newest(st, filters ? 2 : 1, o.limit, (a, b) => interner.compareVisitors(a, b));
  if (!chosen.length) return [];
  let lo = Infinity, hi = -Infinity;
  for (const x of chosen) {
    lo = Math.min(lo, st.t[x]);
    hi = Math.max(hi, st.last[x]);
  }
  return readChosen(scans, s, { ses: chosen, vis: chosen.map((x) => st.vis[x]), lo, hi });
}

/**
 * The chosen sessions (newest first) with their rows, from the parts their time range overlaps: every row
 * of theirs lies in [lo, hi].
 */
async function readChosen(scans: ScanContexts, s: Scope, chosen: Chosen): Promise<SessionSeq[]> {
  if (!chosen.ses.length) return [];
  const source = scans.source, interner = source.interner(s.org, s.env);
  const { lo, hi } = chosen;
  const pick = new Map<number, Row[]>();
  for (const x of chosen.ses) pick.set(x, []);
  await source.stream(s.org, s.env, s.from, s.to, {
    pick: (p) => p.max_t >= lo && p.min_t <= hi,
    begin: () => {
      for (const x of chosen.ses) pick.set(x, []);
    },
    visit: (e) => {
      const m = makeCtx([e], s, interner.visitorCount, interner.sessionCount).inScope[0];
      for (let r = 0; r < e.runSes.length; r++) {
        const list = pick.get(e.runSes[r]);
        if (!list) continue;
        for (let i = e.runStart[r]; i < e.runStart[r + 1]; i++) {
          if (m[i]) list.push({ t: e.t[i], dt: e.dt[i], seq: e.seq[i], e, i });
        }
      }
    },
  });
  const visitors = new Map<number, number>();
  return chosen.ses.map((x, k) => {
    const list = pick.get(x)!.sort((a, b) => a.t - b.t || a.dt - b.dt || a.seq - b.seq);
    const v = chosen.vis[k];
    if (!visitors.has(v)) visitors.set(v, visitors.size);
    const f = list[0], str = (r: Row, field: string) => viewAt(eventView(r.e, field), r.i);
    return {
      visitor: visitors.get(v)!,
      session: k,
      start: f.t,
      end: list.reduce((a, r) => Math.max(a, r.t), -Infinity),
      source: str(f, "source")!,
      channel: str(f, "channel")!,
      country: str(f, "country"),
      device_type: str(f, "device_type")!,
      steps: list.map((r) => ({
        t: r.t,
        event_type: str(r, "event_type")!,
        page: str(r, "page")!,
        element: str(r, "element"),
      })),
    };
  });
}

/**
 * Sessions seen at least `level`, newest first by their first row (receive time, device time, number; ties
 * by visitor order, as the scan walks them), at most `limit`.
 */
function newest(
  st: SessionState,
  level: number,
  limit: number | undefined,
  visitorOrder: (a: number, b: number) => number,
): number[] {
  const after = (a: number, b: number) =>
    st.t[b] - st.t[a] || st.dt[b] - st.dt[a] || st.seq[b] - st.seq[a] || visitorOrder(st.vis[a], st.vis[b]);
  const max = limit ?? Infinity;
  if (max > 1_000) {
    const all: number[] = [];
    for (let x = 0; x < st.n; x++) if (st.seen[x] >= level) all.push(x);
    return all.sort(after).slice(0, max);
  }
  const top: number[] = [];
  for (let x = 0; x < st.n; x++) {
    if (st.seen[x] < level) continue;
    if (top.length >= max && after(x, top[top.length - 1]) >= 0) continue;
    // insert in order (limit is small: a tool shows tens of sessions)
    let at = top.length;
    while (at > 0 && after(x, top[at - 1]) < 0) at--;
    top.splice(at, 0, x);
    if (top.length > max) top.pop();
  }
  return top;
}
