/**
 * behavior_sessions under a saved cohort: a listed visit's country, source, channel, device and pages that 1
 * to 4 of the cohort's visitors share read "(other)" (review #20: the one GB visitor, and their
 * /cancel-account visit, were listed while the tool narrowed to GB answered "fewer than 5"). Real HTTP ingest
 * (addresses in two countries through the real geo index) and reads on a real KV file.
 */
import assert from "node:assert/strict";
import { openSite } from "../helpers/site.ts";
import { saveCohort } from "../helpers/saved.ts";

const view = (v: number, seq: number, path: string) => ({
  event_id: crypto.randomUUID(),
  anonymous_id: `v${v}`,
  session_id: `s${v}`,
  sequence_no: seq,
  platform: "web",
  event_type: "$pageview",
  screen: path,
  properties: { path, url: `https://acme.test${path}` },
  device_time: `2026-11-18T09:00:0${seq}.000Z`,
});
type Visit = { country: string | null; pages: string[]; exit_page: string | null };

Deno.test("sessions under a cohort: values of 1 to 4 of its visitors read (other)", async () => {
  const site = await openSite({
    now: Date.parse("2026-11-18T09:30:00Z"),
    config: { readKeyRatePerMinute: 1e6, publicKeyRatePerMinute: 1e6, trustProxy: true },
  });
  try {
    // 10 visitors of "/": 9 from one country, 1 from another who also viewed /cancel-account
    for (let v = 0; v < 10; v++) {
      await site.ingest(v === 9 ? [view(v, 0, "/"), view(v, 1, "/cancel-account")] : [view(v, 0, "/")], {
        headers: { "x-forwarded-for": v === 9 ? "2.125.160.5" : "81.2.69.20" },
      });
    }
    await saveCohort(site.deps, site.t.org, site.t.touchpoint, "home", { kind: "page", path: "/" });

    const plain = await site.read("behavior_sessions", { period: "today", limit: 25 });
    const countries = new Set((plain.sessions as Visit[]).map((s) => s.country));
    assert.equal(countries.size, 2, "without a cohort each visit shows its country");
    const lone = [...countries].find((c) =>
      (plain.sessions as Visit[]).filter((s) => s.country === c).length === 1
    )!;

    const a = await site.read("behavior_sessions", { period: "today", limit: 25, cohort: "home" });
    const visits = a.sessions as Visit[];
    assert.equal(visits.length, 10);
    const text = JSON.stringify(visits);
    assert.ok(!text.includes("/cancel-account"), text);
    assert.ok(!visits.some((s) => s.country === lone), `the one visitor's country is not shown: ${text}`);
    assert.equal(visits.filter((s) => s.country === "(other)").length, 1);
    assert.equal(visits.filter((s) => s.exit_page === "(other)").length, 1);
    assert.ok(visits.every((s) => s.pages[0] === "/"), "a page of 10 stays");
  } finally {
    await site.close();
  }
});
