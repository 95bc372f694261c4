/**
 * Passes over ranges of visitor numbers, for a question whose working set (lib/working_memory.ts) would not fit
 * in one: whether one pass fits (`passesFor`), where the passes start so each takes about as many sessions
 * (`keysSplit`) and the passes run one after another (`inRanges`). A visitor's sessions all carry its number,
 * so each pass has whole sessions and the passes' counts add up to one pass's. Used by explain-a-change's first
 * rows (explain_answers.ts) and sources' runs (sources_from_runs.ts) and the overview's session totals
 * (plain_answers.ts).
 */
import { holdArraysOf, WorkingMemory } from "../../working_memory.ts";
import { release } from "../../parts/packed_arrays.ts";
import { inBatches } from "../../batches.ts";
import { Gone, type RollupReader } from "./reader.ts";
import type { Scope } from "../types.ts";
import { visitorCount } from "../../parts/visitor_numbers.ts";
import type { VisitorRange } from "./first_touch.ts";
import { decodeKeys, KEYS_SEC, readSections, type RollupEntry } from "./store.ts";
import { releaseArraysOf } from "./let_go.ts";

/**
 * Passes over visitor numbers (explain-a-change's first rows, sources' runs and keys): the numbers given (the
 * last pass takes any beyond), the bytes one pass over all of them would hold and the largest part's sections.
 */
export interface Passes {
  /** whether one pass would not fit (inRanges then counts how many, by the room left when they start) */
  several: boolean;
  space: number;
  need: number;
  /** the largest part's sections (raw) */
  widest: number;
  /** the bytes each of `count` passes holds */
  perPass: (count: number) => number;
  /** whether `perPass` weighs a pass's own (its decoded sections too), not one pass's bytes shared */
  byPass: boolean;
}

/**
 * Where `count` passes over visitor numbers start so that each takes about as many of the parts' sessions:
 * every part's keys read once (`atOnce` at a time), their visitor numbers counted in 4,096 buckets over
 * [0, space). (Numbers are not given evenly: a returning visitor's is older, so lower, and its sessions
 * many; at 300k events the first of 17 ranges of as many numbers held 2.4x its share of the keys.)
 */
export async function keysSplit(
  r: RollupReader,
  parts: { id: string }[],
  entries: RollupEntry[],
  space: number,
  count: number,
  atOnce: number,
): Promise<number[]> {
  const B = 4096, width = Math.max(space, 1) / B, per = new Float64Array(B);
  await inBatches(parts, atOnce, async (p, i) => {
    if (!entries[i].secs[KEYS_SEC]) return;
    const [b] = await readSections(r.deps.kv, [{ partId: p.id, entry: entries[i], sec: KEYS_SEC }]);
    if (!b) throw new Gone();
    r.bytesRead += b.length;
    const keys = decodeKeys(b);
    release(b);
    holdArraysOf(keys);
    for (let x = 0; x < keys.n; x++) per[Math.min(B - 1, Math.floor(keys.vis[x] / width))]++;
    releaseArraysOf(keys);
  });
  let total = 0;
  for (let x = 0; x < B; x++) total += per[x];
  const starts: number[] = [];
  let seen = 0;
  for (let x = 0; x < B && starts.length < count - 1; x++) {
    seen += per[x];
    // the pass after this bucket starts past it once its share is reached
    while (starts.length < count - 1 && seen >= (total * (starts.length + 1)) / count) {
      starts.push(Math.ceil((x + 1) * width));
    }
  }
  while (starts.length < count - 1) starts.push(space);
  return starts;
}

/**
 * Whether a question's sections need several passes over ranges of visitor numbers: one does when what one
 * pass holds (`one`, from the parts' sections' stored raw sizes: explain-a-change's first rows, its arrays by
 * unit at 16 bytes a visitor number and the rows' units; sources' arrays by session and shared-key table)
 * fits in half of what the question may still hold (`WorkingMemory.room`, QUESTION_MEMORY_MB); else
 * `inRanges` takes as many ranges as make each pass (`each`) fit beside the parts it reads whole. At 10M
 * events two 7-day windows of explain-a-change and a month of sources take one pass each at the default
 * limit; at 100M (~600 MB an explain window, ~240 MB of sources) several.
 */
export function passesFor(
  heads: RollupEntry[],
  secs: number[],
  space: number,
  /** the bytes one pass over every visitor holds, from the sections' raw sizes (summed per section) */
  one: (raw: number[]) => number,
  /** the bytes each of `count` passes holds (else one pass's bytes shared by them) */
  each?: (raw: number[], count: number) => number,
): Passes {
  const raw = secs.map(() => 0);
  let widest = 0;
  for (const e of heads) {
    let part = 0;
    secs.forEach((sec, i) => {
      const size = e.secs[sec];
      const bytes = size ? size[2] ?? size[0] * 4 : 0;
      raw[i] += bytes;
      part += bytes;
    });
    widest = Math.max(widest, part);
  }
  const need = one(raw);
  return {
    several: need > WorkingMemory.room() / 2,
    space,
    need,
    widest,
    perPass: each ? (count) => each(raw, count) : (count) => need / count,
    byPass: each !== undefined,
  };
}

/**
 * One pass per range of visitor numbers (the last open-ended), in order, each given how many parts it may read
 * at once (each whole while its range's rows are picked: as many as a quarter of what the question may still
 * hold when they start, at most 4): as many passes (at least two) as make each one's own (`perPass`) fit in a
 * quarter of that room, or, weighed pass by pass (`byPass`), in half of it beside those parts (at least a
 * quarter). Null when a pass is (a part went); the passes are added to `counter`.
 */
export async function inRanges<T>(
  passes: Passes,
  counter: { passes: number },
  pass: (range: VisitorRange, atOnce: number) => Promise<T | null>,
  /** the first visitor number of each pass after the first, ascending (null: evenly by number) */
  split?: (count: number, atOnce: number) => Promise<number[] | null>,
): Promise<T[] | null> {
  const room = WorkingMemory.room(), quarter = Math.max(room / 4, 1);
  const atOnce = Math.min(4, Math.max(1, Math.floor(quarter / Math.max(passes.widest, 1))));
  // each pass's own within a quarter of the room, or (weighed pass by pass) half of it beside the parts read
  // whole at once (at least a quarter)
  const target = passes.byPass ? Math.max(quarter, room / 2 - atOnce * passes.widest) : quarter;
  let count = 2;
  while (count < 4096 && passes.perPass(count) > target) count++;
  // where each pass after the first starts: as many visitors' rows in each (`split`), else as many numbers
  const starts = (split ? await split(count, atOnce) : null) ??
    Array.from({ length: count - 1 }, (_, k) => Math.floor((passes.space * (k + 1)) / count));
  const out: T[] = [];
  for (let k = 0; k < count; k++) {
    const range: VisitorRange = {
      lo: k === 0 ? 0 : starts[k - 1],
      hi: k === count - 1 ? Infinity : starts[k],
    };
    const got = await pass(range, atOnce);
    if (got === null) return null;
    out.push(got);
  }
  counter.passes += count;
  return out;
}

/** The visitor numbers given in the environment (and the raw tail's, numbered for this question beyond them). */
export async function numbered(r: RollupReader, s: Scope, tailSpace: number): Promise<number> {
  return Math.max(tailSpace, await visitorCount(r.deps.kv, s.org, s.env));
}
