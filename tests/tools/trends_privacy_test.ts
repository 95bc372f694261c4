import assert from "node:assert/strict";
import { checkAnswer } from "../../lib/answers/check.ts";
import { harness } from "./harness.ts";
import { countBy, distinct, humans } from "./expect.ts";

const W28 = { from: Date.parse("2026-10-24T00:00:00Z"), to: Date.parse("2026-11-20T12:00:00Z") + 1 };

Deno.test("behavior_trends: under a property filter, event and session counts of 1 to 4 visitors read 'fewer than 5'", async () => {
  const h = await harness();
  const team = humans(h.site.events, W28).filter((e) =>
    e.event_type === "sign_up" && e.properties.plan === "team"
  );
  const n = distinct(team.map((e) => e.anonymous_id));
  assert.ok(n > 0 && n < 5, `the data has a small group (${n})`);
  for (const metric of ["events", "sessions"]) {
    const a = await h.ask("behavior_trends", {
      period: "last_28_days",
      event: "sign_up",
      property: "plan",
      property_value: "team",
      interval: "day",
      metric,
    });
    assert.equal(a.total.value, "fewer than 5", metric);
    assert.equal(a.total.change, null);
    for (const p of a.series) assert.ok(p[metric] === 0 || p[metric] === "fewer than 5", JSON.stringify(p));
    assert.ok(a.series.some((p: Record<string, unknown>) => p[metric] === "fewer than 5"));
    assert.deepEqual(checkAnswer(a, { identifiers: h.site.identifiers }), []);
  }
  const split = await h.ask("behavior_trends", {
    period: "last_28_days",
    event: "sign_up",
    property: "plan",
    property_value: "team",
    split_by: "device",
    metric: "events",
  });
  assert.ok(split.splits.length > 0);
  for (const s of split.splits) {
    assert.deepEqual([s.visitors, s.events, s.sessions], ["fewer than 5", "fewer than 5", "fewer than 5"]);
  }
  for (const p of split.series) {
    for (const v of Object.values(p.by)) assert.ok(v === 0 || v === "fewer than 5", JSON.stringify(p));
  }
  assert.deepEqual(checkAnswer(split, { identifiers: h.site.identifiers }), []);
  h.close();
});

Deno.test("behavior_trends: events without the property are not counted as a withheld value", async () => {
  const h = await harness();
  const none = await h.ask("behavior_trends", {
    period: "last_28_days",
    split_by: "property",
    property: "plan",
  });
  assert.equal(none.splits_withheld, 0, "pageviews carry no plan: nothing withheld");
  assert.equal(none.splits_total, 0);
  const plans = await h.ask("behavior_trends", {
    period: "last_28_days",
    event: "sign_up",
    split_by: "property",
    property: "plan",
  });
  const byPlan = countBy(
    humans(h.site.events, W28).filter((e) => e.event_type === "sign_up" && e.properties.plan != null),
    (e) => String(e.properties.plan),
  );
  const small = [...byPlan.values()].filter((evs) => distinct(evs.map((e) => e.anonymous_id)) < 5).length;
  assert.equal(plans.splits_withheld, small);
  assert.equal(plans.splits_total, byPlan.size);
  h.close();
});

Deno.test("behavior_trends: an hourly series of 14 local days across the autumn DST change is allowed", async () => {
  const h = await harness({ timezone: "Europe/Berlin" });
  const a = await h.ask("behavior_trends", { period: "2026-10-19..2026-11-01", interval: "hour" });
  assert.ok(a.series.length >= 14 * 24, `${a.series.length} hours`);
  const tooLong = await h.askRaw("behavior_trends", { period: "2026-10-19..2026-11-02", interval: "hour" });
  assert.equal(tooLong.status, 422);
  await tooLong.body?.cancel();
  h.close();
});
