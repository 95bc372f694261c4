/**
 * Comparisons with a period that starts before the environment's first data: the answer says so, and with
 * less than half of that period holding data its changes are withheld (null) rather than "+1512.9%". Real HTTP
 * ingest, compaction and reads on a real KV file: the first data is read from the part index and the raw tail.
 */
import assert from "node:assert/strict";
import { openSite, pageviewAt } from "../helpers/site.ts";
import { saveItem } from "../helpers/saved.ts";

const DAY = 86_400_000;
const NOW = Date.parse("2026-11-20T12:00:00Z");
const config = { readKeyRatePerMinute: 1e6, publicKeyRatePerMinute: 1e6 };
const before = (n: string[]) => n.filter((x) => x.includes("starts before data was first received"));

Deno.test("a comparison with a period before the first data says so and withholds changes under half covered", async () => {
  // data from 11 days ago (compacted into parts) and the last 3 days (raw): last_7_days compares with 7 Nov
  // to 13 Nov noon, of which 4 days hold data; last_28_days with 55 to 28 days ago, none
  const site = await openSite({ now: NOW - 11 * DAY, config });
  try {
    for (let day = 11; day >= 0; day--) {
      site.deps.clock.set(NOW - day * DAY);
      const at = site.deps.clock.now();
      const n = day > 7 ? 2 : 20; // few visitors before the week, many in it: growth the change overstates
      for (let v = 0; v < n; v++) {
        const res = await site.ingest([pageviewAt(day * 100 + v, "/", at, `s${day}-${v}`)]);
        assert.equal(res.status, 204);
      }
      if (day === 3) await site.compact();
    }
    site.deps.clock.set(NOW);

    const week = await site.read("behavior_overview", { period: "last_7_days" });
    const said = before(week.notices);
    assert.equal(said.length, 1, JSON.stringify(week.notices));
    assert.match(
      said[0],
      /\(2026-11-07 to 2026-11-13\) starts before data was first received in production \(2026-11-09\): about 4 of its 7 days hold data, so changes against it overstate growth/,
    );
    assert.equal(typeof week.visitors.change, "number", "more than half covered: the change is kept");

    // last_28_days compares with a window holding no data; a month before it, the same
    const month = await site.read("behavior_overview", { period: "last_28_days" });
    assert.match(
      before(month.notices)[0] ?? "",
      /none of its 28 days hold data, so changes against it are withheld/,
    );

    // under half covered: every change withheld, the previous figures stay as received
    const closed = await site.read("behavior_overview", { period: "2026-11-12..2026-11-18" });
    assert.match(
      before(closed.notices)[0] ?? "",
      /\(2026-11-05 to 2026-11-11\).*about 3 of its 7 days hold data, so changes against it are withheld/,
    );
    assert.equal(closed.visitors.change, null);
    assert.ok(closed.visitors.previous > 0, JSON.stringify(closed.visitors));
    assert.equal(closed.sessions.change, null);

    // a period whose previous window holds data throughout: nothing said
    const today = await site.read("behavior_overview", { period: "today" });
    assert.deepEqual(before(today.notices), []);
    assert.equal(typeof today.visitors.change, "number");

    // a dashboard says it of each insight, over the insight's own period, and withholds that one's changes
    const ids = [];
    for (const [name, period] of [["Week", "last_7_days"], ["Closed", "2026-11-12..2026-11-18"]]) {
      const i = await saveItem(site.deps, site.t.org, site.t.touchpoint, "insight", {
        name,
        tool: "behavior_overview",
        input: { period },
      });
      ids.push(i.id);
    }
    await saveItem(site.deps, site.t.org, site.t.touchpoint, "dashboard", { name: "Board", insights: ids });
    const dash = await site.read("behavior_saved", { action: "dashboard", name: "Board" });
    assert.deepEqual(dash.notices.filter((n: string) => n.includes("starts before data")), [
      `Week: ${said[0]}`,
      `Closed: ${before(closed.notices)[0]}`,
    ]);
    const [wk, cl] = dash.dashboard.insights;
    const visitors = (i: { figures: { name: string; change?: number | null }[] }) =>
      i.figures.find((f) => f.name === "visitors")!;
    assert.equal(visitors(wk).change, week.visitors.change);
    assert.equal(visitors(cl).change, null);
    // the saved insight asked alone: its scope's comparison, said once
    const one = await site.read("behavior_saved", { action: "insight", name: "Closed" });
    assert.deepEqual(before(one.notices), before(closed.notices));
    assert.equal(one.insight.answer.visitors.change, null);
  } finally {
    await site.close();
  }
});
