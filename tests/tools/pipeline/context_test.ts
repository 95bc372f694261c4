/** The tool context (pipeline/context.ts): touchpoint and period inputs, resolved alike for every tool. */
import assert from "node:assert/strict";
import { TEST_ADMIN_TOKEN } from "../../helpers/deps.ts";
import { adminCall } from "../../helpers/tenant.ts";
import { harness } from "../harness.ts";

Deno.test("touchpoint input: one site needs no name; with two, a 422 lists the choices; names, ids and domains work", async () => {
  const h = await harness({ visitors: 10 });
  assert.equal((await h.ask("behavior_pages", {})).scope.touchpoint.id, h.t.touchpoint);
  const app = await adminCall(h.app, TEST_ADMIN_TOKEN, "POST", `/orgs/${h.t.org}/touchpoints`, {
    name: "Acme iOS",
    kind: "ios",
  });
  const res = await h.askRaw("behavior_pages", {});
  assert.equal(res.status, 422);
  const { error } = await res.json();
  assert.match(error, /Acme site/);
  assert.match(error, /Acme iOS/);
  for (const name of ["Acme site", h.t.touchpoint, "acme.test"]) {
    assert.equal(
      (await h.ask("behavior_pages", { touchpoint: name })).scope.touchpoint.id,
      h.t.touchpoint,
      name,
    );
  }
  const unknown = await h.askRaw("behavior_pages", { touchpoint: "Nope" });
  assert.equal(unknown.status, 422);
  const crawlOnApp = await h.askRaw("behavior_crawl_coverage", { touchpoint: app.id });
  assert.equal(crawlOnApp.status, 422);
  assert.match((await crawlOnApp.json()).error, /is an app/);
  const appPages = await h.ask("behavior_pages", { touchpoint: "Acme iOS" });
  assert.equal(appPages.pages_total, 0);
  h.close();
});

Deno.test("read answers: a reversed date range is a 422 saying from is after to", async () => {
  const h = await harness();
  const res = await h.askRaw("behavior_overview", { period: "2026-11-10..2026-11-01" });
  assert.equal(res.status, 422);
  assert.match((await res.json()).error, /from is after to/);
  h.close();
});

Deno.test("read answers: a period cut by the history limit says so in notices; a cut previous window gives no change", async () => {
  const h = await harness({ config: { plans: { professional: { history_days: 30 } } } });
  const cut = await h.ask("behavior_overview", { period: "last_90_days" });
  assert.equal(cut.scope.period.cut_by_history, true);
  assert.ok(cut.notices.some((n: string) => /period cut/.test(n) && /30-day history/.test(n)), cut.notices);
  const noPrev = await h.ask("behavior_overview", { period: "last_28_days" });
  assert.equal(noPrev.scope.period.previous, null);
  assert.equal(noPrev.visitors.previous, null);
  assert.equal(noPrev.visitors.change, null);
  assert.ok(noPrev.notices.some((n: string) => /no comparison/.test(n)), noPrev.notices);
  h.close();
});
