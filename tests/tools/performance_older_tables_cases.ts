/**
 * behavior_performance after an upgrade to Web Vitals tables version 4 (each series' reporters) on a site too
 * large for its part cache: the parts' version-3 tables still answer (from histograms, not the exact read of
 * each part nor the scan, which on a large site took its period's parts and, past QUESTION_MEMORY_MB, a 422),
 * their reporters read none, so a metric's percentiles, rating and shares are withheld as where fewer than 5
 * reported it; once the backfill has rebuilt them, the same engine gives the full answer. Real HTTP ingest and
 * reads on a real KV file.
 */
import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { compact } from "../../lib/jobs/compact.ts";
import { backfillVitals } from "../../lib/jobs/vitals_backfill.ts";
import { listParts } from "../../lib/parts/store.ts";
import { hasVitals } from "../../lib/query/vitals/store.ts";
import { asVitalsV3, padWithPageviews } from "../helpers/older_tables.ts";
import { openSite } from "../helpers/site.ts";

const NOW = Date.parse("2026-11-18T09:30:00Z");

const event = (v: number, seq: number, type: string, path: string, props: Record<string, unknown> = {}) => ({
  event_id: crypto.randomUUID(),
  anonymous_id: `v${v}`,
  session_id: `s${v}`,
  sequence_no: seq,
  platform: "web",
  event_type: type,
  screen: path,
  properties: { path, url: `https://acme.test${path}`, ...props },
  device_time: new Date(NOW - 3_600_000 + 10_000 * v + seq).toISOString(),
});
const vital = (v: number, seq: number, path: string, metric: string, value: number) =>
  event(v, seq, "$web_vitals", path, { name: metric, metric, value });

type Vital = { measured: number; p50: unknown; p75: unknown; p95: unknown; rating: unknown; shares: unknown };
type Answer = {
  overall: { page_loads: number; visitors: number; vitals: Record<string, Vital> };
  groups: { name: string; page_loads: number; visitors: number; vitals: Record<string, Vital> }[];
  notices: string[];
};

const withheld = { p50: null, p75: null, p95: null, rating: null, shares: null };
const pick = (x: Vital) => ({ p50: x.p50, p75: x.p75, p95: x.p95, rating: x.rating, shares: x.shares });
const HISTOGRAMS = "percentiles from hourly histograms";

Deno.test("performance: Web Vitals tables of version 3 still answer after the upgrade, each metric withheld until the backfill rebuilds them", async () => {
  const site = await openSite({
    now: NOW - 3_600_000,
    // a part cache too small for the period's parts (3,000 page views beside): the tables answer, their share
    // of it keeping what they read
    config: { readKeyRatePerMinute: 1e6, publicKeyRatePerMinute: 1e6, partCacheBytes: 1 << 20 },
  });
  try {
    // 7 visitors load /a (LCP, and INP from 6 of them), 2 load /b
    for (let v = 0; v < 9; v++) {
      const path = v < 7 ? "/a" : "/b";
      const batch = [event(v, 0, "$pageview", path), vital(v, 1, path, "LCP", 1010 + 20 * v)];
      if (v < 6) batch.push(vital(v, 2, path, "INP", 90 + 40 * v));
      assert.equal((await site.ingest(batch)).status, 204);
    }
    await padWithPageviews(site.ingest, NOW - 3_000_000, 3_000);
    site.deps.clock.set(NOW + 3_600_000);
    await compact(site.deps, site.t.org, "production", "ev", { graceMs: 0 });
    const ask = { period: "today", by: "page" };
    // the answer at version 4, from an engine of its own (the site's has not asked yet)
    const own = await createApp(site.deps).request("/v1/read/behavior_performance", {
      method: "POST",
      headers: { authorization: `Bearer ${site.t.readKey}`, "content-type": "application/json" },
      body: JSON.stringify(ask),
    });
    assert.equal(own.status, 200);
    const full: Answer = await own.json();
    const a = full.groups.find((g) => g.name === "/a")!;
    assert.equal(a.vitals.LCP.p75, 1110);
    assert.notEqual(a.vitals.INP.p75, null);
    assert.ok(full.notices.some((n) => n.includes(HISTOGRAMS)), JSON.stringify(full.notices));

    // as the release before version 4 left the parts: tables of version 3
    const parts = await listParts(site.kv, site.t.org, "production", "ev");
    assert.ok(parts.length > 0);
    for (const p of parts) await asVitalsV3(site.kv, p.meta.id);
    for (const p of parts) assert.equal(await hasVitals(site.kv, p.meta.id), false, "the backfill's to do");
    const during: Answer = await site.read("behavior_performance", ask);
    // from the tables' histograms (a part without a table it reads would be read exactly: no such notice)
    assert.ok(during.notices.some((n) => n.includes(HISTOGRAMS)), JSON.stringify(during.notices));
    // counts exact, as at version 4; every metric's figures withheld (no reporters counted yet)
    const strip = (x: Answer) => ({
      overall: { ...x.overall, vitals: null },
      groups: x.groups.map((g) => ({ ...g, vitals: null })),
    });
    assert.deepEqual(strip(during), strip(full));
    for (const where of [during.overall, ...during.groups]) {
      for (const m of ["LCP", "INP"]) {
        const f = full.groups.find((g) => g.name === (where as { name?: string }).name) ?? full.overall;
        assert.equal(where.vitals[m].measured, f.vitals[m].measured, m);
        assert.deepEqual(pick(where.vitals[m]), withheld, `${m}: ${JSON.stringify(where.vitals[m])}`);
      }
    }
    // the backfill rebuilds them at version 4; the same engine then answers as before the downgrade
    const done = await backfillVitals(site.deps, site.t.org, "production");
    assert.deepEqual({ parts: done.parts, remaining: done.remaining }, { parts: parts.length, remaining: 0 });
    assert.deepEqual(await site.read("behavior_performance", ask), full);
  } finally {
    await site.close();
  }
});
