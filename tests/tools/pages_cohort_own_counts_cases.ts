/**
 * behavior_pages under a saved cohort: rage clicks, entries and exits are counts of their own visitors, not
 * of the page's viewers: made by 1 to 4 of the cohort's visitors they read "fewer than 5" (the exit rate then
 * withheld); without a cohort they are exact. Real HTTP ingest and reads on a real KV file.
 */
import assert from "node:assert/strict";
import { openSite } from "../helpers/site.ts";
import { saveCohort } from "../helpers/saved.ts";

const NOW = Date.parse("2026-11-18T12:00:00Z");
let seq = 0;
const event = (v: number, session: string, path: string, at: number, more: Record<string, unknown> = {}) => ({
  event_id: crypto.randomUUID(),
  anonymous_id: `v${v}`,
  session_id: session,
  sequence_no: seq++,
  platform: "web",
  event_type: "$pageview",
  screen: path,
  device_time: new Date(at).toISOString(),
  ...more,
  properties: { path, url: `https://acme.test${path}`, ...(more.properties as object ?? {}) },
});

Deno.test("pages under a cohort: rage clicks, entries and exits of 1 to 4 visitors read fewer than 5", async () => {
  const site = await openSite({
    now: NOW,
    config: { readKeyRatePerMinute: 1e6, publicKeyRatePerMinute: 1e6 },
  });
  try {
    // 10 visitors: a visit "/" then "/landing"; two come back 3 times each onto "/landing" and leave from "/";
    // one rage-clicks 7 times on "/landing"
    for (let v = 0; v < 10; v++) {
      const at = NOW - 5 * 3_600_000 + v * 60_000;
      const batch = [event(v, `a${v}`, "/", at), event(v, `a${v}`, "/landing", at + 1000)];
      if (v === 0) {
        for (let k = 0; k < 7; k++) {
          batch.push(event(v, `a${v}`, "/landing", at + 2000 + k, {
            event_type: "$autocapture",
            fingerprint: { tag: "button", text: "Go", selector: "#go" },
            properties: { action: "click", rage_click: true },
          }));
        }
      }
      if (v < 2) {
        for (let k = 0; k < 3; k++) {
          const back = NOW - 2 * 3_600_000 + v * 600_000 + k * 100_000;
          batch.push(event(v, `b${v}-${k}`, "/landing", back), event(v, `b${v}-${k}`, "/", back + 5000));
        }
      }
      await site.ingest(batch);
    }
    await saveCohort(site.deps, site.t.org, site.t.touchpoint, "all", { kind: "page", path: "/" });
    type Row = Record<string, unknown>;
    const of = (a: Record<string, unknown>, path: string) => (a.pages as Row[]).find((p) => p.page === path)!;

    const plain = await site.read("behavior_pages", { period: "today" });
    assert.deepEqual([of(plain, "/landing").rage_clicks, of(plain, "/landing").entries], [7, 6]);
    assert.equal(of(plain, "/").exits, 6);

    const a = await site.read("behavior_pages", { period: "today", cohort: "all" });
    const landing = of(a, "/landing"), home = of(a, "/");
    assert.equal(landing.visitors, 10);
    assert.deepEqual([landing.rage_clicks, landing.entries], ["fewer than 5", "fewer than 5"]);
    assert.equal(home.exits, "fewer than 5");
    assert.equal(home.exit_rate, null);
    assert.ok((a.notices as string[]).some((n) => n.includes("fewer than 5")), JSON.stringify(a.notices));
  } finally {
    await site.close();
  }
});
