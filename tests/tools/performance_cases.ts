/**
 * behavior_performance against a plain computation over generated web vitals: exact nearest-rank
 * percentiles, ratings at p75, shares, the previous period; HTTP and MCP; the checker; 422s.
 */
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { checkAnswer } from "../../lib/answers/check.ts";
import type { StoredEvent } from "../../lib/store/records.ts";
import { toolByName } from "../../tools/registry.ts";
import { harness } from "./harness.ts";
import { distinct, humans, LAST7, PREV7 } from "./expect.ts";
import { rng, storeSite } from "./generate.ts";

const LIMITS: Record<string, [number, number]> = { LCP: [2500, 4000], INP: [200, 500], CLS: [0.1, 0.25] };

/** Nearest rank, written plainly: sort every value, take the ceil(p·n)-th. */
function pct(values: number[], p: number): number | null {
  if (!values.length) return null;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.max(1, Math.ceil(p * s.length)) - 1];
}
const rating = (m: string, v: number) =>
  v <= LIMITS[m][0] ? "good" : v <= LIMITS[m][1] ? "needs_improvement" : "poor";

Deno.test("behavior_performance: exact percentiles, ratings and shares per page and device, against the records", async () => {
  const h = await harness({ visitors: 60 });
  const r = rng(11);
  let n = 0;
  const id = () => `50000000-0000-4000-8000-${String(++n).padStart(12, "0")}`;
  const views = h.site.events.filter((e) => e.traffic === "human" && e.event_type === "$pageview");
  const extra: StoredEvent[] = views.flatMap((m) => {
    const lcp = 400 + Math.floor(r.next() * 5000);
    const out = [{
      ...m,
      id: id(),
      received_at: m.received_at + 500,
      event_type: "$web_vitals",
      properties: { metric: "LCP", value: lcp },
    }];
    if (r.next() < 0.6) {
      out.push({
        ...m,
        id: id(),
        received_at: m.received_at + 600,
        event_type: "$web_vitals",
        properties: { metric: "INP", value: 20 + Math.floor(r.next() * 700) },
      });
    }
    if (r.next() < 0.6) {
      out.push({
        ...m,
        id: id(),
        received_at: m.received_at + 700,
        event_type: "$web_vitals",
        properties: { metric: "CLS", value: Math.round(r.next() * 400) / 1000 },
      });
    }
    return out as StoredEvent[];
  });
  await storeSite(h.deps.kv, { events: extra, hits: [], identifiers: [] });
  h.site.events.push(...extra);
  const output = toolByName("behavior_performance")!.output;

  // a metric's figures stand on the visitors who reported it (5 or more), now and in the previous period
  const expectVitals = (evs: StoredEvent[], prev: StoredEvent[]) =>
    Object.fromEntries(["LCP", "INP", "CLS"].map((m) => {
      const of = evs.filter((e) => e.properties.metric === m),
        pof = prev.filter((e) => e.properties.metric === m);
      const vs = of.map((e) => Number(e.properties.value));
      const pv = pof.map((e) => Number(e.properties.value));
      const enough = distinct(of.map((e) => e.anonymous_id)) >= 5;
      const prevEnough = distinct(pof.map((e) => e.anonymous_id)) >= 5;
      const show = enough && vs.length > 0;
      const p75 = show ? pct(vs, 0.75) : null;
      const share = (k: string) =>
        Math.round(vs.filter((v) => rating(m, v) === k).length / vs.length * 10000) / 10000;
      return [m, {
        measured: vs.length,
        p50: show ? pct(vs, 0.5) : null,
        p75,
        p95: show ? pct(vs, 0.95) : null,
        rating: p75 === null ? null : rating(m, p75),
        shares: show
          ? { good: share("good"), needs_improvement: share("needs_improvement"), poor: share("poor") }
          : null,
        previous_p75: enough && prevEnough && pv.length ? pct(pv, 0.75) : null,
      }];
    }));

  for (const by of ["page", "device"] as const) {
    const a = await h.ask("behavior_performance", { period: "last_7_days", by });
    const now = humans(h.site.events, LAST7).filter((e) => e.event_type === "$web_vitals");
    const before = humans(h.site.events, PREV7).filter((e) => e.event_type === "$web_vitals");
    const visitors = distinct(now.map((e) => e.anonymous_id));
    assert.equal(a.overall.visitors, visitors);
    assert.equal(a.overall.page_loads, now.filter((e) => e.properties.metric === "LCP").length);
    assert.deepEqual(a.overall.vitals, expectVitals(now, before));
    const key = (e: StoredEvent) => by === "page" ? e.path : e.device_type;
    const names = [...new Set(now.map(key))];
    assert.equal(a.groups_total, names.length);
    for (const name of names) {
      const g = a.groups.find((x: { name: string }) => x.name === name);
      const evs = now.filter((e) => key(e) === name);
      const v = distinct(evs.map((e) => e.anonymous_id));
      assert.equal(g.visitors, v);
      assert.deepEqual(g.vitals, expectVitals(evs, before.filter((e) => key(e) === name)), `${by} ${name}`);
    }
    assert.ok(a.groups.some((g: { vitals: { LCP: { p75: number | null } } }) => g.vitals.LCP.p75 !== null));
    assert.deepEqual(checkAnswer(a, { identifiers: h.site.identifiers, output }), []);
  }

  const client = new Client({ name: "perf", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL("http://read.test/mcp"), {
      fetch: (url, init) => Promise.resolve(h.app.fetch(new Request(url, init))),
      requestInit: { headers: { authorization: `Bearer ${h.t.readKey}` } },
    }),
  );
  const input = { period: "last_28_days", page: "/pricing" };
  const viaMcp = await client.callTool({ name: "behavior_performance", arguments: input });
  assert.deepEqual(viaMcp.structuredContent, await h.ask("behavior_performance", input));
  await client.close();

  for (
    const bad of [{ by: "browser" }, { page: "pricing" }, { metric: "TTFB" }, {
      period: "2026-11-10..2026-11-01",
    }]
  ) {
    const res = await h.askRaw("behavior_performance", bad);
    assert.equal(res.status, 422, JSON.stringify(bad));
    await res.body?.cancel();
  }
  h.close();
});

Deno.test("behavior_performance: a period without web vitals says its page loads are the measured ones, not pageviews", async () => {
  const h = await harness({ visitors: 20 });
  try {
    // the site has pageviews in the last 7 days, and no $web_vitals event at all
    const views = h.site.events.filter((e) => e.traffic === "human" && e.event_type === "$pageview");
    assert.ok(views.length > 0);
    const a = await h.ask("behavior_performance", { period: "last_7_days" });
    assert.equal(a.overall.page_loads, 0);
    assert.ok(
      a.notices.some((n: string) =>
        /no page load in this period reported Core Web Vitals.*not pageviews/.test(n)
      ),
      JSON.stringify(a.notices),
    );
  } finally {
    h.close();
  }
});
