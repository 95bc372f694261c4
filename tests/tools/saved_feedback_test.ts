/**
 * A saved insight over app reviews (feedback_summary, feedback_themes, feedback_reviews take `app`, not
 * `touchpoint`): run from behavior_saved and from the app's pages, an insight of an iOS touchpoint asks about
 * that touchpoint's app, and one of the website about every own app. Saved items belong to a touchpoint, which
 * these tools refuse as an input: every review insight answered "unknown field touchpoint" before.
 */
import assert from "node:assert/strict";
import { openSite } from "../helpers/site.ts";
import { joinOrg } from "../helpers/people.ts";
import { verifiedDomain } from "../helpers/verified_domain.ts";
import { setListing } from "../../lib/feedback/store.ts";
import { saveItem } from "../helpers/saved.ts";
import { addMember } from "../../lib/people/members.ts";

const NOW = Date.parse("2026-11-20T10:00:00Z");

Deno.test("saved review insights: behavior_saved and the app ask the insight's app, never with a touchpoint", async () => {
  const s = await openSite({ now: NOW });
  try {
    await verifiedDomain(s.deps, s.t.org, s.t.domain);
    const ios = await s.admin("POST", "/touchpoints", { name: "Acme iOS", kind: "ios" });
    const own = await s.admin("POST", "/apps", {
      store: "app_store",
      store_id: "284882215",
      name: "Acme",
      touchpoint: ios.id,
    });
    await setListing(s.kv, s.t.org, own.id, {
      name: "Acme",
      developer: "Acme",
      developer_website: `https://www.${s.t.domain}`,
      version: "2.1",
      fetched_at: NOW,
    });
    await s.importReviews(
      own.id,
      Array.from({ length: 6 }, (_, i) => ({
        id: `r${i}`,
        author: `Reviewer ${i}`,
        rating: 1 + (i % 2),
        text: "The app keeps crashing when I open the camera since the update",
        date: "2026-11-18T09:00:00Z",
      })),
    );
    const owner = { user: "user-owner", role: "owner" as const };
    await addMember(s.deps.kv, s.deps.clock, s.t.org, owner.user, "owner");
    const ofApp = await saveItem(s.deps, s.t.org, ios.id, "insight", {
      name: "Review summary",
      tool: "feedback_summary",
      input: { period: "last_7_days" },
    }, owner);
    await saveItem(s.deps, s.t.org, s.t.touchpoint, "insight", {
      name: "Review themes of the site",
      tool: "feedback_themes",
      input: { period: "last_7_days" },
    }, owner);

    // the read API: both insights answer as their tool does
    for (const name of ["Review summary", "Review themes of the site"]) {
      const res = await s.ask("behavior_saved", { action: "insight", name });
      const text = await res.text();
      assert.equal(res.status, 200, `${name}: ${text}`);
      assert.match(text, /"name":"Acme"/, `${name} is about the app`);
    }
    const summary = await s.read("behavior_saved", { action: "insight", name: "Review summary" });
    assert.equal(summary.insight.answer.apps[0].reviews.value, 6, JSON.stringify(summary));

    // the app: the insight's page and a new review insight's first result, signed in as a member
    const mia = await joinOrg(s.app, s.t.org, "mia@example.com", "member");
    const page = await mia.open(`/app/o/${s.t.org}/insights/${ofApp.id}`);
    assert.equal(page.status, 200);
    assert.doesNotMatch(page.html, /unknown field|Not yet/, "the insight's page answers");
    const fresh = await mia.open(`/app/o/${s.t.org}/insights/new?tool=feedback_summary`);
    assert.equal(fresh.status, 200);
    assert.doesNotMatch(fresh.html, /Not yet/, "a new review insight's first result answers");
    // it starts on the app, the touchpoint its question is about
    assert.match(fresh.html, new RegExp(`<option value="${ios.id}" selected`));
  } finally {
    await s.close();
  }
});

Deno.test("saved insights: a new behavior insight's first result is of the website the form shows", async () => {
  const s = await openSite({ now: NOW });
  try {
    // a second touchpoint, so a question without one is refused ("name the touchpoint")
    await s.admin("POST", "/touchpoints", { name: "Acme iOS", kind: "ios" });
    await addMember(s.deps.kv, s.deps.clock, s.t.org, "user-owner", "owner");
    const mia = await joinOrg(s.app, s.t.org, "mia@example.com", "member");
    const fresh = await mia.open(`/app/o/${s.t.org}/insights/new?tool=behavior_overview`);
    assert.equal(fresh.status, 200);
    assert.doesNotMatch(
      fresh.html,
      /name the touchpoint|Not yet/,
      "the first result is asked of the website",
    );
    assert.match(fresh.html, new RegExp(`<option value="${s.t.touchpoint}" selected`));
  } finally {
    await s.close();
  }
});

Deno.test("saved insights: a link naming a touchpoint opens a new insight on it", async () => {
  const s = await openSite({ now: NOW });
  try {
    const ios = await s.admin("POST", "/touchpoints", { name: "Acme iOS", kind: "ios" });
    await addMember(s.deps.kv, s.deps.clock, s.t.org, "user-owner", "owner");
    const mia = await joinOrg(s.app, s.t.org, "mia@example.com", "member");
    const page = await mia.open(`/app/o/${s.t.org}/insights/new?tool=behavior_overview&touchpoint=${ios.id}`);
    assert.equal(page.status, 200);
    assert.match(page.html, new RegExp(`<option value="${ios.id}" selected`));
    // a touchpoint of no one's is no choice: the question's own default stands
    const other = await mia.open(
      `/app/o/${s.t.org}/insights/new?tool=behavior_overview&touchpoint=tp_nobody`,
    );
    assert.match(other.html, new RegExp(`<option value="${s.t.touchpoint}" selected`));
  } finally {
    await s.close();
  }
});
