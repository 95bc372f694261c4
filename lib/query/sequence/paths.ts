/**
 * Paths: where sessions went after (or came from before) an anchor step; consecutive equal steps (a page's
 * reloads) are one step, "(end)" ends the visit. Sessions and distinct visitors per step and per sequence:
 * sessions come visitor by visitor, so "last visitor counted" keeps visitor counts exact.
 */
import { eventView } from "../columns/views.ts";
import type { Ctx } from "../scan/ctx.ts";
import type { PathCount, PathsOptions, PathsResult } from "../sequence_types.ts";
import { forEachSession, type Ref, sessionsWith } from "./rows.ts";
import { stepBits } from "./steps.ts";

const SKIP = 0, PAGE = 1, EVENT = 2;

export interface Count extends PathCount {
  last: number;
}

/** One more session under a key; its visitor counted when not the last one counted there (visitor by visitor). */
export function note<K>(m: Map<K, Count>, key: K, vis: number) {
  let x = m.get(key);
  if (!x) m.set(key, x = { sessions: 0, visitors: 0, last: -1 });
  x.sessions++;
  if (x.last !== vis) {
    x.last = vis;
    x.visitors++;
  }
}

export function paths(c: Ctx, opts: PathsOptions): PathsResult {
  const depth = opts.depth ?? 3;
  const mode = opts.step ?? "page";
  const anchorBits = stepBits(c, [opts.anchor]);
  // per batch and event type code: what a row of that type is as a step
  const kinds = c.batches.map((e) =>
    Uint8Array.from(eventView(e, "event_type").values, (s) => {
      if (s === null) return SKIP;
      if (mode === "event") return EVENT;
      if (s === "$pageview") return PAGE;
      return mode === "page_or_event" && !s.startsWith("$") ? EVENT : SKIP;
    })
  );
  const label = (r: Ref): string | null => {
    const e = c.batches[r.b];
    const et = eventView(e, "event_type");
    const k = kinds[r.b][et.codes[r.i]];
    if (k === SKIP) return null;
    const v = k === PAGE ? eventView(e, "page") : et;
    return v.codes.length ? v.values[v.codes[r.i]] ?? "" : "";
  };
  const counts = Array.from({ length: depth }, () => new Map<string, Count>());
  const seqs = new Map<string, Count>();
  let sessions = 0, visitors = 0, lastVis = -1;
  const step = opts.direction === "after" ? 1 : -1;
  forEachSession(c, (_s, vis, rows) => {
    const at = rows.findIndex((r) => anchorBits[r.b][r.i]);
    if (at < 0) return;
    sessions++;
    if (lastVis !== vis) {
      lastVis = vis;
      visitors++;
    }
    const labels: string[] = [];
    let prev = label(rows[at]);
    for (let j = at + step; j >= 0 && j < rows.length; j += step) {
      const l = label(rows[j]);
      if (l === null || l === prev) continue;
      labels.push(l);
      prev = l;
      if (labels.length === depth) break;
    }
    if (labels.length < depth) labels.push("(end)");
    labels.forEach((l, i) => note(counts[i], l, vis));
    note(seqs, JSON.stringify(labels), vis);
  }, sessionsWith(c, anchorBits));
  return pathsResult(opts, counts, seqs, sessions, visitors);
}

/** Counts per depth and per sequence as the answer: ranked, cut to the limit. */
export function pathsResult(
  opts: PathsOptions,
  counts: Map<string, Count>[],
  seqs: Map<string, Count>,
  sessions: number,
  visitors: number,
): PathsResult {
  const rank = opts.rank ?? "sessions";
  const order = (a: PathCount, b: PathCount) =>
    rank === "visitors"
      ? b.visitors - a.visitors || b.sessions - a.sessions
      : b.sessions - a.sessions || b.visitors - a.visitors;
  const limit = opts.limit ?? 25;
  const top = (m: Map<string, Count>) =>
    [...m].map(([value, x]) => ({ value, sessions: x.sessions, visitors: x.visitors }))
      .sort((a, b) => order(a, b) || (a.value < b.value ? -1 : 1));
  return {
    sessions,
    visitors,
    steps: counts.map((m, i) => ({ depth: i + 1, rows: top(m).slice(0, limit), total_rows: m.size })),
    sequences: top(seqs).slice(0, limit).map((x) => ({
      steps: JSON.parse(x.value) as string[],
      sessions: x.sessions,
      visitors: x.visitors,
    })),
    total_sequences: seqs.size,
  };
}
