/**
 * Dropped events inside a page load, as far as one batch shows them. `sequence_no` counts from 0 per
 * page load, so within a session, ordered by device time then number, a 0 or a number lower than the
 * one before starts a new page load, and a jump of more than 1 means events were lost in between.
 * A batch lost whole (the common case) or split across batches shows no gap here: the read engine's
 * `dropped_events` metric (lib/query/scan/drops.ts) counts gaps over all of a session's stored events, whatever
 * batch they came in; `gap_before` is kept with each event but nothing reads it.
 */
export interface Sequenced {
  session_id: string;
  sequence_no: number;
  device_time: string;
}

/** The most numbers one gap may count: a longer jump is no page load's losses (a bad or foreign counter). */
export const MAX_GAP = 1_000;

/**
 * Numbers lost between two consecutive events of a session in (device time, number) order: a jump past
 * prev + 1 lost the numbers in between; a repeat (a resend), a 0 or a lower number (a new page load) lost none.
 * A jump of more than MAX_GAP numbers counts as a new page load too (0 lost): one event with sequence_no
 * 2^53-1 must not make dropped_events claim 9e15 lost events.
 * The one rule for gaps: here per batch at arrival, and over whole sessions in lib/query/scan/drops.ts and
 * lib/query/rollup/sessions.ts.
 */
export const missingBetween = (prev: number, n: number): number => {
  const lost = n - prev - 1;
  return lost > 0 && lost <= MAX_GAP ? lost : 0;
};

function timeOf(s: string): number {
  const t = Date.parse(s);
  return Number.isNaN(t) ? 0 : t;
}

/** For each event, in input order: how many sequence numbers are missing right before it. */
export function gapsInBatch(events: readonly Sequenced[]): number[] {
  const gaps = new Array<number>(events.length).fill(0);
  const bySession = new Map<string, number[]>();
  events.forEach((e, i) => {
    const list = bySession.get(e.session_id);
    if (list) list.push(i);
    else bySession.set(e.session_id, [i]);
  });
  for (const indexes of bySession.values()) {
    const times = new Map(indexes.map((i) => [i, timeOf(events[i].device_time)]));
    indexes.sort((a, b) =>
      times.get(a)! - times.get(b)! || events[a].sequence_no - events[b].sequence_no || a - b
    );
    let prev: number | null = null;
    for (const i of indexes) {
      const n = events[i].sequence_no;
      // The first event of a batch may follow events sent in an earlier batch: no gap is seen.
      // A repeat of the same number (a resend) is no gap either.
      // A 0 or a drop starts a new page load, whose first event here has no gap we can see.
      if (prev !== null) gaps[i] = missingBetween(prev, n);
      prev = n;
    }
  }
  return gaps;
}
