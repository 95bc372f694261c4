/**
 * Dropped events inside a page load, as far as one batch shows them. `sequence_no` counts from 0 per
 * page load, so within a session, ordered by device time then number, a 0 or a number lower than the
 * one before starts a new page load, and a jump of more than 1 means events were lost in between, unless
 * the number continues another page load of the session (two tabs: `RunGaps`).
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
 * Numbers lost between two consecutive events of one page load in (device time, number) order: a jump past
 * prev + 1 lost the numbers in between; a repeat (a resend), a 0 or a lower number (a new page load) lost none.
 * A jump of more than MAX_GAP numbers counts as a new page load too (0 lost): one event with sequence_no
 * 2^53-1 must not make dropped_events claim 9e15 lost events.
 */
export const missingBetween = (prev: number, n: number): number => {
  const lost = n - prev - 1;
  return lost > 0 && lost <= MAX_GAP ? lost : 0;
};

/** Open runs followed at most: past this, the oldest is forgotten (a session of hundreds of page loads). */
const MAX_RUNS = 64;

/**
 * Gaps of one session's events fed in (device time, number) order. Page loads of one session may interleave
 * (two tabs share the session id, each numbers its events from 0), so the numbers are followed as runs: an
 * event numbered n continues a run whose last number is n - 1 (no loss), repeats a run's last number (a
 * resend, no loss), or else is read against the event before it as `missingBetween` reads it: a 0, a lower
 * number or a huge jump opens a run (no loss); a jump lost the numbers between n and the nearest last number
 * below n of any run (a loss right as the visitor switched tabs), and continues that run. So the count
 * never exceeds what the event-before rule alone counts (a number continuing another page load, say a later
 * page load's jump onto an earlier one's next number, is no loss: a lower bound), and a session's pieces'
 * counts add up to at least its whole count, the same when they are 0 (rollup/sessions.ts relies on it).
 * The one rule for gaps: per batch at arrival here, over whole sessions in lib/query/scan/drops.ts and
 * lib/query/rollup (session_facts.ts, sessions.ts).
 */
export class RunGaps {
  private runs: number[] = [];
  private prev = 0;
  /** Starts another session (one instance serves a whole walk). */
  reset(): this {
    this.runs.length = 0;
    return this;
  }
  /** Numbers lost right before the event numbered n. */
  add(n: number): number {
    const runs = this.runs, prev = this.prev;
    this.prev = n;
    if (runs.length === 0) {
      runs.push(n);
      return 0;
    }
    const on = runs.indexOf(n - 1);
    if (on >= 0) {
      runs[on] = n;
      return 0;
    }
    if (runs.includes(n)) return 0;
    if (missingBetween(prev, n) === 0) {
      if (runs.length === MAX_RUNS) runs.shift();
      runs.push(n);
      return 0;
    }
    // a jump past the event before: the run of the nearest number below n lost the numbers between
    // (the event before's run is one of them, so this counts no more than it would)
    let at = -1;
    for (let r = 0; r < runs.length; r++) if (runs[r] < n && (at < 0 || runs[r] > runs[at])) at = r;
    const lost = n - runs[at] - 1;
    runs[at] = n;
    return lost;
  }
}

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
    // The first event of a batch may follow events sent in an earlier batch: no gap is seen.
    const runs = new RunGaps();
    for (const i of indexes) gaps[i] = runs.add(events[i].sequence_no);
  }
  return gaps;
}
