/**
 * behavior_performance: a metric's percentiles, rating and shares are given only where 5 or more visitors
 * reported that metric in the group, not wherever the group has 5 visitors. Six visitors load /a (LCP), one
 * of them interacts (INP) and one has a layout shift (CLS): the page and overall show LCP, never that one
 * visitor's INP or CLS. On a small site (the scan) and on a site too large for its part cache (the parts'
 * Web Vitals tables), which give the same answer. Real HTTP ingest and reads on a real KV file.
 */
import assert from "node:assert/strict";
import { compact } from "../../lib/jobs/compact.ts";
import { openSite } from "../helpers/site.ts";

const NOW = Date.parse("2026-11-18T09:30:00Z");

const event = (v: number, seq: number, type: string, props: Record<string, unknown> = {}) => ({
  event_id: crypto.randomUUID(),
  anonymous_id: `v${v}`,
  session_id: `s${v}`,
  sequence_no: seq,
  platform: "web",
  event_type: type,
  screen: "/a",
  properties: { path: "/a", url: "https://acme.test/a", ...props },
  device_time: new Date(NOW - 3_600_000 + 10_000 * v + seq).toISOString(),
});
const vital = (v: number, seq: number, metric: string, value: number) =>
  event(v, seq, "$web_vitals", { name: metric, metric, value });

type Vital = {
  measured: unknown;
  p50: unknown;
  p75: unknown;
  p95: unknown;
  rating: unknown;
  shares: unknown;
};
type Answer = {
  overall: { visitors: number; vitals: Record<string, Vital> };
  groups: { name: string; visitors: number; vitals: Record<string, Vital> }[];
  notices: string[];
};

async function answer(config: Record<string, unknown>): Promise<Answer> {
  const site = await openSite({
    now: NOW - 3_600_000,
    config: { readKeyRatePerMinute: 1e6, publicKeyRatePerMinute: 1e6, ...config },
  });
  try {
    for (let v = 0; v < 6; v++) {
      const batch = [event(v, 0, "$pageview"), vital(v, 1, "LCP", 1010 + 20 * v)];
      // one visitor's slow interaction and large layout shift; a second INP of the same visitor
      if (v === 0) batch.push(vital(v, 2, "INP", 650), vital(v, 3, "CLS", 0.31), vital(v, 4, "INP", 190));
      const res = await site.ingest(batch);
      assert.equal(res.status, 204, await res.text());
    }
    site.deps.clock.set(NOW + 3_600_000);
    await compact(site.deps, site.t.org, "production", "ev", { graceMs: 0 });
    return await site.read("behavior_performance", { period: "today", by: "page" });
  } finally {
    await site.close();
  }
}

const withheld = { p50: null, p75: null, p95: null, rating: null, shares: null };
const pick = (x: Vital) => ({ p50: x.p50, p75: x.p75, p95: x.p95, rating: x.rating, shares: x.shares });

Deno.test("performance: a metric reported by 1 to 4 visitors of a group of 6 gets no percentiles, scanned or from the tables", async () => {
  const scanned = await answer({});
  // a part cache too small for the period's parts: the tables answer (the notices say so)
  const tables = await answer({ partCacheBytes: 4096 });
  assert.ok(tables.notices.some((n) => n.includes("hourly histograms")), JSON.stringify(tables.notices));
  assert.ok(!scanned.notices.some((n) => n.includes("hourly histograms")), JSON.stringify(scanned.notices));
  for (const [how, a] of [["scan", scanned], ["tables", tables]] as const) {
    const page = a.groups.find((g) => g.name === "/a")!;
    assert.equal(page.visitors, 6, how);
    assert.equal(a.overall.visitors, 6, how);
    for (const where of [page.vitals, a.overall.vitals]) {
      assert.equal(where.LCP.p75, 1090, how); // (bucket middles: the tables give the same numbers)
      assert.notEqual(where.LCP.shares, null, how);
      assert.equal(where.INP.measured, 2, how);
      assert.deepEqual(pick(where.INP), withheld, `${how}: ${JSON.stringify(where.INP)}`);
      assert.equal(where.CLS.measured, 1, how);
      assert.deepEqual(pick(where.CLS), withheld, `${how}: ${JSON.stringify(where.CLS)}`);
    }
    assert.ok(
      a.notices.includes(
        "INP reported by fewer than 5 visitors (overall and 1 page): no percentiles or shares for it",
      ),
      `${how}: ${JSON.stringify(a.notices)}`,
    );
  }
  assert.deepEqual(
    tables.groups.map((g) => g.vitals),
    scanned.groups.map((g) => g.vitals),
  );
});
