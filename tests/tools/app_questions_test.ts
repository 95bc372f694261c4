/**
 * The app's own questions (a cohort's preview, a dashboard's figures) go through the read pipeline as the
 * "app" face and are not metered: on the free and starter plans, whose API allowance is 0, they answer, and
 * on any plan they leave this month's counters as they were (docs/saved.md: the app's questions do not count).
 */
import assert from "node:assert/strict";
import { orgUrl, peopleWorld } from "../helpers/people.ts";
import { saveItem } from "../helpers/saved.ts";
import { readUsage } from "../../lib/usage/allowance.ts";
import { getOrg } from "../../lib/tenancy/admin.ts";
import { ev, store } from "../lib/query/fixtures.ts";
import type { Plan } from "../../lib/store/records.ts";

for (const plan of ["free", "starter", "professional"] as Plan[]) {
  Deno.test(`app questions on the ${plan} plan: the cohort preview and a dashboard answer and spend nothing`, async () => {
    const w = await peopleWorld({ plan });
    try {
      const now = w.deps.clock.now();
      const events = Array.from({ length: 7 }, (_, v) =>
        ev({
          org: w.org,
          touchpoint: w.tenant.touchpoint,
          received_at: now - 3_600_000 - v,
          anonymous_id: `app-v${v}`,
          session_id: `app-s${v}`,
          event_type: "$pageview",
          path: "/pricing",
        }));
      await store(w.deps.kv, { events });
      const mia = await w.join("mia@example.com", "admin");
      const org = await getOrg(w.deps, w.org);
      const before = await readUsage(w.deps.kv, org, now);

      const preview = await mia.post(`${orgUrl(w.org, "cohorts")}/preview`, {
        touchpoint: w.tenant.touchpoint,
        c0_mode: "did",
        c0_kind: "page",
        c0_value: "/pricing",
      });
      const shown = JSON.parse(preview.html);
      assert.equal(shown.ok, true, shown.text);
      assert.match(shown.text, /\b7 visitors in the last 30 days/);

      const pages = await saveItem(w.deps, w.org, w.tenant.touchpoint, "insight", {
        name: "Pages",
        tool: "behavior_pages",
        input: { period: "last_7_days" },
      });
      const board = await saveItem(w.deps, w.org, w.tenant.touchpoint, "dashboard", {
        name: "Weekly",
        insights: [pages.id],
      });
      const view = await mia.open(`${orgUrl(w.org, "dashboards")}/${board.id}`);
      assert.equal(view.status, 200, view.html.slice(0, 400));
      assert.match(view.html, />Pages</);
      assert.doesNotMatch(view.html, /API requests/);
      assert.deepEqual(await readUsage(w.deps.kv, org, now), before, "the app's questions are not counted");
    } finally {
      w.close();
    }
  });
}
