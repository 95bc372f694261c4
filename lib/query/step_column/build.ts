/**
 * The step column of a part: per event, only what a sequence question (funnel, paths) needs, one section per
 * event type so a question reads only its steps' types. A section's rows are ordered by visitor number, then
 * receive time, device time, sequence number (a visitor's rows are a contiguous ordered run), each holding
 * its visitor's permanent number (lib/parts/visitor_numbers.ts), its session (an index into the part's table
 * of sessions, each its two 32-bit id hashes as rollup/session_facts.ts joins them across parts), the three
 * order times, and codes of its page, touchpoint and traffic kind.
 */
import type { Batch, NumCol, StrCol } from "../../parts/columns.ts";
import { idHashes } from "../rollup/session_facts.ts";
import { runSteps, runTurning, type Steps } from "../rollup/steps.ts";
import { sortSteps } from "../../parts/slice_sort.ts";
import type { Turn } from "../../turns.ts";

export interface StepSection {
  /** the event type of every row (null: rows without one) */
  et: string | null;
  n: number;
  /** code c is pages[c] (0: null); the same for touchpoints and traffic kinds */
  pages: (string | null)[];
  tps: (string | null)[];
  trs: (string | null)[];
  vis: Uint32Array;
  t: Float64Array;
  dt: Float64Array;
  seq: Float64Array;
  /** 16-bit codes when a part has at most 65,536 pages (as stored) */
  page: Uint16Array | Uint32Array;
  tp: Uint16Array;
  tr: Uint8Array;
  /**
   * the row's place in its batch where another row of its visitor in the batch has the same three order
   * times (batch order breaks such ties, as the streamed parts' does), else 0
   */
  row: Uint32Array;
  /**
   * per row its session's index in the part's table of sessions (shared by its sections, stored once):
   * per session its visitor's number is the row's, and two id hashes
   */
  ses: Uint32Array;
  h1: Uint32Array;
  h2: Uint32Array;
}

/** The part columns a step column is made of. */
export const STEP_COLUMN_FIELDS = new Set([
  "anon",
  "session",
  "t",
  "dt",
  "seq",
  "event_type",
  "page",
  "touchpoint",
  "traffic",
]);

/** A dictionary of a section: values in order of first use, code 0 null. */
class Dict {
  values: (string | null)[] = [null];
  private at = new Map<string, number>();
  code(v: string | null): number {
    if (v === null) return 0;
    let c = this.at.get(v);
    if (c === undefined) this.at.set(v, c = this.values.push(v) - 1);
    return c;
  }
}

const strOf = (c: StrCol | undefined, i: number): string | null =>
  !c || c.codes[i] === 0 ? null : c.dict[c.codes[i] - 1];

/** The step column of a batch (a part, or the raw tail at question time), its visitors numbered by `visitorOf`. */
export function buildStepColumn(b: Batch, visitorOf: (row: number) => number): StepSection[] {
  return runSteps(stepColumnSteps(b, visitorOf));
}

/** `buildStepColumn`, awaiting `turn` inside its sorts and between sections (compaction beside ingest). */
export function buildStepColumnTurning(
  b: Batch,
  visitorOf: (row: number) => number,
  turn: Turn,
): Promise<StepSection[]> {
  return runTurning(stepColumnSteps(b, visitorOf), turn);
}

function* stepColumnSteps(b: Batch, visitorOf: (row: number) => number): Steps<StepSection[]> {
  const et = b.cols.event_type as StrCol, session = b.cols.session as StrCol;
  const t = (b.cols.t as NumCol).values,
    dt = (b.cols.dt as NumCol).values,
    seq = (b.cols.seq as NumCol).values;
  const vis = new Uint32Array(b.n);
  for (let i = 0; i < b.n; i++) vis[i] = visitorOf(i);
  // rows by event type code, then visitor, order times, row (a total order: any sort gives the same)
  const order = Int32Array.from(
    yield* sortSteps(
      Array.from({ length: b.n }, (_, i) => i),
      (x, y) =>
        et.codes[x] - et.codes[y] || vis[x] - vis[y] || t[x] - t[y] || dt[x] - dt[y] || seq[x] - seq[y] ||
        x - y,
    ),
  );
  const out: StepSection[] = [];
  // rows by visitor and order times: ties found, sessions numbered in the order sections list their rows
  // (stable, as Int32Array's sort: ties stay in row order)
  const byVisitor = Int32Array.from(
    yield* sortSteps(
      Array.from({ length: b.n }, (_, i) => i),
      (x, y) => vis[x] - vis[y] || t[x] - t[y] || dt[x] - dt[y] || seq[x] - seq[y],
    ),
  );
  const tied = tiedRows(byVisitor, vis, t, dt, seq);
  const sessions = new Sessions(session, vis);
  for (const i of byVisitor) sessions.of(i);
  yield;
  for (let a = 0; a < b.n;) {
    let z = a;
    while (z < b.n && et.codes[order[z]] === et.codes[order[a]]) z++;
    out.push(section(b, order.subarray(a, z), vis, sessions, tied));
    a = z;
    yield;
  }
  const h1 = Uint32Array.from(sessions.h1), h2 = Uint32Array.from(sessions.h2);
  for (const sec of out) {
    sec.h1 = h1;
    sec.h2 = h2;
  }
  return out;
}

/** Rows sharing visitor and the three order times with another row of the batch (`order`: rows so sorted). */
function tiedRows(
  order: Int32Array,
  vis: Uint32Array,
  t: Float64Array,
  dt: Float64Array,
  seq: Float64Array,
): Uint8Array {
  const out = new Uint8Array(order.length);
  for (let k = 1; k < order.length; k++) {
    const x = order[k - 1], y = order[k];
    if (vis[x] === vis[y] && t[x] === t[y] && dt[x] === dt[y] && seq[x] === seq[y]) out[x] = out[y] = 1;
  }
  return out;
}

/** The part's sessions, numbered in order of first use: a session is its visitor and its id's session code. */
class Sessions {
  h1: number[] = [];
  h2: number[] = [];
  private at = new Map<string, number>();
  private hashes = new Map<number, [number, number]>();
  constructor(private session: StrCol, private vis: Uint32Array) {}
  of(i: number): number {
    const sc = this.session.codes[i], key = `${this.vis[i]}|${sc}`;
    let x = this.at.get(key);
    if (x === undefined) {
      let h = this.hashes.get(sc);
      if (!h) this.hashes.set(sc, h = idHashes(sc === 0 ? "" : this.session.dict[sc - 1]));
      this.at.set(key, x = this.h1.push(h[0]) - 1);
      this.h2.push(h[1]);
    }
    return x;
  }
}

function section(
  b: Batch,
  rows: Int32Array,
  vis: Uint32Array,
  sessions: Sessions,
  tied: Uint8Array,
): StepSection {
  const n = rows.length;
  const t = (b.cols.t as NumCol).values,
    dt = (b.cols.dt as NumCol).values,
    seq = (b.cols.seq as NumCol).values;
  const page = b.cols.page as StrCol | undefined, tp = b.cols.touchpoint as StrCol | undefined;
  const tr = b.cols.traffic as StrCol | undefined;
  const pages = new Dict(), tps = new Dict(), trs = new Dict();
  const s: StepSection = {
    et: strOf(b.cols.event_type as StrCol, rows[0]),
    n,
    pages: [],
    tps: [],
    trs: [],
    vis: new Uint32Array(n),
    t: new Float64Array(n),
    dt: new Float64Array(n),
    seq: new Float64Array(n),
    page: new Uint32Array(n),
    tp: new Uint16Array(n),
    tr: new Uint8Array(n),
    row: new Uint32Array(n),
    ses: new Uint32Array(n),
    h1: new Uint32Array(0),
    h2: new Uint32Array(0),
  };
  for (let k = 0; k < n; k++) {
    const i = rows[k];
    s.vis[k] = vis[i];
    s.t[k] = t[i];
    s.dt[k] = dt[i];
    s.seq[k] = seq[i];
    s.page[k] = pages.code(strOf(page, i));
    s.tp[k] = tps.code(strOf(tp, i));
    s.tr[k] = trs.code(strOf(tr, i));
    s.row[k] = tied[i] ? i : 0;
    s.ses[k] = sessions.of(i);
  }
  if (tps.values.length > 65_536 || trs.values.length > 256) {
    throw new Error("step column: too many touchpoints");
  }
  s.pages = pages.values;
  if (pages.values.length <= 65_536) s.page = Uint16Array.from(s.page); // as it is stored and read
  s.tps = tps.values;
  s.trs = trs.values;
  return s;
}

/** Bytes a decoded section holds (for a budget). */
export function sectionBytes(s: StepSection): number {
  let n = s.n * (4 + 8 + 8 + 8 + 4 + 2 + 1 + 4 + 4) + 64;
  for (const p of s.pages) n += 32 + 2 * (p?.length ?? 0);
  return n;
}
