/**
 * Rows (or runs taken whole) an aggregate pass walks between asking for a turn of the event loop. The turn
 * itself yields only once the pass has held the loop for its budget, so a small scan pays a few clock reads.
 */
export const SLICE_ROWS = 4_096;
