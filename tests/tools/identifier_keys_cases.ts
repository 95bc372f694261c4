/**
 * The identifier rule never removes data: a source or property value literally named like an identifier
 * field ("ip", "key") is a value, and its counts come out exact, in splits and in the series' `by` maps.
 */
import assert from "node:assert/strict";
import { checkAnswer } from "../../lib/answers/check.ts";
import { toolByName } from "../../tools/registry.ts";
import type { StoredEvent } from "../../lib/store/records.ts";
import { harness } from "./harness.ts";
import { storeSite } from "./generate.ts";
import { distinct, humans } from "./expect.ts";

const W28 = { from: Date.parse("2026-10-24T00:00:00Z"), to: Date.parse("2026-11-20T12:00:00Z") + 1 };

Deno.test("identifier rule: sources and property values named 'ip' and 'key' keep their exact counts", async () => {
  const h = await harness({ visitors: 60 });
  const views = humans(h.site.events, W28).filter((e) => e.event_type === "$pageview");
  const byVisitor = new Map<string, StoredEvent>();
  for (const e of views) if (!byVisitor.has(e.anonymous_id)) byVisitor.set(e.anonymous_id, e);
  const models = [...byVisitor.values()];
  assert.ok(models.length >= 13, "enough visitors to name both values");
  let n = 0;
  const extra: StoredEvent[] = models.slice(0, 13).flatMap((m, i) => {
    const name = i < 6 ? "ip" : "key";
    const id = () => `30000000-0000-4000-8000-${String(++n).padStart(12, "0")}`;
    return [
      {
        ...m,
        id: id(),
        received_at: m.received_at + 1000,
        source: name,
        screen: "/named-like-fields",
        path: "/named-like-fields",
      },
      { ...m, id: id(), received_at: m.received_at + 2000, event_type: "sign_up", properties: { via: name } },
    ];
  });
  await storeSite(h.deps.kv, { events: extra, hits: [], identifiers: [] });
  h.site.events.push(...extra);
  const all = humans(h.site.events, W28);
  const output = toolByName("behavior_trends")!.output;

  const bySource = await h.ask("behavior_trends", {
    period: "last_28_days",
    page: "/named-like-fields",
    split_by: "source",
    metric: "events",
  });
  for (const name of ["ip", "key"]) {
    const evs = all.filter((e) =>
      e.event_type === "$pageview" && e.source === name && e.path === "/named-like-fields"
    );
    const split = bySource.splits.find((s: { name: string }) => s.name === name);
    assert.ok(split, `source ${name} is a split: ${JSON.stringify(bySource.splits)}`);
    assert.equal(split.events, evs.length);
    assert.equal(split.visitors, distinct(evs.map((e) => e.anonymous_id)));
    const inSeries = bySource.series.reduce(
      (s: number, p: { by: Record<string, number> }) => s + p.by[name],
      0,
    );
    assert.equal(inSeries, evs.length, `the series' by.${name} adds up`);
  }
  assert.deepEqual(checkAnswer(bySource, { identifiers: h.site.identifiers, output }), []);

  const byProp = await h.ask("behavior_trends", {
    period: "last_28_days",
    event: "sign_up",
    split_by: "property",
    property: "via",
  });
  for (const name of ["ip", "key"]) {
    const evs = all.filter((e) => e.event_type === "sign_up" && e.properties?.via === name);
    const split = byProp.splits.find((s: { name: string }) => s.name === name);
    assert.ok(split, `property value ${name} is a split`);
    assert.equal(split.visitors, distinct(evs.map((e) => e.anonymous_id)));
    // A value's day of 1 to 4 visitors reads "fewer than 5" (a split by a property is guarded as a filter on
    // it is), or the split per day is left out: where it is given, the value is named in it, not masked.
    for (const p of byProp.series as { by?: Record<string, unknown> }[]) {
      if (p.by) assert.ok(name in p.by, `by.${name} is in the series: ${JSON.stringify(p.by)}`);
    }
  }
  assert.deepEqual(checkAnswer(byProp, { identifiers: h.site.identifiers, output }), []);
  h.close();
});
