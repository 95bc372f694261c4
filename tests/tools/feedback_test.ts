/**
 * The feedback tools through the HTTP read API: an own iOS app (its listing names the organization's site,
 * on its verified domain) and a followed Android app. Every answer passes the answer checker, which is told
 * the followed app's review texts: rule 3 holds when none of them is ever quoted.
 */
import assert from "node:assert/strict";
import { harness } from "./harness.ts";
import { adminCall } from "../helpers/tenant.ts";
import { TEST_ADMIN_TOKEN } from "../helpers/deps.ts";
import { checkAnswer } from "../../lib/answers/check.ts";
import { setListing } from "../../lib/feedback/store.ts";
import { addDomain, removeDomain, txtRecordOf, verifyDomain } from "../../lib/tenancy/verified_domains.ts";
import type { FakeDns } from "../helpers/deps.ts";
import { verifiedDomain } from "../helpers/verified_domain.ts";
import { keys } from "../../lib/store/keys.ts";
import { ANALYSIS_VERSION } from "../../lib/feedback/analysis/analyze.ts";
import type { StoredReview } from "../../lib/feedback/types.ts";

const DAY = 86_400_000;

async function setup() {
  const h = await harness({ visitors: 30, days: 20 });
  const now = h.deps.clock.now();
  const admin = (method: string, path: string, body?: unknown) =>
    adminCall(h.app, TEST_ADMIN_TOKEN, method, path, body);
  const ios = await admin("POST", `/orgs/${h.t.org}/touchpoints`, { name: "Acme iOS", kind: "ios" });
  const own = await admin("POST", `/orgs/${h.t.org}/apps`, {
    store: "app_store",
    store_id: "123456789",
    touchpoint: ios.id,
    name: "Acme",
  });
  const rival = await admin("POST", `/orgs/${h.t.org}/apps`, {
    store: "google_play",
    store_id: "com.rival.app",
    name: "Rival",
  });
  await setListing(h.deps.kv, h.t.org, own.id, {
    name: "Acme",
    developer: "Acme",
    developer_website: `https://www.${h.t.domain}/`,
    version: "2.0",
    fetched_at: now,
  });
  await verifiedDomain(h.deps, h.t.org, h.t.domain);
  await setListing(h.deps.kv, h.t.org, rival.id, {
    name: "Rival",
    developer: "Rival",
    developer_website: "https://rival.example",
    version: "9",
    fetched_at: now,
  });
  const line = (id: string, rating: number, text: string, daysAgo: number, version = "2.0") =>
    JSON.stringify({
      id,
      rating,
      text,
      date: new Date(now - daysAgo * DAY).toISOString(),
      version,
      author: `Author ${id}`,
    });
  const ownLines = [
    line(
      "o1",
      1,
      "App keeps crashing when I open my notes. Write me at jo.doe@example.com or +49 30 1234 5678",
      2,
    ),
    line("o2", 2, "Crashes after the update, please fix", 3, "2.1"),
    line("o3", 5, "Love it, works great", 4),
    line("o4", 4, "Please add a dark mode, would be nice", 5),
    line("o5", 1, "Way too expensive, the subscription doubled", 6),
    line("o6", 2, "Keeps crashing on start", 40),
  ];
  const followed = [
    "Rival drains the battery of my phone overnight",
    "The rival sync loses all my shopping lists",
    "Crashes whenever the rival scanner starts",
  ];
  const rivalLines = followed.map((t, i) => line(`r${i}`, 2, t, i + 1));
  const imp = async (app: string, lines: string[]) =>
    await (await h.app.request(`/admin/v1/orgs/${h.t.org}/apps/${app}/reviews/import`, {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "content-type": "application/x-ndjson" },
      body: lines.join("\n"),
    })).json();
  assert.equal((await imp(own.id, ownLines)).imported, 6);
  assert.equal((await imp(rival.id, rivalLines)).imported, 3);
  return { h, own, rival, followed, imp, line };
}

Deno.test("feedback tools: summary, themes and reviews keep rules 3 and 4 (checker over every answer)", async () => {
  const { h, rival, followed } = await setup();
  try {
    const answers: Record<string, unknown>[] = [];
    const ask = async (tool: string, input: Record<string, unknown> = {}) => {
      const a = await h.ask(tool, input);
      answers.push(a);
      return a;
    };
    const sum = await ask("feedback_summary", { period: "last_28_days" });
    assert.equal(sum.apps_total, 1, "omitted app: the own apps");
    assert.equal(sum.apps[0].app.own, true);
    assert.match(sum.apps[0].app.ownership, /on the verified domain acme\.test/);
    assert.equal(sum.apps[0].reviews.value, 5);
    assert.equal(sum.apps[0].reviews.previous, 1);
    assert.deepEqual(sum.apps[0].versions.map((v: { version: string }) => v.version), ["2.1", "2.0"]);

    const rivalSum = await ask("feedback_summary", { app: "com.rival.app" });
    assert.equal(rivalSum.apps[0].app.own, false);
    assert.equal(rivalSum.apps[0].reviews.value, 3);

    const themes = await ask("feedback_themes", { rising_first: true });
    const crash = themes.apps[0].themes.find((t: { id: string }) => t.id === "crashes_bugs");
    assert.equal(crash.reviews, 2);
    assert.equal(crash.dominant_intent, "bug_report");
    assert.ok(crash.examples.length > 0);
    assert.ok(crash.examples.some((e: string) => e.includes("crashing")));
    const rivalThemes = await ask("feedback_themes", { app: rival.id });
    assert.ok(rivalThemes.apps[0].themes.length > 0);
    for (const t of rivalThemes.apps[0].themes) assert.deepEqual(t.examples, [], "followed apps: no quotes");
    assert.ok(rivalThemes.notices.some((n: string) => /counts only, no quotes/.test(n)));

    const reviews = await ask("feedback_reviews", { intent: "bug_report" });
    assert.equal(reviews.reviews_total, 2);
    const text = JSON.stringify(reviews);
    assert.ok(text.includes("[email]") && text.includes("[phone]"), "emails and phones masked");
    assert.ok(!text.includes("jo.doe@example.com") && !text.includes("1234 5678"));
    assert.ok(!text.includes("Author"), "never the author");
    await ask("feedback_reviews", { theme: "pricing and subscriptions" });

    const refused = await h.askRaw("feedback_reviews", { app: "Rival" });
    assert.equal(refused.status, 422);
    assert.match((await refused.json()).error, /not the organization's own app.*rule 3/);

    for (const a of answers) {
      assert.deepEqual(
        checkAnswer(a, { followedTexts: followed, identifiers: ["Author o1", "Author r0"] }),
        [],
      );
    }
    // The checker can fail: the same answer quoting a followed review is caught, by text and by shape.
    const doctored = structuredClone(rivalThemes);
    doctored.apps[0].themes[0].examples = ["The rival sync loses all my shopping lists"];
    const found = checkAnswer(doctored, { followedTexts: followed });
    assert.ok(found.some((v) => v.includes("quotes a review of an app the organization does not own")));
    assert.ok(found.some((v) => v.includes(`"examples" of an app the organization does not own`)));
  } finally {
    h.close();
  }
});

Deno.test("feedback tools: an app whose listing names no site on a verified domain is not own", async () => {
  const { h, own } = await setup();
  try {
    await setListing(h.deps.kv, h.t.org, own.id, {
      name: "Acme",
      developer: "Acme",
      developer_website: "https://elsewhere.example",
      version: "2",
      fetched_at: 0,
    });
    const res = await h.askRaw("feedback_themes", { app: "Acme" });
    const body = await res.json();
    assert.equal(body.apps[0].app.own, false);
    for (const t of body.apps[0].themes) assert.deepEqual(t.examples, []);
    assert.equal((await h.askRaw("feedback_reviews", { app: "Acme" })).status, 422);
  } finally {
    h.close();
  }
});

Deno.test("feedback tools: an app whose developer website is on a verified domain is own, and only while verified", async () => {
  const { h, own } = await setup();
  try {
    // The listing names a site that sends no events: own only through the organization's verified domain.
    await setListing(h.deps.kv, h.t.org, own.id, {
      name: "Acme",
      developer: "Acme",
      developer_website: "https://apps.acme-labs.example/ios",
      version: "2",
      fetched_at: 0,
    });
    const ownNow = async () =>
      (await (await h.askRaw("feedback_summary", { app: "Acme" })).json()).apps[0].app;
    const d = await addDomain(h.deps.kv, h.deps.clock, h.t.org, "acme-labs.example");
    let app = await ownNow();
    assert.equal(app.own, false, "a domain waiting for its TXT check does not count");
    assert.equal((await h.askRaw("feedback_reviews", { app: "Acme" })).status, 422);

    const { name, value } = txtRecordOf(d);
    (h.deps.dns as FakeDns).txtRecords.set(name, [value]);
    assert.equal((await verifyDomain(h.deps.kv, h.deps.dns, h.deps.clock, h.t.org, d.domain)).verified, true);
    app = await ownNow();
    assert.equal(app.own, true);
    assert.match(app.ownership, /on the verified domain acme-labs\.example/);
    const reviews = await h.askRaw("feedback_reviews", { app: "Acme" });
    assert.equal(reviews.status, 200);
    assert.ok((await reviews.json()).reviews.length > 0);

    await removeDomain(h.deps.kv, h.t.org, d.domain);
    assert.equal((await ownNow()).own, false, "a removed domain no longer makes the app own");
  } finally {
    h.close();
  }
});

Deno.test("feedback tools: a theme's example quotes are distinct, even when reviews repeat one sentence", async () => {
  const { h, own, imp, line } = await setup();
  try {
    // Three newer reviews whose crash sentence is the same (one with another case and spacing) and one
    // whose text differs only in what follows it: the quotes are the sentence naming the theme.
    const same = [
      line("d1", 1, "Keeps crashing on start.", 0),
      line("d2", 1, "keeps  crashing on START.", 0.5),
      line("d3", 2, "Keeps crashing on start. Deleting it.", 1),
    ];
    assert.equal((await imp(own.id, same)).imported, 3);
    const themes = await h.ask("feedback_themes", { theme: "crashes_bugs" });
    const crash = themes.apps[0].themes[0];
    assert.equal(crash.reviews, 5);
    assert.equal(crash.examples.length, 3);
    const folded = crash.examples.map((e: string) => e.toLowerCase().replace(/\s+/g, " "));
    assert.equal(new Set(folded).size, 3, `distinct quotes: ${JSON.stringify(crash.examples)}`);
    assert.ok(folded.includes("keeps crashing on start."), "the newest of the repeated sentence is kept");
  } finally {
    h.close();
  }
});

Deno.test("feedback tools: a review stored under an older analysis is answered with the current one", async () => {
  const { h, own } = await setup();
  try {
    // o2 ("Crashes after the update, please fix", 2 stars) as an older analysis version left it: praise,
    // positive, no topic. The instance reads it for the first time (a new deployment starts with no cache).
    const key = keys.feedbackReview(h.t.org, own.id, "o2");
    const stored = (await h.deps.kv.get<StoredReview>(key)).value!;
    assert.equal(stored.analysis.v, ANALYSIS_VERSION, "stored with the current version");
    await h.deps.kv.set(key, {
      ...stored,
      analysis: {
        ...stored.analysis,
        v: ANALYSIS_VERSION - 1,
        sentiment: "positive",
        intent: "praise",
        topics: [],
        phrases: [],
      },
    });
    const bugs = await h.ask("feedback_reviews", { intent: "bug_report" });
    const o2 = bugs.reviews.find((r: { text: string }) => r.text.startsWith("Crashes after the update"));
    assert.ok(o2, "answered with the current intent");
    assert.equal(o2.sentiment, "negative");
    assert.deepEqual(o2.themes, [{ id: "crashes_bugs", label: "crashes and bugs" }]);
    const themes = await h.ask("feedback_themes", { theme: "crashes_bugs" });
    assert.equal(themes.apps[0].themes[0].reviews, 2);
  } finally {
    h.close();
  }
});
