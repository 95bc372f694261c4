/**
 * The rows a paths question keeps while it reads (the streamed parts or the step columns) and the walk that
 * counts the paths from them, session by session: shared by paths_stream.ts and paths_column.ts.
 */
import type { PathsOptions, PathsResult } from "../sequence_types.ts";
import { type Count, note, pathsResult } from "./paths.ts";
import { releaseViews } from "../rollup/let_go.ts";

/**
 * Rows kept for the walk, in growable typed arrays (41 bytes a row); with `pos`, what breaks ties of the three
 * order times (else the order rows were kept in).
 */
export class Rows {
  n = 0;
  pos: Float64Array | null = null;
  t: Float64Array;
  dt: Float64Array;
  seq: Float64Array;
  ses: Int32Array;
  vis: Int32Array;
  /** label number, -1: not a step (an anchor row that is no step) */
  label: Int32Array;
  anchor: Uint8Array;
  /** the part the row was read from: its place in the read's part list */
  part: Int32Array;
  /**
   * `capacity`: room for that many rows from the start; `limit`: a bound on the rows that can come, past
   * which growing (by doubling) does not go. Room for the whole bound up front was meant to cost only the
   * pages used, but memory the allocator hands back again is zeroed whole: at 10M events a paths question
   * kept 1.1M rows in room for 3.1M (151 MB made resident; the process's resident set rose 127 MB). A
   * quarter of the bound first, doubled when full, makes at most twice the rows kept (or the quarter).
   * `withPos`: `pos` kept from the start (for rows written straight into the arrays, see `reserve`).
   */
  constructor(capacity = 1024, private limit = Infinity, withPos = false) {
    const c = Math.max(1024, capacity);
    if (withPos) this.pos = new Float64Array(c);
    this.t = new Float64Array(c);
    this.dt = new Float64Array(c);
    this.seq = new Float64Array(c);
    this.ses = new Int32Array(c);
    this.vis = new Int32Array(c);
    this.label = new Int32Array(c);
    this.anchor = new Uint8Array(c);
    this.part = new Int32Array(c);
  }
  push(
    t: number,
    dt: number,
    seq: number,
    ses: number,
    vis: number,
    label: number,
    anchor: number,
    part: number,
    pos?: number,
  ) {
    if (this.n === this.t.length) this.resize(Math.max(this.n + 1, Math.min(this.n * 2, this.limit)));
    const k = this.n++;
    if (pos !== undefined) {
      this.pos ??= new Float64Array(this.t.length);
      this.pos[k] = pos;
    }
    this.t[k] = t;
    this.dt[k] = dt;
    this.seq[k] = seq;
    this.ses[k] = ses;
    this.vis[k] = vis;
    this.label[k] = label;
    this.anchor[k] = anchor;
    this.part[k] = part;
  }
  /**
   * Room for `size` rows (grown as `push` grows it), so a caller can write rows n.. straight into the
   * arrays (fetched after this call) and then set `n`.
   */
  reserve(size: number) {
    if (size <= this.t.length) return;
    let to = this.t.length;
    while (to < size) to = Math.max(to + 1, Math.min(to * 2, this.limit));
    this.resize(Math.max(to, size));
  }
  /** Keeps, in order, the rows `keep` takes; gives back memory when most were dropped. */
  filter(keep: (k: number) => boolean) {
    let w = 0;
    for (let k = 0; k < this.n; k++) {
      if (!keep(k)) continue;
      this.t[w] = this.t[k];
      this.dt[w] = this.dt[k];
      this.seq[w] = this.seq[k];
      this.ses[w] = this.ses[k];
      this.vis[w] = this.vis[k];
      this.label[w] = this.label[k];
      this.anchor[w] = this.anchor[k];
      this.part[w] = this.part[k];
      if (this.pos) this.pos[w] = this.pos[k];
      w++;
    }
    this.n = w;
    if (w * 4 < this.t.length && this.t.length > 1024) this.resize(Math.max(1024, w * 2));
  }
  private resize(size: number) {
    const to = <T extends Float64Array | Int32Array | Uint8Array>(a: T): T => {
      const x = new (a.constructor as { new (n: number): T })(size);
      x.set(a.subarray(0, Math.min(this.n, size)));
      return x;
    };
    this.t = to(this.t);
    this.dt = to(this.dt);
    this.seq = to(this.seq);
    this.ses = to(this.ses);
    this.vis = to(this.vis);
    this.label = to(this.label);
    this.anchor = to(this.anchor);
    this.part = to(this.part);
    if (this.pos) this.pos = to(this.pos);
  }
}

/** The label "(end)": the visit ended (after the anchor) or began (before it). */
export const END = "(end)";

/** Rows session by session (a counting sort by session), each session in order, walked as `paths` walks them. */
export function walk(rows: Rows, names: string[], o: PathsOptions, depth: number): PathsResult {
  const tally = new PathTally(depth, labelIn(names, END));
  walkRows(rows, o.direction, tally);
  return tally.result(names, o);
}

/** A label's number in `names`, added when missing. */
function labelIn(names: string[], label: string): number {
  const at = names.indexOf(label);
  return at >= 0 ? at : names.push(label) - 1;
}

/** Each anchored session of the rows: its path (after or before its first anchor) noted in the tally. */
export function walkRows(rows: Rows, direction: PathsOptions["direction"], tally: PathTally) {
  const bySession = countingOrder(rows.ses, rows.n);
  const step = direction === "after" ? 1 : -1, depth = tally.depth;
  const { t, dt, seq, pos, label, anchor } = rows;
  const cmp = pos
    ? (a: number, b: number) => t[a] - t[b] || dt[a] - dt[b] || seq[a] - seq[b] || pos[a] - pos[b]
    : (a: number, b: number) => t[a] - t[b] || dt[a] - dt[b] || seq[a] - seq[b] || a - b;
  const path = new Int32Array(depth + 1);
  for (const x of bySession.keys) {
    const list = inOrder(bySession.idx.subarray(bySession.start[x], bySession.start[x + 1]), cmp);
    const at = list.findIndex((k) => anchor[k] === 1);
    if (at < 0) continue;
    const len = pathFrom(path, (j) => label[list[j]], at, 0, list.length, step, tally.end);
    tally.add(rows.vis[list[0]], path, len);
  }
}

/**
 * A session's path into `path` (its length answered): from its anchor at `at` among its rows `a` .. `z - 1`
 * in order, the labels after it (`step` 1) or before it (-1), `labelAt(k)` being row k's (-1: none), a
 * label equal to the one before skipped, at most `path.length - 1` of them, then `end` if shorter.
 */
export function pathFrom(
  path: Int32Array,
  labelAt: (k: number) => number,
  at: number,
  a: number,
  z: number,
  step: number,
  end: number,
): number {
  const depth = path.length - 1;
  let len = 0, prev = labelAt(at);
  for (let k = at + step; k >= a && k < z; k += step) {
    const l = labelAt(k);
    if (l < 0 || l === prev) continue;
    path[len++] = l;
    prev = l;
    if (len === depth) break;
  }
  if (len < depth) path[len++] = end;
  return len;
}

/**
 * The anchored sessions' paths (label numbers, -1 past a path's end) and visitors, in any order; counted
 * visitor by visitor at the end (a counting sort by visitor), so distinct visitors per step and per sequence
 * are exact. 4 + 4 × depth bytes a session.
 */
export class PathTally {
  n = 0;
  private vis = new Int32Array(1 << 14);
  private labs: Int32Array;
  constructor(readonly depth: number, readonly end: number) {
    this.labs = new Int32Array(this.vis.length * depth);
  }
  /** One anchored session's path: path[0 .. len). */
  add(vis: number, path: Int32Array, len: number) {
    if (this.n === this.vis.length) {
      const v = new Int32Array(this.n * 2), l = new Int32Array(this.n * 2 * this.depth);
      v.set(this.vis);
      l.set(this.labs);
      // (outgrown: freed now, not at V8's next full collection: ~15 MB a cold paths question at 10M events)
      releaseViews([this.vis, this.labs]);
      this.vis = v;
      this.labs = l;
    }
    const k = this.n++, at = k * this.depth;
    this.vis[k] = vis;
    for (let i = 0; i < this.depth; i++) this.labs[at + i] = i < len ? path[i] : -1;
  }
  result(names: string[], o: PathsOptions): PathsResult {
    const byVisitor = countingOrder(this.vis, this.n), depth = this.depth, labs = this.labs;
    const counts = Array.from({ length: depth }, () => new Map<number, Count>());
    // a sequence's key: its labels + 1 as the digits of one number (0 past its end) while that stays exact
    const base = names.length + 1, numeric = base ** depth < 2 ** 53;
    const seqs = new Map<number | string, Count>();
    let visitors = 0, lastVis = -1;
    for (const k of byVisitor.idx) {
      const vis = this.vis[k], at = k * depth;
      if (lastVis !== vis) {
        lastVis = vis;
        visitors++;
      }
      let key = 0, text = "";
      for (let i = 0, unit = 1; i < depth && labs[at + i] >= 0; i++, unit *= base) {
        note(counts[i], labs[at + i], vis);
        if (numeric) key += (labs[at + i] + 1) * unit;
        else text += i ? "," + labs[at + i] : labs[at + i];
      }
      note(seqs, numeric ? key : text, vis);
    }
    const labelsOf = (key: number | string): number[] => {
      if (typeof key === "string") return key.split(",").map(Number);
      const out: number[] = [];
      for (let k = key; k > 0; k = Math.floor(k / base)) out.push((k % base) - 1);
      return out;
    };
    // keyed by names (label numbers and names are one to one)
    const named = <K>(m: Map<K, Count>, name: (k: K) => string) =>
      new Map([...m].map(([k, c]) => [name(k), c] as [string, Count]));
    const out = pathsResult(
      o,
      counts.map((m) => named(m, (l) => names[l])),
      named(seqs, (key) => JSON.stringify(labelsOf(key).map((l) => names[l]))),
      this.n,
      visitors,
    );
    // the tally is done with: its paths and their order freed now
    releaseViews([this.vis, this.labs, byVisitor.idx, byVisitor.start]);
    this.n = 0;
    return out;
  }
}

/**
 * A session's rows sorted by `cmp` (a total order): by insertion when few, as they mostly come in order
 * (a part's section lists a visitor's rows in order), else by the built-in sort.
 */
function inOrder(list: Int32Array, cmp: (a: number, b: number) => number): Int32Array {
  if (list.length > 32) return list.sort(cmp);
  for (let i = 1; i < list.length; i++) {
    const k = list[i];
    let j = i - 1;
    while (j >= 0 && cmp(list[j], k) > 0) {
      list[j + 1] = list[j];
      j--;
    }
    list[j + 1] = k;
  }
  return list;
}

/**
 * Positions 0..n-1 grouped by their number in `of` (a counting sort, stable): idx lists them group by
 * group, group g at idx[start[g] .. start[g + 1]); keys are the numbers that occur, ascending.
 */
function countingOrder(
  of: Int32Array,
  n: number,
): { idx: Int32Array; start: Int32Array; keys: number[] } {
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
