/**
 * Reports → Generate now offers the weeks and months a report can be made of: from each website's or app's
 * first data (data imported from before it was added counts) or the day it was added, whichever is first. The
 * list offered 26 weeks back whatever the data, and the ones before the data were refused ("... has no data
 * in it"). A period only some websites and apps can be reported for names them.
 */
import assert from "node:assert/strict";
import { orgUrl, peopleWorld } from "../../helpers/people.ts";
import { TEST_ADMIN_TOKEN } from "../../helpers/deps.ts";
import { adminCall } from "../../helpers/tenant.ts";
import { event } from "../../helpers/events.ts";
import { closedPeriods } from "../../../lib/reports/periods.ts";

const DAY = 86_400_000;

Deno.test("generate now: periods are offered from the first data or the day added on, not before", async () => {
  const w = await peopleWorld();
  try {
    // the site is added on Fri 20 Nov 2026; its data, imported, begins on Wed 28 Oct
    const first = Date.parse("2026-10-28T10:00:00Z");
    const line = (at: number, id: string) =>
      JSON.stringify({
        kind: "event",
        received_at: new Date(at).toISOString(),
        ...event({ anonymous_id: id, session_id: `s-${id}`, device_time: new Date(at).toISOString() }),
      });
    const res = await w.app.request(`/admin/v1/orgs/${w.org}/import?touchpoint=${w.tenant.touchpoint}`, {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      body: [line(first, "a"), line(first + 3 * DAY, "b"), line(first + 20 * DAY, "c")].join("\n"),
    });
    assert.equal((await res.json()).imported, 3);
    // a blog is added three weeks later (Fri 11 Dec), with no data; the page is seen on Fri 8 Jan 2027
    w.deps.clock.advance(21 * DAY);
    await adminCall(w.app, TEST_ADMIN_TOKEN, "POST", `/orgs/${w.org}/touchpoints`, {
      name: "Acme blog",
      kind: "website",
      domain: "blog.acme.test",
    });
    w.deps.clock.advance(28 * DAY);
    const owner = await w.join("owner@acme.test", "owner");
    const reports = orgUrl(w.org, "reports");
    const page = await owner.open(reports);
    assert.equal(page.status, 200);
    const options = new Map(
      [...page.html.matchAll(/<option value="((?:weekly|monthly):[^"]+)"[^>]*>([^<]*)<\/option>/g)].map((
        m,
      ) => [m[1], m[2]]),
    );
    const now = w.deps.clock.now();
    const weeks = closedPeriods("weekly", now, "UTC", 26);
    const months = closedPeriods("monthly", now, "UTC", 12);
    const week = (from: string) => weeks.find((p) => p.from === from)!;
    // the week of the first data and every one after it; none before
    assert.ok(options.has(`weekly:${week("2026-10-26").key}`), [...options.keys()].join(" "));
    assert.ok(!options.has(`weekly:${week("2026-10-19").key}`), [...options.keys()].join(" "));
    assert.equal(
      [...options.keys()].filter((k) => k.startsWith("weekly:")).length,
      weeks.filter((p) => p.from >= "2026-10-26").length,
    );
    const month = (key: string) => months.find((p) => p.key === key)!;
    assert.ok(options.has(`monthly:${month("2026-10").key}`));
    assert.ok(!options.has(`monthly:${month("2026-09").key}`));
    // before the blog was added (its week: 7–13 Dec), a period is the site's only, and says so
    assert.match(options.get(`weekly:${week("2026-10-26").key}`)!, /\(Acme site only\)/);
    assert.match(options.get(`monthly:2026-11`)!, /\(Acme site only\)/);
    assert.doesNotMatch(options.get(`weekly:${week("2026-12-07").key}`)!, /only/);
    assert.doesNotMatch(options.get(`monthly:2026-12`)!, /only/);

    // the first week offered is made; the one before it is still refused when sent by hand
    const made = await owner.submit(`${reports}/generate`, {
      touchpoint: w.tenant.touchpoint,
      period: `weekly:${week("2026-10-26").key}`,
    });
    assert.match(made.html, /Report of Acme site, week of [^,]+, generated/);
    const refused = await owner.submit(`${reports}/generate`, {
      touchpoint: w.tenant.touchpoint,
      period: `weekly:${week("2026-10-19").key}`,
    });
    assert.match(refused.html, /has no data in it/);
  } finally {
    await w.close();
  }
});
