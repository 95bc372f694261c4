/**
 * behavior_performance by page under a saved cohort: each page load is of one page, so a page of 1 to 4
 * visitors is folded into "(other)" with the smallest page beside it where needed, and `overall` less the
 * pages shown tells no page of 1 to 4 (review #11). Real HTTP ingest and reads on a real KV file.
 */
import assert from "node:assert/strict";
import { openSite } from "../helpers/site.ts";
import { saveCohort } from "../helpers/saved.ts";

const event = (v: number, seq: number, type: string, path: string, props: Record<string, unknown> = {}) => ({
  event_id: crypto.randomUUID(),
  anonymous_id: `v${v}`,
  session_id: `s${v}`,
  sequence_no: seq,
  platform: "web",
  event_type: type,
  screen: path,
  properties: { path, url: `https://acme.test${path}`, ...props },
  device_time: `2026-11-18T09:00:0${seq}.000Z`,
});
const lcp = (v: number, seq: number, path: string, ms: number) =>
  event(v, seq, "$web_vitals", path, { name: "LCP", value: ms, metric: "LCP" });
type Group = { name: string; page_loads: unknown; visitors: unknown };

Deno.test("performance by page under a cohort: overall less the shown pages never tells a page of 1 to 4", async () => {
  const site = await openSite({
    now: Date.parse("2026-11-18T09:30:00Z"),
    config: { readKeyRatePerMinute: 1e6, publicKeyRatePerMinute: 1e6 },
  });
  try {
    // 12 visitors load "/" (LCP 1.2 s), 3 of them /cancel too (LCP 3 s)
    for (let v = 0; v < 12; v++) {
      const batch = [event(v, 0, "$pageview", "/"), lcp(v, 1, "/", 1200)];
      if (v < 3) batch.push(event(v, 2, "$pageview", "/cancel"), lcp(v, 3, "/cancel", 3000));
      await site.ingest(batch);
    }
    await saveCohort(site.deps, site.t.org, site.t.touchpoint, "home", { kind: "page", path: "/" });

    const plain = await site.read("behavior_performance", { period: "today", by: "page" });
    assert.deepEqual((plain.groups as Group[]).map((g) => [g.name, g.page_loads]), [["/", 12], [
      "/cancel",
      3,
    ]]);

    const a = await site.read("behavior_performance", { period: "today", by: "page", cohort: "home" });
    assert.equal(a.overall.page_loads, 15);
    const groups = a.groups as Group[];
    assert.ok(!groups.some((g) => g.name === "/cancel"), JSON.stringify(groups));
    const shown = groups.filter((g) => g.name !== "(other)")
      .reduce((n, g) => n + (typeof g.page_loads === "number" ? g.page_loads : 0), 0);
    const rest = 15 - shown;
    assert.ok(rest === 0 || rest >= 5, `overall less the shown pages is ${rest}: ${JSON.stringify(groups)}`);
  } finally {
    await site.close();
  }
});
