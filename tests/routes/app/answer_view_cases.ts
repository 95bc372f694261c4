/**
 * The app's reading of an answer (routes/app/answer_view.tsx): a group that reads "fewer than 5" under a saved
 * cohort is left out of the chart with a notice saying so, never drawn as 0; its table row stays.
 */
import assert from "node:assert/strict";
import { showAnswer } from "../../../routes/app/answer_view.tsx";

const answer = (series: { bucket: string; visitors: number | string }[]) => ({
  scope: { period: { from_date: "2026-10-19", to_date: "2026-11-22" } },
  series,
  notices: ['under a saved cohort: counts of groups of 1 to 4 visitors read "fewer than 5"'],
});

Deno.test("answer view: a week that reads fewer than 5 is left out of the chart, with a notice; the table keeps it", async () => {
  const shown = await showAnswer(
    "Pricing by week",
    answer([
      { bucket: "2026-10-19", visitors: "fewer than 5" },
      { bucket: "2026-10-26", visitors: 17 },
      { bucket: "2026-11-02", visitors: 15 },
    ]),
  );
  assert.equal(shown.points, 2, "two weeks drawn");
  assert.ok(shown.chart, "a chart");
  assert.ok(
    shown.notices.includes('one group reads "fewer than 5" and is left out of the chart'),
    shown.notices.join("|"),
  );
  assert.equal(shown.table?.rows.length, 3);
  assert.equal(shown.table?.rows[0].visitors, "fewer than 5");
});

Deno.test("answer view: every group small draws no chart; none small adds no notice", async () => {
  const none = await showAnswer("t", answer([{ bucket: "2026-10-19", visitors: "fewer than 5" }]));
  assert.equal(none.chart, null);
  const all = await showAnswer(
    "t",
    answer([{ bucket: "2026-10-19", visitors: 6 }, { bucket: "2026-10-26", visitors: 7 }]),
  );
  assert.equal(all.points, 2);
  assert.equal(all.notices.length, 1);
});
