/**
 * behavior_overview under a saved cohort of 1 to 4 visitors: the headline pageviews read "fewer than 5", and
 * no list gives them back exactly (the top pages' "(other)" held the whole: 14 pageviews beside a headline of
 * "fewer than 5"). Crawler requests, which no cohort narrows, are left out and said to be. Real HTTP ingest
 * and reads on a real KV file.
 */
import assert from "node:assert/strict";
import { openSite, pageview } from "../helpers/site.ts";
import { saveCohort } from "../helpers/saved.ts";
import { FEWER_THAN_5 } from "../../lib/answers/privacy.ts";
import { checkAnswer } from "../../lib/answers/check.ts";
import { toolByName } from "../../tools/registry.ts";

const NOW = Date.parse("2026-11-18T10:30:00Z");
const GPTBOT =
  "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)";
type Item = Record<string, unknown> & { name: string };

Deno.test("overview under a cohort of 1 to 4 visitors: no list tells the withheld pageviews, crawlers left out", async () => {
  const site = await openSite({
    now: NOW,
    config: { readKeyRatePerMinute: 1e6, publicKeyRatePerMinute: 1e6 },
  });
  try {
    // 3 visitors view "/" then four more pages each: 15 pageviews; 10 other visitors view /about only
    for (let v = 0; v < 3; v++) {
      await site.ingest(["/", "/a", "/b", "/c", "/d"].map((p, i) => pageview(v, i, p)));
    }
    for (let v = 3; v < 13; v++) await site.ingest([pageview(v, 0, "/about")]);
    for (let i = 0; i < 7; i++) {
      const hit = await site.serverEvents([{
        event_type: "$crawl",
        event_id: crypto.randomUUID(),
        host: "acme.test",
        path: "/pricing",
        status: 200,
        user_agent: GPTBOT,
      }]);
      assert.equal(hit.status, 202);
    }
    await saveCohort(site.deps, site.t.org, site.t.touchpoint, "home", { kind: "page", path: "/" });

    const plain = await site.read("behavior_overview", { period: "today" });
    assert.equal(plain.bots_and_ai_agents.crawler_requests.value, 7, "without a cohort crawlers are counted");

    const a = await site.read("behavior_overview", { period: "today", cohort: "home" });
    assert.equal(a.visitors.value, FEWER_THAN_5);
    assert.equal(a.pageviews.value, FEWER_THAN_5);
    for (const list of ["top_pages", "sources", "countries", "devices"]) {
      for (const x of a[list] as Item[]) {
        for (const [k, v] of Object.entries(x)) {
          if (k === "name") continue;
          assert.ok(
            typeof v !== "number" || v === 0,
            `${list}: ${x.name}'s ${k} is ${v} beside a whole of "fewer than 5": ${JSON.stringify(a[list])}`,
          );
        }
      }
    }
    // the answer checker finds none either
    assert.deepEqual(checkAnswer(a, { output: toolByName("behavior_overview")!.output }), []);
    const bots = a.bots_and_ai_agents;
    assert.equal(bots.crawler_requests.value, null, "a cohort does not narrow crawler requests: left out");
    assert.equal(bots.ai_crawler_requests.value, null);
    assert.deepEqual(a.top_agents, []);
    assert.ok(
      (a.notices as string[]).some((n) => /crawler/.test(n) && /cohort/.test(n)),
      `a notice says crawler figures are left out: ${JSON.stringify(a.notices)}`,
    );
  } finally {
    await site.close();
  }
});
