/**
 * Reports start where a website or app starts: a period that ended before it was added, with no data in it, is
 * not reported (no "0 visitors; a quiet period" for weeks it did not exist); the period it was added in is;
 * and one whose data goes back before it was added (the demo's generated history, an import) keeps its
 * reports for the periods its data covers.
 */
import assert from "node:assert/strict";
import { NOW, plantedWorld } from "./planted.ts";
import { generateDueReports, generateNow } from "../../../pipeline/reports_generate.ts";
import { createTouchpoint, getOrg, getTouchpoint } from "../../../lib/tenancy/admin.ts";
import { listReports } from "../../../lib/reports/store.ts";
import { REPORT_ENV } from "../../../pipeline/reports_generate.ts";

const DAY = 86_400_000;

Deno.test("reports: a touchpoint added today gets none for periods before it; the period it was added in is reported", async () => {
  const w = await plantedWorld(true);
  // Tuesday 24 Nov 2026: the last closed week (16–22 Nov) and month (October) ended before it was added
  const blog = await createTouchpoint(w.deps, w.t.org, {
    name: "Blog",
    kind: "website",
    domain: "blog.acme.test",
  });
  assert.equal(await generateDueReports(w.app.ctx), 4, "the site's and the app's week and month only");
  const mine = async () =>
    (await listReports(w.deps.kv, w.t.org, REPORT_ENV)).filter((r) => r.touchpoint === blog.id).map((r) =>
      r.period_key
    ).sort();
  assert.deepEqual(await mine(), [], "no report of the Blog for weeks and months before it existed");
  w.deps.clock.advance(3_600_000);
  assert.equal(await generateDueReports(w.app.ctx), 0, "nor on a later run");
  const org = await getOrg(w.deps, w.t.org);
  const asked = await generateNow(w.app.ctx, org, await getTouchpoint(w.deps, w.t.org, blog.id), "weekly");
  assert.equal(asked.state, "not_due");
  assert.match(
    asked.state === "not_due" ? asked.reason : "",
    /^Blog was added on 24 Nov 2026, after 16–22 Nov 2026, and has no data in it$/,
  );
  // Tuesday 1 Dec: the week and the month it was added in are closed, and reported
  w.deps.clock.set(NOW + 7 * DAY);
  await generateDueReports(w.app.ctx);
  assert.deepEqual(await mine(), ["2026-11", "2026-W48"]);
  w.close();
});

Deno.test("reports: a touchpoint whose data goes back before it was added (the demo) keeps those periods' reports", async () => {
  const w = await plantedWorld(true);
  const org = await getOrg(w.deps, w.t.org);
  // the planted site as if added now, as the demo's is at dev start: its data of 9–22 Nov is older
  const site = {
    ...await getTouchpoint(w.deps, w.t.org, w.t.touchpoint),
    created_at: new Date(NOW).toISOString(),
  };
  const week = await generateNow(w.app.ctx, org, site, "weekly");
  assert.equal(week.state, "created", "16–22 Nov has visitors: reported");
  const month = await generateNow(w.app.ctx, org, site, "monthly");
  assert.ok(
    month.state === "not_due" && month.reason,
    "October has no data before it was added: not reported",
  );
  w.close();
});
