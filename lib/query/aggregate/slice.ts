/**
 * How an aggregate pass shares the event loop: it asks for a turn every SLICE_ROWS rows (or runs taken
 * whole), and the turn yields once the pass has held the loop for its budget, so a small scan pays a few
 * clock reads.
 */
import { type Turn, turns } from "../../turns.ts";

export const SLICE_ROWS = 4_096;

/**
 * An aggregate pass's turns: lib/turns.ts's, once the pass has held the loop 20 ms (a turn costs ~1-2.5 ms;
 * every 10 ms made the 1M tools' warm scans 15-50 ms slower).
 */
export const passTurns = (budgetMs = 20): Turn => turns(budgetMs);
