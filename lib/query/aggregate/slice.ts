/**
 * How an aggregate pass shares the event loop: it asks for a turn every SLICE_ROWS rows (or runs taken
 * whole), and the turn yields once the pass has held the loop for its budget, so a small scan pays a few
 * clock reads.
 */
import { setImmediate } from "node:timers";
import type { Turn } from "../../turns.ts";

export const SLICE_ROWS = 4_096;

/**
 * Turns by setImmediate, a macrotask after the loop polls I/O: ~0.1 ms each, where a chain of setTimeout(0)
 * is clamped to ~2.5 ms each (measured: 50 in a row 125 ms against 5 ms), which made the 1M tools' warm
 * scans 15-50 ms slower.
 */
export function passTurns(budgetMs = 10): Turn {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < budgetMs) return;
    await new Promise((r) => setImmediate(r));
    since = performance.now();
  };
}
