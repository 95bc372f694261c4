/**
 * Cooperative time slicing for long jobs that share the server's event loop with ingest (compaction):
 * `turn()` gives the loop a turn once the job has run `budgetMs` since the last one, so a request waits at
 * most about that long behind it. Measured before: building one 40,000-row part held the loop 1.7 s, a
 * merge 5.4 s. The turn is a setTimeout(0): in Deno neither setImmediate nor a MessageChannel message lets
 * the loop poll I/O (a request waiting on the server was answered after ~170 such turns, against one
 * setTimeout), though a chain of setTimeout(0) costs ~1-2.5 ms a turn (see `tests/lib/turns_test.ts`).
 */

export type Turn = () => Promise<void>;

export function turns(budgetMs = 10): Turn {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < budgetMs) return;
    await new Promise((r) => setTimeout(r, 0));
    since = performance.now();
  };
}

/** For callers that do not slice (queries, tests): never yields. */
export const noTurns: Turn = () => Promise.resolve();
