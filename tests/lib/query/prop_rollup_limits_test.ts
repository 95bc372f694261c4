/**
 * Accepted data a part's side tables cannot hold as usual never stops compaction (found in review): 70 events
 * of 1,000 property names each (more names than a property table has key codes), and 500 event names of 120
 * characters (a list of sections past KV's 64 KiB a value). Before, compaction of the organization failed at
 * that day on every run, for good, and behavior_event_properties answered 500. Through the HTTP API and the
 * compaction job on a real KV file; answers after compaction equal the answers before it (from raw events).
 */
import assert from "node:assert/strict";
import { event } from "../../helpers/events.ts";
import { openSite } from "../../helpers/site.ts";

/** The shared site, with this file's shapes: events by visitor and type, answers without the clock's words. */
async function site() {
  const s = await openSite({
    now: Date.parse("2026-11-18T10:00:00Z"),
    config: { trustProxy: true, publicKeyRatePerMinute: 1e9 },
  });
  let seq = 0;
  const send = async (events: { visitor: string; type: string; properties?: Record<string, unknown> }[]) => {
    const batch = events.map((e) =>
      event({
        anonymous_id: e.visitor,
        session_id: `s-${e.visitor}`,
        sequence_no: seq++,
        event_type: e.type,
        screen: "/",
        properties: { path: "/", url: "https://acme.test/", ...e.properties },
        device_time: new Date(s.deps.clock.now()).toISOString(),
      })
    );
    const res = await s.ingest(batch, { headers: { "x-forwarded-for": "81.2.69.7" } });
    assert.equal(res.status, 204, await res.text());
  };
  const read = async (tool: string, input: Record<string, unknown>) => {
    const { scope: _s, notes: _n, ...answer } = await s.read(tool, { period: "today", ...input });
    // the freshness note says how long ago the data was fresh: the clock moved on for compaction
    return JSON.parse(JSON.stringify(answer).replace(/data fresh to [^"]*/g, "data fresh"));
  };
  const entries = async (prefix: string) => {
    const out: Record<string, unknown>[] = [];
    for await (const e of s.kv.list<Record<string, unknown>>({ prefix: [prefix] })) out.push(e.value);
    return out;
  };
  const compact = async () => {
    const report = await s.compact();
    assert.equal(report.failed, 0, JSON.stringify(report));
    assert.equal(await s.count(["raw_ev"]), 0, "every raw event went into a part");
  };
  return { send, read, entries, compact, close: s.close };
}

Deno.test("compaction: a day with more property names than a table holds publishes its part; questions scan it", async () => {
  const s = await site();
  try {
    for (let i = 0; i < 70; i += 10) {
      const events = [];
      for (let j = i; j < i + 10; j++) {
        const properties: Record<string, unknown> = {};
        for (let k = 0; k < 998; k++) properties[`k${j}_${k}`] = k % 3;
        events.push({ visitor: `cart-${j}`, type: "cart", properties });
      }
      await s.send(events);
    }
    await s.send([{ visitor: "reader", type: "$pageview" }]);
    const asked = { event: "cart", property: "k3_1" };
    const before = await s.read("behavior_event_properties", asked); // raw: was a 500
    const views = await s.read("behavior_event_properties", { event: "$pageview" });
    await s.compact();
    assert.ok(
      (await s.entries("prop_rollup")).some((e) => (e.wideEts as string[] | undefined)?.includes("cart")),
      "the part's table marks the event type wide",
    );
    assert.deepEqual(await s.read("behavior_event_properties", asked), before);
    assert.deepEqual(await s.read("behavior_event_properties", { event: "$pageview" }), views);
    await s.send([{ visitor: "later", type: "$pageview" }]);
    await s.compact(); // the next runs go on
  } finally {
    await s.close();
  }
});

Deno.test("compaction: 500 event names of 120 characters keep their sections' list in chunks; answers unchanged", async () => {
  const s = await site();
  const name = (j: number) => `clicked_product_${j}_`.padEnd(120, "x");
  try {
    for (let i = 0; i < 500; i += 100) {
      const events = [];
      for (let j = i; j < i + 100; j++) {
        events.push({ visitor: `v${j % 50}`, type: name(j), properties: { j } });
      }
      await s.send(events);
    }
    const asks: [string, Record<string, unknown>][] = [
      ["behavior_events", { limit: 25 }],
      ["behavior_event_properties", { event: name(7) }],
      ["behavior_event_properties", { event: name(499), property: "j" }],
      ["behavior_paths", { page: "/", include_events: true }],
    ];
    const before = [];
    for (const [tool, input] of asks) before.push(await s.read(tool, input));
    await s.compact();
    const prop = await s.entries("prop_rollup"), steps = await s.entries("step_col");
    assert.ok(prop.some((e) => Array.isArray(e.index)), "the property table's list of sections is in chunks");
    assert.ok(steps.some((e) => Array.isArray(e.index)), "the step column's list of sections is in chunks");
    for (let k = 0; k < asks.length; k++) assert.deepEqual(await s.read(...asks[k]), before[k], asks[k][0]);
  } finally {
    await s.close();
  }
});
