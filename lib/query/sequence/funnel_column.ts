/**
 * Funnels from the parts' step columns (step_column/): each part's sections of the steps' event types are
 * read (not the part), its rows matching a step kept as funnel_stream.ts keeps them, the raw tail's column
 * built at question time; then the same walk. Taken when every part of the period has a column and the
 * steps' conditions are on fields the column holds (page, touchpoint, traffic, event type), without a split
 * or a cohort; else null (the caller streams the parts).
 */
import { buildEventBatch } from "../../parts/event_batch.ts";
import { visitorNumbersForReading } from "../../parts/visitor_numbers.ts";
import type { ScanContexts } from "../scan/contexts.ts";
import { matches } from "../scan/filters.ts";
import { batchVisitors, rowVisitors } from "../rollup/build.ts";
import type { FunnelOptions, FunnelResult, StepDef } from "../sequence_types.ts";
import type { Scope } from "../types.ts";
import { buildStepColumn, type StepSection } from "../step_column/build.ts";
import {
  letGoSections,
  readStepEntries,
  readStepSection,
  readStepSessions,
  secName,
} from "../step_column/store.ts";
import { funnelResult, Tally } from "./funnel.ts";
import { StepRows, tallyStepRows } from "./step_rows.ts";

/** Step condition fields the column can decide. */
export const STEP_FIELDS = new Set(["page", "touchpoint", "traffic", "event_type"]);

/** Parts whose sections are read while the one before is matched. */
const READ_AHEAD = 4;

/** Whether the column can answer: conditions it holds, no split, no cohort. */
export function columnCanAnswer(s: Scope, o: FunnelOptions): boolean {
  return !s.cohort && !o.split && o.steps.length <= 8 &&
    o.steps.every((st) => (st.filters ?? []).every((f) => STEP_FIELDS.has(f.field)));
}

/**
 * Per code of a section's page, touchpoint and traffic kind: the bits of the steps (of its event type) that
 * value allows, with the scope's touchpoint and traffic kinds (`tpOk`, `trOk`) folded in. A step's conditions
 * are on one field each, so a row matches step k when bit k is set in all three: its bits are
 * page[page code] & tp[touchpoint code] & tr[traffic code]. Null when no step is of the section's type.
 */
export function sectionSteps(
  sec: StepSection,
  steps: StepDef[],
  tpOk: (v: string | null) => boolean,
  trOk: (v: string | null) => boolean,
): { page: Uint8Array; tp: Uint8Array; tr: Uint8Array } | null {
  const page = new Uint8Array(sec.pages.length), tp = new Uint8Array(sec.tps.length);
  const tr = new Uint8Array(sec.trs.length);
  let any = false;
  steps.forEach((st, k) => {
    if (sec.et === null || st.event_type !== sec.et) return;
    const fs = st.filters ?? [];
    if (fs.some((f) => f.field === "event_type" && !matches(sec.et, f))) return;
    const allows = (
      field: string,
      dict: (string | null)[],
      out: Uint8Array,
      scope: (v: string | null) => boolean,
    ) =>
      dict.forEach((v, c) => {
        if (scope(v) && fs.every((f) => f.field !== field || matches(v, f))) out[c] |= 1 << k;
      });
    allows("page", sec.pages, page, () => true);
    allows("touchpoint", sec.tps, tp, tpOk);
    allows("traffic", sec.trs, tr, trOk);
    any = true;
  });
  return any ? { page, tp, tr } : null;
}

/** A part's rows matching a step (any time: the period is applied when they are taken), kept across questions. */
interface Matched {
  n: number;
  t: Float64Array;
  dt: Float64Array;
  seq: Float64Array;
  vis: Uint32Array;
  bits: Uint8Array;
  row: Uint32Array;
  /** the session's id hashes (units by session only) */
  h1: Uint32Array | null;
  h2: Uint32Array | null;
}

const matchedBytes = (m: Matched) => 64 + m.n * (8 * 3 + 4 + 1 + 4 + (m.h1 ? 8 : 0));

/**
 * Room for one section's picked rows and step bits, reused by every `match` (it runs synchronously): what a
 * section picks is copied out at its size. JS arrays pushed to were heap garbage of 16+ bytes a row, and
 * typed arrays sized by every row of the part ~5 bytes a row of buffers made (~50 MB a cold funnel at 10M).
 */
let scratch = { at: new Int32Array(0), bits: new Uint8Array(0) };

/** The rows of sections (of one part, or the tail) matching a step, in touchpoint and traffic scope. */
function match(secs: StepSection[], s: Scope, o: FunnelOptions): Matched {
  const byVisitor = o.by !== "session";
  const traffic = new Set<string | null>(s.traffic ?? ["human"]);
  const picked: [StepSection, Int32Array, Uint8Array][] = [];
  let n = 0;
  for (const sec of secs) {
    const tables = sectionSteps(
      sec,
      o.steps,
      (v) => !s.touchpoint || v === s.touchpoint,
      (v) => traffic.has(v) && (!byVisitor || v === "human"),
    );
    if (!tables) continue;
    const P = tables.page, T = tables.tp, R = tables.tr, page = sec.page, tp = sec.tp, tr = sec.tr;
    if (scratch.at.length < sec.n) scratch = { at: new Int32Array(sec.n), bits: new Uint8Array(sec.n) };
    const { at, bits } = scratch;
    let w = 0;
    for (let r = 0; r < sec.n; r++) {
      const b = P[page[r]] & T[tp[r]] & R[tr[r]];
      if (!b) continue;
      at[w] = r;
      bits[w++] = b;
    }
    picked.push([sec, at.slice(0, w), bits.slice(0, w)]);
    n += w;
  }
  const m: Matched = {
    n,
    t: new Float64Array(n),
    dt: new Float64Array(n),
    seq: new Float64Array(n),
    vis: new Uint32Array(n),
    bits: new Uint8Array(n),
    row: new Uint32Array(n),
    h1: byVisitor ? null : new Uint32Array(n),
    h2: byVisitor ? null : new Uint32Array(n),
  };
  let k = 0;
  for (const [sec, at, bits] of picked) {
    const { t, dt, seq, vis, row, ses, h1, h2 } = sec;
    for (let j = 0; j < at.length; j++, k++) {
      const r = at[j];
      m.t[k] = t[r];
      m.dt[k] = dt[r];
      m.seq[k] = seq[r];
      m.vis[k] = vis[r];
      m.bits[k] = bits[j];
      m.row[k] = row[r];
      if (m.h1) {
        m.h1[k] = h1[ses[r]];
        m.h2![k] = h2[ses[r]];
      }
    }
  }
  return m;
}

/** Bytes a gathered row weighs: its step row (41) and its place in the walk's order (4). */
const ROW_BYTES = 45;

/** Visitor numbers counted together when the rows are split into reads that fit. */
const BLOCK_SHIFT = 12;

/**
 * The funnel from step columns, or null when a part has none (or went meanwhile). Each part's matching rows
 * are kept in the source's budget (by part, steps and scope), so a question at a later "now" reads only
 * parts it has not matched yet and the raw tail; the answer is kept too, for the same parts, raw tail and
 * question. The rows walked at once are bounded by an eighth of the budget (tests: `tune.passRows` rows,
 * `tune.blockShift` visitor numbers 2^shift a block, the least a range holds):
 * when the period's are more, they are gathered and walked by ranges of visitor numbers (a unit's rows are
 * all in one), each range's from every part's matching rows (kept, or matched again when the budget let
 * them go), and the ranges' tallies added up.
 */
export async function columnFunnel(
  scans: ScanContexts,
  s: Scope,
  o: FunnelOptions,
  kv: Deno.Kv,
  tune: { passRows?: number; blockShift?: number } = {},
): Promise<FunnelResult | null> {
  if (!columnCanAnswer(s, o)) return null;
  const source = scans.source;
  const { parts, tail } = await source.partsAndTail(s.org, s.env, s.from, s.to);
  const byVisitor = o.by !== "session";
  const question = JSON.stringify([o.steps, byVisitor, s.touchpoint ?? null, s.traffic ?? ["human"]]);
  // the answer kept for the same parts, raw tail (the same frozen array while its records are unchanged),
  // period and question
  const keptKey = `stepcol|funnel|${s.org}|${s.env}|${parts.map((p) => p.id).join(",")}|` +
    JSON.stringify([question, o.window_ms ?? null, s.from, s.to]);
  const kept = source.kept<{ tail: unknown[]; answer: FunnelResult }>(keptKey);
  if (kept && (kept.tail === tail || (!kept.tail.length && !tail.length))) {
    return structuredClone(kept.answer);
  }
  const entries = await readStepEntries(kv, parts.map((p) => p.id));
  if (entries.some((e) => e === null)) return null;
  const names = [...new Set(o.steps.map((st) => secName(st.event_type)))];
  const keyOf = (k: number) => `stepcol|funnel|${parts[k].id}|${question}`;
  const shift = tune.blockShift ?? BLOCK_SHIFT;
  const passRows = tune.passRows ?? Math.max(1 << 16, Math.floor(source.partCapacity / 8 / ROW_BYTES));
  const sessionIds = new Map<string, number>();
  let rows = new StepRows(0);
  // a read's rows (those in the period of visitors lo..hi-1) written into rows made at their counted size
  const take = (m: Matched, partAt: number, lo: number, hi: number) => {
    const { t: T, dt: DT, seq: SEQ, unit: U, bits: B, pos: POS } = rows;
    let w = rows.n;
    const base = partAt * 2 ** 32;
    for (let j = 0; j < m.n; j++) {
      const t = m.t[j], v = m.vis[j];
      if (!(t >= s.from && t < s.to) || v < lo || v >= hi) continue;
      let unit = v - lo;
      if (m.h1) {
        const key = `${v}|${m.h1[j]}|${m.h2![j]}`;
        let u = sessionIds.get(key);
        if (u === undefined) sessionIds.set(key, u = sessionIds.size);
        unit = u;
      }
      T[w] = t;
      DT[w] = m.dt[j];
      SEQ[w] = m.seq[j];
      U[w] = unit;
      B[w] = m.bits[j];
      POS[w++] = base + m.row[j];
    }
    rows.n = w;
  };
  // a part's matching rows: kept, or from its sections of the steps' types (and its session table when
  // units are sessions); undefined when its chunks are gone
  const matched = async (k: number): Promise<Matched | undefined> => {
    const kept = source.kept<Matched>(keyOf(k));
    if (kept) return kept;
    const [secs, table] = await Promise.all([
      Promise.all(names.map((name) => readStepSection(kv, parts[k].id, entries[k]!, name))),
      byVisitor ? null : readStepSessions(kv, parts[k].id, entries[k]!),
    ]);
    if (table === undefined || secs.some((g) => g === undefined)) return undefined;
    const list = secs.filter((g) => g !== null).map((g) => g!.section);
    if (table) { for (const sec of list) Object.assign(sec, table); }
    const m = match(list, s, o);
    letGoSections(list); // (their rows copied into m)
    source.keep(keyOf(k), m, matchedBytes(m));
    return m;
  };
  // every part's matching rows, a few read ahead, in order; false when a part went meanwhile (merged: the
  // caller's streamed read is consistent)
  const eachPart = async (use: (m: Matched, k: number) => void): Promise<boolean> => {
    const ahead: Promise<Matched | undefined>[] = [];
    for (let k = 0; k < Math.min(READ_AHEAD, parts.length); k++) ahead.push(matched(k));
    for (let k = 0; k < parts.length; k++) {
      const m = await ahead.shift()!;
      if (k + READ_AHEAD < parts.length) ahead.push(matched(k + READ_AHEAD));
      if (!m) {
        await Promise.allSettled(ahead);
        return false;
      }
      use(m, k);
    }
    return true;
  };
  // every part's matching rows first (kept in the budget as far as it goes), counted by blocks of visitor
  // numbers in the period, so the rows of the walk are made once at their size: room for every row of the
  // sections read (~3M at 10M events, 41 bytes each) was 123 MB made and, on memory the allocator reuses,
  // zeroed whole. Held here while they fit a read.
  let perBlock = new Float64Array(64), inPeriod = 0, held: Matched[] | null = [];
  const count = (m: Matched) => {
    for (let j = 0; j < m.n; j++) {
      if (!(m.t[j] >= s.from && m.t[j] < s.to)) continue;
      const b = m.vis[j] >>> shift;
      if (b >= perBlock.length) {
        const more = new Float64Array(Math.max(b + 1, perBlock.length * 2));
        more.set(perBlock);
        perBlock = more;
      }
      perBlock[b]++;
      inPeriod++;
    }
  };
  const ok = await eachPart((m) => {
    count(m);
    if (held && inPeriod <= passRows) held.push(m);
    else held = null;
  });
  if (!ok) return null;
  let tailRows: Matched | null = null;
  if (tail.length) {
    // the raw tail's column, its visitors by their numbers (new ones numbered past every given one)
    const batch = await buildEventBatch(Object.isFrozen(tail) ? tail : [...tail]);
    const { numbers } = await visitorNumbersForReading(kv, s.org, s.env, batchVisitors(batch));
    const vis = rowVisitors(batch, numbers);
    tailRows = match(buildStepColumn(batch, (i) => vis[i]), s, o);
    count(tailRows);
  }
  // ranges of visitor numbers whose rows fit a read (a block is not split)
  const ranges: [number, number, number][] = [];
  for (let b = 0, lo = 0, n = 0; b <= perBlock.length; b++) {
    if (b === perBlock.length || (n > 0 && n + perBlock[b] > passRows)) {
      if (n > 0) ranges.push([lo, b * 2 ** shift, n]);
      lo = b * 2 ** shift;
      n = 0;
    }
    if (b < perBlock.length) n += perBlock[b];
  }
  if (ranges.length) ranges[ranges.length - 1][1] = Infinity;
  const total = new Tally(o.steps.length), groups = new Map<string | null, Tally>();
  // one set of rows for every range, made at the largest range's size: each range's own was the same
  // bytes made again (~16 MB a range at 10M events)
  const walk = new StepRows(Math.max(0, ...ranges.map(([, , n]) => n)));
  for (const [lo, hi, n] of ranges) {
    rows = walk;
    rows.n = 0;
    sessionIds.clear();
    if (held && ranges.length === 1) held.forEach((m, k) => take(m, k, lo, hi));
    else if (!(await eachPart((m, k) => take(m, k, lo, hi)))) return null;
    if (tailRows) take(tailRows, parts.length, lo, hi);
    // (the rows were counted per block before: a range takes exactly that many, none written past the end)
    if (rows.n !== n) throw new Error(`funnel rows of visitors ${lo}-${hi}: ${rows.n} taken, ${n} counted`);
    tallyStepRows(rows, o, [], total, groups);
  }
  held = null;
  walk.free();
  rows = new StepRows(0);
  const answer = funnelResult(o, total, groups);
  source.keep(keptKey, { tail, answer: structuredClone(answer) }, 1024 + JSON.stringify(answer).length * 2);
  return answer;
}
