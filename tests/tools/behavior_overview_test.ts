import assert from "node:assert/strict";
import { checkAnswer } from "../../lib/answers/check.ts";
import { harness } from "./harness.ts";
import { DAY, distinct, humans, LAST7 } from "./expect.ts";
import { NOW, PAGES } from "./generate.ts";

const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

Deno.test("behavior_overview: no session duration for a page with fewer than 5 visitors, now or before", async () => {
  const h = await harness();
  // Find a page and a day whose visitors number 1 to 4, computed from the records.
  let found: { page: string; day: string } | null = null;
  for (let d = 1; d < 25 && !found; d++) {
    const from = Date.parse(dateOf(NOW - d * DAY));
    for (const page of PAGES) {
      const n = distinct(
        humans(h.site.events, { from, to: from + DAY }).filter((e) => e.path === page)
          .map((e) => e.anonymous_id),
      );
      if (n > 0 && n < 5) found = { page, day: dateOf(from) };
    }
  }
  assert.ok(found, "the data has a small page-day");
  const a = await h.ask("behavior_overview", { period: `${found.day}..${found.day}`, page: found.page });
  assert.ok(typeof a.visitors.value === "number" && a.visitors.value > 0 && a.visitors.value < 5);
  assert.equal(a.session_duration_s.value, null);
  assert.equal(a.session_duration_s.change, null);
  if (a.visitors.previous !== null && a.visitors.previous < 5) {
    assert.equal(a.session_duration_s.previous, null);
  }
  assert.deepEqual(checkAnswer(a, { identifiers: h.site.identifiers }), []);
  // With 5 or more visitors the duration is given.
  const all = await h.ask("behavior_overview", { period: "last_7_days" });
  assert.equal(typeof all.session_duration_s.value, "number");
  h.close();
});

Deno.test("behavior_overview: `page` narrows crawler figures and appears in the scope", async () => {
  const h = await harness();
  for (const page of ["/pricing", "/contact"]) {
    const a = await h.ask("behavior_overview", { period: "last_7_days", page });
    assert.equal(a.scope.page, page);
    assert.equal(a.scope.filter, null, "a page is not a property filter: counts stay exact");
    const hits = h.site.hits.filter((x) =>
      x.timestamp >= LAST7.from && x.timestamp < LAST7.to && x.verification !== "spoofed" && x.path === page
    );
    assert.equal(a.bots_and_ai_agents.crawler_requests.value, hits.length, page);
  }
  const site = await h.ask("behavior_overview", { period: "last_7_days" });
  assert.equal(site.scope.page, null);
  h.close();
});
