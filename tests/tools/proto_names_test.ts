/**
 * Names users choose (events, properties, pages) that are also Object.prototype's members: every read tool
 * that takes such a name answers 200 or 422, never 500, from raw events and from parts. Found by the
 * adversarial check: behavior_event_properties for the event "constructor" answered 500 ("size is not
 * iterable": a plain object's look-up by the section name found Object.prototype.constructor).
 */
import assert from "node:assert/strict";
import { event } from "../helpers/events.ts";
import { openSite } from "../helpers/site.ts";

const NAMES = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"];

function asks(n: string): [string, Record<string, unknown>][] {
  return [
    ["behavior_overview", { page: n }],
    ["behavior_overview", { page: `/${n}` }],
    ["behavior_overview", { cohort: n }],
    ["behavior_trends", { event: n }],
    ["behavior_trends", { event: "sign_up", property: n }],
    ["behavior_trends", { event: "sign_up", property: n, property_value: n }],
    ["behavior_trends", { event: n, split_by: "property", property: n }],
    ["behavior_trends", { page: `/${n}` }],
    ["behavior_funnel", { steps: [{ name: `/${n}` }, { name: n }] }],
    ["behavior_funnel", { steps: [{ name: "/" }, { name: `${n} where ${n} = ${n}` }] }],
    ["behavior_explain_change", { conversion_event: n }],
    ["behavior_pages", { search: n }],
    ["behavior_events", { search: n }],
    ["behavior_event_properties", { event: n }],
    ["behavior_event_properties", { event: n, property: n }],
    ["behavior_event_properties", { event: "sign_up", property: n }],
    ["behavior_paths", { page: `/${n}` }],
    ["behavior_paths", { event: n }],
    ["behavior_sources", { conversion_event: n }],
    ["behavior_retention", { cohort_event: n, return_event: n }],
    ["behavior_sessions", { page: `/${n}` }],
    ["behavior_sessions", { source: n, country: n, device: n }],
    ["behavior_features", { page: `/${n}` }],
    ["behavior_performance", { page: `/${n}` }],
    ["behavior_crawl_coverage", { crawler: n }],
    ["behavior_crawler_access", { crawler: n }],
    ["feedback_summary", { app: n }],
    ["feedback_themes", { theme: n }],
    ["feedback_reviews", { theme: n, search: n }],
    ["report_get", { id: n }],
  ];
}

Deno.test("read tools: event, property and page names of Object.prototype's members answer 200 or 422, raw and compacted", async () => {
  const s = await openSite({
    now: Date.parse("2026-11-18T10:00:00Z"),
    config: { trustProxy: true, publicKeyRatePerMinute: 1e9, readKeyRatePerMinute: 1e9 },
  });
  try {
    let seq = 0;
    const send = async (types: string[], odd: boolean) => {
      const batch = types.map((n) => {
        const properties: Record<string, unknown> = {
          path: `/${n}`,
          url: `https://acme.test/${n}`,
          plan: "pro",
        };
        if (odd) { for (const p of NAMES) if (p !== "__proto__") properties[p] = n; }
        return event({
          anonymous_id: `v-${n}`,
          session_id: `s-${n}`,
          sequence_no: seq++,
          event_type: n,
          screen: `/${n}`,
          properties,
          device_time: new Date(s.deps.clock.now()).toISOString(),
        });
      });
      const res = await s.ingest(batch, { headers: { "x-forwarded-for": "81.2.69.7" } });
      assert.equal(res.status, 204, await res.text());
    };
    const failures: string[] = [];
    const all = async (when: string) => {
      for (const n of NAMES) {
        for (const [tool, input] of asks(n)) {
          const r = await s.ask(tool, input);
          const text = await r.text();
          if (r.status !== 200 && r.status !== 422) {
            failures.push(`${when} ${tool} ${JSON.stringify(input)}: ${r.status} ${text.slice(0, 160)}`);
          }
        }
      }
    };
    // nothing odd stored: the names are only asked
    await send(["sign_up", "$pageview"], false);
    await all("raw");
    assert.equal((await s.compact()).failed, 0);
    await all("compacted");
    // then stored too: event types and properties of those names
    await send([...NAMES, "sign_up", "$pageview"], true);
    await all("raw, stored");
    assert.equal((await s.compact()).failed, 0);
    await all("compacted, stored");
    // an event type named "__proto__" keeps its own section (a plain object's "__proto__" set its prototype)
    for (const n of NAMES) {
      const a = await s.read("behavior_event_properties", { event: n, period: "today" });
      assert.ok(JSON.stringify(a).includes('"plan"'), `${n}: ${JSON.stringify(a).slice(0, 400)}`);
    }
    assert.deepEqual(failures, []);
  } finally {
    await s.close();
  }
});
