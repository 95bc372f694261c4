/**
 * The app for people over HTTP: an insight built from step rows (no JSON), a duplicate name refused with 409
 * and the same words in every form, a store key cut short refused before it is saved, a report generated for
 * a past week on request, and the figures' formatting.
 */
import assert from "node:assert/strict";
import { orgUrl, peopleWorld } from "../../helpers/people.ts";
import { findSaved } from "../../../lib/saved/store.ts";
import { adminCall } from "../../helpers/tenant.ts";
import { TEST_ADMIN_TOKEN } from "../../helpers/deps.ts";
import { keys } from "../../../lib/store/keys.ts";
import { duration } from "../../../lib/format/duration.ts";
import { formatValue, signedChange, versus } from "../../../lib/format/figures.ts";
import { metricLabel } from "../../../lib/format/labels.ts";
import { closedPeriods } from "../../../lib/reports/periods.ts";
import { ev, store } from "../../lib/query/fixtures.ts";

Deno.test("figures for people: labels, percentages, durations, thousands and signed changes", () => {
  assert.equal(versus("visitors", 547, 619, -0.1163), "547 vs 619 (−11.6%)");
  assert.equal(formatValue("bounce_rate", 0.5633), "56.3%");
  // one figure, never split over two lines: no-break spaces
  assert.equal(formatValue("session_duration_s", 81.9), "1\u00a0min\u00a022\u00a0s");
  assert.equal(formatValue("pageviews", 12345), "12,345");
  assert.equal(formatValue("visitors", "fewer than 5"), "fewer than 5");
  assert.equal(signedChange(13.608), "+1,360.8%");
  assert.equal(signedChange(0), "±0%");
  assert.equal(duration(7265), "2\u00a0h\u00a01\u00a0min");
  assert.equal(metricLabel("session_duration_s"), "Session duration");
  assert.equal(metricLabel("splits_withheld"), "Groups withheld (fewer than 5 visitors)");
  assert.equal(metricLabel("some_new_metric_ms"), "Some new metric");
});

Deno.test("report periods: the closed weeks and months, newest first", () => {
  const now = Date.parse("2026-11-26T12:00:00Z");
  const weeks = closedPeriods("weekly", now, "Europe/Berlin", 3).map((p) => p.key);
  assert.deepEqual(weeks, ["2026-W47", "2026-W46", "2026-W45"]);
  const months = closedPeriods("monthly", now, "Europe/Berlin", 2).map((p) => p.key);
  assert.deepEqual(months, ["2026-10", "2026-09"]);
});

Deno.test("app for people: step rows, one refusal for a taken name, a key cut short, a past week on request", async () => {
  const w = await peopleWorld();
  try {
    const mia = await w.join("mia@example.com", "owner");
    const insights = orgUrl(w.org, "insights");
    const tp = w.tenant.touchpoint;

    // a funnel from step rows: moved with a button (the form comes back, nothing saved), then saved
    const moved = await mia.post(insights, {
      tool: "behavior_funnel",
      name: "Signup funnel",
      touchpoint: tp,
      step_count: "3",
      step_kind_0: "page",
      step_value_0: "/",
      step_kind_1: "event",
      step_value_1: "sign_up",
      step_kind_2: "page",
      step_value_2: "/pricing",
      op: "up:2",
    });
    assert.equal(moved.status, 200);
    assert.match(moved.html, /name="step_value_1" value="\/pricing"/);
    assert.equal(await findSaved(w.deps.kv, w.org, "Signup funnel"), null);
    await mia.submit(insights, {
      tool: "behavior_funnel",
      name: "Signup funnel",
      touchpoint: tp,
      step_count: "3",
      step_kind_0: "page",
      step_value_0: "/",
      step_kind_1: "page",
      step_value_1: "/pricing",
      step_kind_2: "event",
      step_value_2: "sign_up",
      in_period: "custom",
      in_period_from: "2026-11-01",
      in_period_to: "2026-11-07",
    });
    const saved = await findSaved(w.deps.kv, w.org, "Signup funnel", "insight");
    assert.deepEqual(saved && "input" in saved ? saved.input : null, {
      steps: [{ page: "/" }, { page: "/pricing" }, { event: "sign_up" }],
      period: "2026-11-01..2026-11-07",
    });
    const list = await mia.open(insights);
    assert.match(list.html, /Funnel · [^<]* · 1–7 Nov 2026 · \/ → \/pricing → sign_up/);
    const own = await mia.open(`${insights}/${saved!.id}`);
    assert.equal(own.status, 200);
    assert.match(own.html, /<svg[^>]*role="img"/, "the insight's page shows its result");

    // a taken name: 409 and the same words from every form
    const again = await mia.post(insights, {
      tool: "behavior_overview",
      name: "signup FUNNEL",
      touchpoint: tp,
    });
    const dash = await mia.post(orgUrl(w.org, "dashboards"), {
      name: "Signup funnel",
      touchpoint: tp,
      insight: saved!.id,
    });
    const cohort = await mia.post(orgUrl(w.org, "cohorts"), {
      name: "Signup funnel",
      touchpoint: tp,
      c0_kind: "page",
      c0_value: "/pricing",
    });
    for (const r of [again, dash, cohort]) {
      assert.equal(r.status, 409);
      assert.match(r.html, /is taken in this organization/);
    }

    // a store key cut short is refused before anything is stored
    w.deps.config.credentialsKey = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));
    const admin = (method: string, path: string, body?: unknown) =>
      adminCall(w.app, TEST_ADMIN_TOKEN, method, path, body);
    const ios = await admin("POST", `/orgs/${w.org}/touchpoints`, { name: "Acme iOS", kind: "ios" });
    const app = await admin("POST", `/orgs/${w.org}/apps`, {
      store: "app_store",
      store_id: "123456789",
      touchpoint: ios.id,
      name: "Acme for iPhone",
    });
    const cut = "-----BEGIN PRIVATE KEY-----\nMIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQgabcdefgh";
    const html = (await mia.submit(orgUrl(w.org, `settings/store-credentials/${app.id}`), {
      issuer_id: "iss-1",
      key_id: "K1",
      private_key: cut,
    })).html;
    assert.match(html, /Private key \(the \.p8 file(&#39;|')s text\): the key is cut short/);
    assert.equal((await w.deps.kv.get(keys.feedbackCredential(w.org, app.id))).value, null);

    // a report for a past week, chosen from the list: the site sent a visit the week before last, before it
    // was added (a week before a touchpoint existed is offered only when it has data)
    const reports = orgUrl(w.org, "reports");
    const past = closedPeriods("weekly", w.deps.clock.now(), "UTC", 2)[1];
    const week = past.key;
    await store(w.deps.kv, {
      events: [ev({
        org: w.org,
        touchpoint: tp,
        received_at: Date.parse(`${past.from}T12:00:00Z`),
        anonymous_id: "past-v",
        session_id: "past-s",
        event_type: "$pageview",
        path: "/",
      })],
    });
    const page = await mia.open(reports);
    assert.match(
      page.html,
      new RegExp(`<option value="weekly:${week}"(?! selected)`),
      "older weeks are offered",
    );
    const made = await mia.submit(`${reports}/generate`, { touchpoint: tp, period: `weekly:${week}` });
    assert.match(made.html, /Report of [^<]*, week of [^<]*, generated/);
    const future = await mia.submit(`${reports}/generate`, { touchpoint: tp, period: "weekly:2999-W01" });
    assert.match(future.html, /only a week or month that has ended/);
  } finally {
    w.close();
  }
});
