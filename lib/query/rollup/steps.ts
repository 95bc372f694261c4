/**
 * Builds written as generators that pause every ROWS_A_TURN rows: compaction runs them straight through
 * (`runSteps`), a question over the raw tail gives the event loop a turn at each pause (`runTurning`), so a
 * 40,000-event tail's rollup (1-1.4 s of work) no longer holds /healthz and other requests behind it.
 */
import type { Turn } from "../../turns.ts";

export const ROWS_A_TURN = 2_048;

/** A build that pauses (yields nothing) between slices of its rows and returns its result. */
export type Steps<T> = Generator<void, T, void>;

/** Whether row i ends a slice (the build pauses after it). */
export const sliceEnd = (i: number): boolean => (i & (ROWS_A_TURN - 1)) === ROWS_A_TURN - 1;

/** Runs a build to its end without pausing. */
export function runSteps<T>(steps: Steps<T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** Runs a build, awaiting `turn` at each pause. */
export async function runTurning<T>(steps: Steps<T>, turn: Turn): Promise<T> {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    await turn();
  }
}
