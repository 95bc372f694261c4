/**
 * The saved pages over app.request: members create their own and cannot change others' (403 flash, nothing
 * changed), owners and admins can; the cohort form's rows and JSON; refusals show the form again with what
 * was typed (422); the preview answers exactly, small groups as "fewer than 5".
 */
import assert from "node:assert/strict";
import { orgUrl, peopleWorld } from "../../helpers/people.ts";
import { findSaved, listSaved } from "../../../lib/saved/store.ts";
import { ev, store } from "../../lib/query/fixtures.ts";

Deno.test("app saved pages: authors, roles, forms, refusals and the preview", async () => {
  const w = await peopleWorld();
  try {
    const now = w.deps.clock.now();
    const events = Array.from({ length: 9 }, (_, v) =>
      ev({
        org: w.org,
        touchpoint: w.tenant.touchpoint,
        received_at: now - 3_600_000 - v,
        anonymous_id: `page-v${v}`,
        session_id: `page-s${v}`,
        event_type: v < 3 ? "purchase" : "$pageview",
        path: "/pricing",
      }));
    await store(w.deps.kv, { events });
    const mia = await w.join("mia@example.com", "member");
    const ann = await w.join("ann@example.com", "admin");
    const cohorts = orgUrl(w.org, "cohorts");

    const form = await mia.open(`${cohorts}/new`);
    assert.equal(form.status, 200);
    assert.match(form.html, /Visitors must match/);
    const row = (kind: string, value: string, extra: Record<string, string> = {}) => ({
      c0_mode: "did",
      c0_kind: kind,
      c0_value: value,
      ...extra,
    });
    // the preview: exact, with small groups guarded
    const preview = async (fields: Record<string, string>) =>
      JSON.parse((await mia.post(`${cohorts}/preview`, { touchpoint: w.tenant.touchpoint, ...fields })).html);
    assert.deepEqual(await preview(row("page", "/pricing")), {
      ok: true,
      text: "exactly 6 visitors in the last 30 days",
    });
    assert.deepEqual(await preview(row("event", "purchase")), {
      ok: true,
      text: "fewer than 5 visitors in the last 30 days",
    });
    assert.deepEqual(await preview({ c0_kind: "page" }), {
      ok: false,
      text: "condition 1: give a page path, e.g. /pricing",
    });
    // "not" over the 1 to 4 purchasers: exactly 6 beside the whole would tell how many bought (docs/saved.md)
    const notBuyers = await preview({ definition_json: '{"not":{"kind":"event","event":"purchase"}}' });
    assert.equal(notBuyers.ok, false);
    assert.match(notBuyers.text, /leaves out or adds only 1 to 4 visitors/);
    // the JSON field passes the one body guard: too deep, or a number no double holds, is refused by name
    const deep = await preview({ definition_json: '{"not":'.repeat(200) + "{}" + "}".repeat(200) });
    assert.equal(deep.ok, false);
    assert.match(deep.text, /^definition \(JSON\).*nested deeper than 64 levels/);
    const huge = await preview({ definition_json: '{"kind":"event","event":"purchase","min":1e400}' });
    assert.equal(huge.ok, false);
    assert.match(huge.text, /min: .*beyond the range of a double/);

    // a refusal shows the form again with what was typed
    const refused = await mia.post(cohorts, {
      name: "Buyers",
      touchpoint: w.tenant.touchpoint,
      ...row("country", "germany"),
    });
    assert.equal(refused.status, 422);
    assert.match(refused.html, /two-letter country code/);
    assert.match(refused.html, /value="Buyers"/);
    assert.match(refused.html, /value="germany"/);
    assert.deepEqual(await listSaved(w.deps.kv, w.org, "cohort"), []);

    const made = await mia.submit(cohorts, {
      name: "Buyers",
      touchpoint: w.tenant.touchpoint,
      match: "any",
      ...row("event", "purchase", {
        c0_prop_name: "plan",
        c0_prop_value: "pro",
        c0_min: "2",
        c0_window: "90",
      }),
      c1_mode: "not",
      c1_kind: "country",
      c1_value: "de, fr",
    });
    assert.match(made.html, /Cohort “Buyers” saved/);
    const saved = await findSaved(w.deps.kv, w.org, "Buyers", "cohort");
    assert.deepEqual(saved && "definition" in saved ? saved.definition : null, {
      any: [
        {
          kind: "event",
          event: "purchase",
          property: { name: "plan", op: "eq", value: "pro" },
          min_count: 2,
          window: { last_days: 90 },
        },
        { not: { kind: "country", values: ["DE", "FR"] } },
      ],
    });
    // the edit form shows the rows again
    const edit = await mia.open(`${cohorts}/${saved!.id}`);
    assert.match(edit.html, /name="c1_value" value="DE, FR"/);

    // another member may not change or delete it; an admin may
    const joe = await w.join("joe@example.com", "member");
    const denied = await joe.post(`${cohorts}/${saved!.id}`, {
      name: "Mine",
      touchpoint: w.tenant.touchpoint,
      ...row("event", "x"),
    });
    assert.equal(denied.status, 403);
    assert.match(denied.html, /only its author, an owner or an admin/);
    const gone = await joe.submit(`${cohorts}/${saved!.id}/delete`, {});
    assert.match(gone.html, /only its author, an owner or an admin/);
    assert.ok(await findSaved(w.deps.kv, w.org, "Buyers"), "still there");
    const list = await joe.open(cohorts);
    assert.ok(!list.html.includes(`${cohorts}/${saved!.id}/delete`), "no delete button for others' items");
    await ann.submit(`${cohorts}/${saved!.id}/delete`, {});
    assert.equal(await findSaved(w.deps.kv, w.org, "Buyers"), null);

    // an insight from the tool's schema, and a dashboard of it
    const insights = orgUrl(w.org, "insights");
    const pick = await mia.open(`${insights}/new?tool=behavior_funnel`);
    assert.match(pick.html, /name="in_steps"/);
    assert.match(pick.html, /name="in_split_by"/);
    const bad = await mia.post(insights, {
      tool: "behavior_funnel",
      name: "Funnel",
      touchpoint: w.tenant.touchpoint,
      in_steps: '[{"page":"/"}]',
    });
    assert.equal(bad.status, 422);
    assert.match(bad.html, /input of behavior_funnel: steps/);
    assert.match(bad.html, /\[\{&quot;page&quot;:&quot;\/&quot;\}\]|\[\{"page":"\/"\}\]/);
    await mia.submit(insights, {
      tool: "behavior_funnel",
      name: "Funnel",
      touchpoint: w.tenant.touchpoint,
      in_steps: '[{"page":"/"},{"page":"/pricing"}]',
      in_period: "last_7_days",
    });
    const funnel = await findSaved(w.deps.kv, w.org, "Funnel", "insight");
    assert.deepEqual(funnel && "input" in funnel ? funnel.input : null, {
      steps: [{ page: "/" }, { page: "/pricing" }],
      period: "last_7_days",
    });
    const dashboards = orgUrl(w.org, "dashboards");
    const view = await mia.submit(dashboards, {
      name: "Weekly",
      touchpoint: w.tenant.touchpoint,
      insight: funnel!.id,
      [`pos_${funnel!.id}`]: "1",
    });
    assert.equal(view.status, 200);
    assert.match(view.html, /<h2 id="insight-0">Funnel<\/h2>/);
    assert.match(view.html, /<svg[^>]*role="img"/);
  } finally {
    w.close();
  }
});

Deno.test("app saved lists: 'Updated' is a short date held on one line ('29 Nov 2026'), not an ISO day that wraps", async () => {
  const w = await peopleWorld();
  try {
    const mia = await w.join("mia@example.com", "member");
    const cohorts = orgUrl(w.org, "cohorts");
    const made = await mia.submit(cohorts, {
      name: "Buyers",
      touchpoint: w.tenant.touchpoint,
      match: "any",
      c0_mode: "did",
      c0_kind: "event",
      c0_value: "purchase",
    });
    assert.match(made.html, /Cohort “Buyers” saved/);
    const saved = await findSaved(w.deps.kv, w.org, "Buyers", "cohort");
    const at = new Date(saved!.updated_at);
    const month = at.toLocaleString("en-GB", { month: "short", timeZone: "UTC" }).slice(0, 3);
    const day = `${at.getUTCDate()}\u00a0${month}\u00a0${at.getUTCFullYear()}`;
    const list = (await mia.open(cohorts)).html;
    const cell = list.match(/<td class="nowrap"><time datetime="([^"]+)">([^<]+)<\/time><\/td>/);
    assert.ok(cell, "the Updated cell does not wrap and says when as a time");
    assert.equal(cell[1], saved!.updated_at);
    assert.equal(cell[2], day);
    assert.ok(!list.includes(`>${saved!.updated_at.slice(0, 10)}<`), "no ISO day");
  } finally {
    w.close();
  }
});
