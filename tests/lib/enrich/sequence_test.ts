import assert from "node:assert/strict";
import fc from "fast-check";
import { gapsInBatch, type Sequenced } from "../../../lib/enrich/sequence.ts";

const at = (s: number) => new Date(Date.UTC(2026, 10, 20, 12, 0, s)).toISOString();
const ev = (session_id: string, sequence_no: number, second: number): Sequenced => ({
  session_id,
  sequence_no,
  device_time: at(second),
});

Deno.test("sequence: missing numbers right before an event are counted, in input order", () => {
  const batch = [ev("s", 0, 0), ev("s", 1, 1), ev("s", 4, 2), ev("s", 5, 3), ev("s", 9, 4)];
  assert.deepEqual(gapsInBatch(batch), [0, 0, 2, 0, 3]);
});

Deno.test("sequence: a 0 or a drop starts a new page load, with no gap at its first event", () => {
  const batch = [ev("s", 0, 0), ev("s", 2, 1), ev("s", 0, 2), ev("s", 3, 3), ev("s", 1, 4), ev("s", 2, 5)];
  // 3 continues the first page load (its 2), as a second tab's would: no loss
  assert.deepEqual(gapsInBatch(batch), [0, 1, 0, 0, 0, 0]);
  // a jump is read from the nearest number below it of the session's page loads (first load's 2, not 0)
  const jump = [ev("s", 0, 0), ev("s", 2, 1), ev("s", 0, 2), ev("s", 6, 3)];
  assert.deepEqual(gapsInBatch(jump), [0, 1, 0, 3]);
});

Deno.test("sequence: two tabs' page loads interleaved in one session lose nothing; a gap inside one still counts", () => {
  const nums = [0, 1, 2, 3, 4, 5, 0, 1, 2, 6, 7];
  assert.deepEqual(gapsInBatch(nums.map((n, s) => ev("s", n, s))), nums.map(() => 0));
  // tab A's 7 lost after the switch back (6 came): 1; a loss right at a switch (B's 3, 4 lost): from B's run
  const gapped = [0, 1, 2, 0, 1, 3, 6, 2, 5];
  assert.deepEqual(gapsInBatch(gapped.map((n, s) => ev("s", n, s))), [0, 0, 0, 0, 0, 0, 2, 0, 2]);
});

Deno.test("sequence: a later page load's jump onto an earlier one's next number is read as that page load (no loss)", () => {
  // ambiguous without a page-load id: 0..2, then a new page load 0 whose 1, 2 were lost, then 3
  assert.deepEqual(gapsInBatch([0, 1, 2, 0, 3].map((n, s) => ev("s", n, s))), [0, 0, 0, 0, 0]);
});

Deno.test("sequence: events are ordered by device time, then number, per session", () => {
  const batch = [ev("b", 3, 9), ev("a", 2, 2), ev("b", 0, 1), ev("a", 0, 0), ev("a", 5, 2)];
  assert.deepEqual(gapsInBatch(batch), [2, 1, 0, 0, 2]);
});

Deno.test("sequence: repeats and a lone event are no gap; an empty batch gives nothing", () => {
  assert.deepEqual(gapsInBatch([ev("s", 3, 0), ev("s", 3, 0), ev("s", 4, 1)]), [0, 0, 0]);
  assert.deepEqual(gapsInBatch([ev("s", 7, 0)]), [0]);
  assert.deepEqual(gapsInBatch([]), []);
});

// A batch built from page loads whose event 0 arrived and some later events were dropped, sessions
// interleaved and the batch shuffled: each kept event's gap is the distance to the kept number before it.
const pageLoad = fc.integer({ min: 1, max: 12 }).chain((n) =>
  fc.array(fc.boolean(), { minLength: n, maxLength: n }).map((keep) =>
    Array.from({ length: n }, (_, i) => i).filter((i) => i === 0 || keep[i])
  )
);
const session = fc.array(pageLoad, { minLength: 1, maxLength: 4 });
const batchArb = fc.array(session, { minLength: 1, maxLength: 4 }).chain((sessions) => {
  const events: (Sequenced & { want: number })[] = [];
  sessions.forEach((loads, s) => {
    let second = 0;
    for (const kept of loads) {
      kept.forEach((n, k) => {
        events.push({ ...ev(`session-${s}`, n, second++), want: k === 0 ? 0 : n - kept[k - 1] - 1 });
      });
    }
  });
  return fc.shuffledSubarray(events, { minLength: events.length, maxLength: events.length });
});

Deno.test("sequence: gaps are at most the numbers dropped inside each page load, the same in total when page loads lose nothing or a session has one, whatever the batch order", () => {
  fc.assert(
    fc.property(batchArb, (batch) => {
      const gaps = gapsInBatch(batch);
      batch.forEach((e, i) => assert.ok(gaps[i] >= 0 && gaps[i] <= e.want));
      const bySession = new Map<string, { got: number; want: number; loads: number }>();
      batch.forEach((e, i) => {
        const s = bySession.get(e.session_id) ?? { got: 0, want: 0, loads: 0 };
        s.got += gaps[i];
        s.want += e.want;
        if (e.sequence_no === 0) s.loads++;
        bySession.set(e.session_id, s);
      });
      for (const s of bySession.values()) if (s.loads === 1 || s.want === 0) assert.equal(s.got, s.want);
    }),
  );
});

Deno.test("sequence: every gap is at least 0 and each event keeps its own answer when the batch is reordered", () => {
  const anyEvent = fc.record({
    session_id: fc.constantFrom("a", "b"),
    sequence_no: fc.integer({ min: 0, max: 20 }),
    device_time: fc.integer({ min: 0, max: 30 }).map(at),
  });
  fc.assert(
    fc.property(fc.array(anyEvent, { maxLength: 30 }), (batch) => {
      const gaps = gapsInBatch(batch);
      assert.equal(gaps.length, batch.length);
      assert.ok(gaps.every((g) => Number.isInteger(g) && g >= 0));
      // reversing changes only the tie order of fully identical events, which get identical answers
      const reversed = [...batch].reverse();
      const back = gapsInBatch(reversed).reverse();
      const key = (e: Sequenced) => `${e.session_id}|${e.sequence_no}|${e.device_time}`;
      batch.forEach((e, i) => {
        const same = batch.map((o, j) => (key(o) === key(e) ? gaps[j] : null)).filter((g) => g !== null);
        assert.ok(same.includes(back[i]));
      });
    }),
  );
});

Deno.test("sequence: a jump of more than 1,000 numbers is a new page load, not 1,000+ lost events", () => {
  const batch = [ev("s", 0, 0), ev("s", 1001, 1), ev("s", 2003, 2), ev("s", Number.MAX_SAFE_INTEGER, 3)];
  assert.deepEqual(gapsInBatch(batch), [0, 1000, 0, 0]);
});
