/**
 * The visitors behind a row's page-leave means (`reporters`): engagement time and scroll depth are means over
 * `$pageleave` reports, so the small-group rule asks how many distinct visitors reported them, not how many
 * viewed the page (one report among 10 viewers is that visitor's own time and depth). The rule needs only
 * whether there are 5, so a rollup row keeps at most 5 of its reporters (any 5: `REPORTERS_CAP`). A union of
 * such capped sets, capped again, counts min(5, reporters of the union) exactly: when a row has 5 or more its
 * 5 are in the union; when every row has fewer, every row's set is whole. Kept only on the page rows and the
 * hours' totals rows (where the means are shown); other fields' rows carry none.
 */
/** What of a rollup's rows reporters are read from (build.ts `Rollup`). */
interface WithReporters {
  n: number;
  repAt: Uint32Array;
  rep: Uint32Array;
}

/** The most reporters a row keeps, and the most the metric says (5: 5 or more). */
export const REPORTERS_CAP = 5;

/** Whether a field (index into ROLLUP_FIELDS, or TOTAL = 255) keeps its rows' reporters: page (0) and totals. */
export const keepsReporters = (field: number): boolean => field === 0 || field === 255;

/** Adds visitor v to a capped set (a list of at most REPORTERS_CAP distinct numbers). */
export function addReporter(set: number[], v: number): void {
  if (set.length < REPORTERS_CAP && !set.includes(v)) set.push(v);
}

/** Adds row i's kept reporters to a capped set. */
export function addRowReporters(set: number[], r: WithReporters, i: number): void {
  if (!r.rep.length || set.length >= REPORTERS_CAP) return;
  for (let k = r.repAt[i], end = r.repAt[i + 1]; k < end; k++) addReporter(set, r.rep[k]);
}

/** Rows' capped sets as the rollup stores them: offsets (n + 1) into one list; empty arrays when none has any. */
export function packReporters(sets: number[][]): { repAt: Uint32Array; rep: Uint32Array } {
  const total = sets.reduce((s, x) => s + x.length, 0);
  if (!total) return { repAt: NO_REPORTERS, rep: NO_REPORTERS };
  const repAt = new Uint32Array(sets.length + 1), rep = new Uint32Array(total);
  let o = 0;
  sets.forEach((x, i) => {
    repAt[i] = o;
    rep.set(x, o);
    o += x.length;
  });
  repAt[sets.length] = o;
  return { repAt, rep };
}

/** A rollup's rows without reporters: both arrays empty (shared, never written). */
export const NO_REPORTERS: Uint32Array = new Uint32Array(0);

/** Per-row counts (stored, a byte a row) from offsets, and back. */
export function reporterCounts(r: WithReporters): Uint8Array {
  const out = new Uint8Array(r.rep.length ? r.n : 0);
  for (let i = 0; i < out.length; i++) out[i] = r.repAt[i + 1] - r.repAt[i];
  return out;
}

export function reporterOffsets(counts: Uint8Array, n: number): Uint32Array {
  if (!counts.length) return NO_REPORTERS;
  const at = new Uint32Array(n + 1);
  for (let i = 0; i < n; i++) at[i + 1] = at[i] + counts[i];
  return at;
}
