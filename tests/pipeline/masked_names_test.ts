/**
 * Answers mask personal data inside names (lib/answers/privacy.ts): an event "signup jane@x.test" is listed as
 * "signup [email]", a page "/account/jane@x.test" as "/account/[email]". Asked back with the shown name, a tool
 * answered 0 with no notice (found in review): the masked form matches nothing stored. Now any tool input that
 * names an event, a page, a property or its value, a source or a search and holds one of the placeholders is a
 * 422 naming the field, why, and what to ask instead (toolkit/masked_inputs.ts, applied in validateInput for
 * every tool). The original names still answer. Real HTTP ingest and reads on a real KV file.
 */
import assert from "node:assert/strict";
import { HttpError } from "../../lib/errors.ts";
import { validateInput } from "../../pipeline/run.ts";
import { checkInsightInput } from "../../pipeline/saved_insights.ts";
import { TOOLS } from "../../tools/registry.ts";
import { openSite, pageviewAt } from "../helpers/site.ts";

const NOW = Date.parse("2026-11-18T09:30:00Z");
const ADDRESS = "jane.roe@example.test";
const EVENT = `signup ${ADDRESS}`;
const PAGE = `/account/${ADDRESS}`;

let seq = 0;
const event = (v: number, type: string, properties: Record<string, unknown> = {}) => ({
  event_id: crypto.randomUUID(),
  anonymous_id: `v${v}`,
  session_id: `s${v}`,
  sequence_no: seq++,
  platform: "web",
  event_type: type,
  screen: "/signup",
  properties: { path: "/signup", url: "https://acme.test/signup", ...properties },
  device_time: new Date(NOW - 3_600_000 + seq).toISOString(),
});

async function refused(
  site: Awaited<ReturnType<typeof openSite>>,
  tool: string,
  input: Record<string, unknown>,
  field: RegExp,
) {
  const res = await site.ask(tool, input);
  const body = await res.json();
  assert.equal(res.status, 422, `${tool} ${JSON.stringify(input)}: ${res.status} ${JSON.stringify(body)}`);
  assert.match(body.error, field, `${tool}: ${body.error}`);
  assert.match(body.error, /\[email\]/, `${tool}: ${body.error}`);
  assert.match(body.error, /e-mail address/, `${tool}: ${body.error}`);
  return body.error as string;
}

Deno.test("a name as answers show it masked, asked back, is a 422 naming the field; the original still answers", async () => {
  const site = await openSite({
    now: NOW - 3_600_000,
    config: { readKeyRatePerMinute: 1e6, publicKeyRatePerMinute: 1e6 },
  });
  try {
    for (let v = 0; v < 6; v++) {
      const batch = [
        pageviewAt(v, "/signup", NOW - 3_600_000 + v * 1000),
        pageviewAt(v, PAGE, NOW - 3_600_000 + v * 1000 + 500),
        event(v, EVENT, { plan: "pro", contact: ADDRESS }),
      ];
      assert.equal((await site.ingest(batch)).status, 204);
    }
    site.deps.clock.set(NOW);

    // the answers show the masked forms
    const events = await site.read("behavior_events", { period: "today" });
    const shownEvent = events.events.map((e: { name: string }) => e.name).find((n: string) =>
      n.includes("[")
    );
    assert.equal(shownEvent, "signup [email]", JSON.stringify(events.events));
    const pages = await site.read("behavior_pages", { period: "today" });
    const shownPage = pages.pages.map((p: { page: string }) => p.page).find((n: string) => n.includes("["));
    assert.equal(shownPage, "/account/[email]", JSON.stringify(pages.pages));

    // asked back with them: a 422 naming the field, not a silent 0
    const trends = await refused(
      site,
      "behavior_trends",
      { period: "today", event: shownEvent },
      /: event: "/,
    );
    assert.match(trends, /"signup \[email\]"/);
    assert.match(trends, /search "signup"/, "points to the part without the placeholder");
    await refused(site, "behavior_event_properties", { period: "today", event: shownEvent }, /: event: "/);
    await refused(site, "behavior_overview", { period: "today", page: shownPage }, /: page: "/);
    await refused(site, "behavior_sessions", { period: "today", page: shownPage }, /: page: "/);
    await refused(site, "behavior_events", { period: "today", search: "[email]" }, /: search: "/);
    await refused(site, "behavior_pages", { period: "today", search: "/account/[email]" }, /: search: "/);
    await refused(
      site,
      "behavior_trends",
      { period: "today", event: "signup", property: "contact", property_value: "[email]" },
      /: property_value: "/,
    );
    await refused(
      site,
      "behavior_funnel",
      { period: "today", steps: [{ page: "/signup" }, { event: shownEvent }] },
      /: steps\[1\]\.event: "/,
    );
    await refused(site, "behavior_paths", { period: "today", page: shownPage }, /: page: "/);
    await refused(
      site,
      "behavior_retention",
      { period: "today", cohort_event: shownEvent },
      /: cohort_event: "/,
    );
    // the other placeholders too
    const phone = await site.ask("behavior_trends", { period: "today", event: "call [phone]" });
    assert.equal(phone.status, 422);
    assert.match((await phone.json()).error, /: event: .*phone number/);

    // the original names still answer
    const trend = await site.read("behavior_trends", { period: "today", event: EVENT, metric: "events" });
    assert.equal(trend.total.value, 6, JSON.stringify(trend.total));
    const props = await site.read("behavior_event_properties", { period: "today", event: EVENT });
    assert.ok(
      props.properties.some((p: { property: string }) => p.property === "plan"),
      JSON.stringify(props),
    );
    const overview = await site.read("behavior_overview", { period: "today", page: PAGE });
    assert.equal(overview.visitors.value, 6, JSON.stringify(overview.visitors));
    // a search for the part without the placeholder finds the event
    const found = await site.read("behavior_events", { period: "today", search: "signup" });
    assert.ok(found.events.some((e: { name: string }) => e.name === "signup [email]"), JSON.stringify(found));
  } finally {
    await site.close();
  }
});

Deno.test("the masked-name rule: saved insights too; reviews, stored masked, are still searched for a placeholder", () => {
  const tool = (name: string) => TOOLS.find((t) => t.name === name)!;
  const is422 = (re: RegExp) => (err: unknown) => {
    assert.ok(err instanceof HttpError);
    assert.equal(err.status, 422);
    assert.match(err.message, re);
    return true;
  };
  // an insight saved with a shown name would show 0 on every dashboard
  assert.throws(
    () => checkInsightInput("behavior_trends", { event: "signup [email]" }),
    is422(/input of behavior_trends: event: "signup \[email\]" is how answers show an event name/),
  );
  // a page: the part before it, as a search and as a section step
  assert.throws(
    () => validateInput(tool("behavior_overview"), { page: "/account/[email]" }),
    is422(/search "\/account\/".*step "\/account\/\*"/),
  );
  // a search ignores case, so "[EMAIL]" is refused too; an exact name only as answers write it
  assert.throws(
    () => validateInput(tool("behavior_events"), { search: "[EMAIL]" }),
    is422(/search: "\[EMAIL\]"/),
  );
  assert.doesNotThrow(() => validateInput(tool("behavior_trends"), { event: "signup [EMAIL]" }));
  // names without a placeholder, and brackets of other words, pass
  assert.doesNotThrow(() => validateInput(tool("behavior_trends"), { event: "signup" }));
  assert.doesNotThrow(() => validateInput(tool("behavior_overview"), { page: "/docs/[slug]" }));
  // review texts are stored masked (lib/feedback/store.ts): "[email]" finds the reviews that held an address
  assert.doesNotThrow(() => validateInput(tool("feedback_reviews"), { search: "[email]" }));
});
