import assert from "node:assert/strict";
import { checkAnswer } from "../../lib/answers/check.ts";
import { harness } from "./harness.ts";
import { countBy, distinct, humans } from "./expect.ts";
import { storeSite } from "./generate.ts";

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
  // the whole is itself 1 to 4 visitors: no device is named (finding #21), the split folds into "(other)"
  // and no point names a device in `by`
  assert.deepEqual(
    split.splits.map((s: Record<string, unknown>) => [s.name, s.visitors, s.events, s.sessions]),
    [["(other)", null, "fewer than 5", null]],
  );
  for (const p of split.series) assert.equal(p.by, undefined, JSON.stringify(p));
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

Deno.test("behavior_trends: the hour the autumn change repeats gives two points, each counted apart", async () => {
  const h = await harness({ timezone: "Europe/Berlin" });
  // Berlin repeats 02:00-03:00 on 2026-10-25: first at 00:00Z (+02:00), then at 01:00Z (+01:00).
  const day = { from: Date.parse("2026-10-24T22:00:00Z"), to: Date.parse("2026-10-25T23:00:00Z") };
  // Pageviews in both 02:00 hours: 2 in the first, 3 in the second.
  const model = h.site.events.find((e) => e.traffic === "human" && e.event_type === "$pageview")!;
  const extra = [0, 1, 2, 3, 4].map((i) => {
    const t = Date.parse(i < 2 ? "2026-10-25T00:30:00Z" : "2026-10-25T01:30:00Z") + i * 1000;
    return { ...model, id: `20000000-0000-4000-8000-00000000000${i}`, received_at: t };
  });
  await storeSite(h.deps.kv, { events: extra, hits: [], identifiers: [] });
  h.site.events.push(...extra);
  const views = humans(h.site.events, day).filter((e) => e.event_type === "$pageview");
  const inHour = (start: number) =>
    views.filter((e) => e.received_at >= start && e.received_at < start + 3_600_000).length;
  const a = await h.ask("behavior_trends", {
    period: "2026-10-25..2026-10-25",
    interval: "hour",
    metric: "events",
  });
  assert.equal(a.series.length, 25);
  const first = a.series.find((p: { bucket: string }) => p.bucket === "2026-10-25T02:00+02:00");
  const second = a.series.find((p: { bucket: string }) => p.bucket === "2026-10-25T02:00+01:00");
  assert.ok(
    inHour(Date.parse("2026-10-25T00:00:00Z")) >= 2 && inHour(Date.parse("2026-10-25T01:00:00Z")) >= 3,
  );
  assert.equal(first.events, inHour(Date.parse("2026-10-25T00:00:00Z")));
  assert.equal(second.events, inHour(Date.parse("2026-10-25T01:00:00Z")));
  assert.equal(a.series.reduce((n: number, p: { events: number }) => n + p.events, 0), views.length);
  h.close();
});

Deno.test('behavior_trends: a property with neither split_by "property" nor property_value is refused, naming both', async () => {
  const h = await harness();
  const res = await h.askRaw("behavior_trends", {
    period: "last_28_days",
    event: "sign_up",
    property: "plan",
  });
  assert.equal(res.status, 422);
  const body = await res.json();
  assert.match(JSON.stringify(body), /property needs split_by \\"property\\".*property_value/);
  // with either, the same property is taken
  const split = await h.askRaw("behavior_trends", {
    period: "last_28_days",
    event: "sign_up",
    property: "plan",
    split_by: "property",
  });
  assert.equal(split.status, 200);
  await split.body?.cancel();
  h.close();
});
