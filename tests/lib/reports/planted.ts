/**
 * Two weeks of a small site, the same every day, with findings planted in the second week when asked: a page
 * whose pageviews double, a crawler that starts, one that stops, LCP on the home page going from good to
 * needs improvement, a verified GPTBot reading a page robots.txt disallows, requests spoofing GPTBot, and an
 * own iOS app whose reviews start talking about crashes, and a saved funnel that converts twice as well. Without `planted` the two
 * weeks are alike and a report must find nothing.
 */
import assert from "node:assert/strict";
import { createApp } from "../../../app.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../../helpers/deps.ts";
import { adminCall, createTenant } from "../../helpers/tenant.ts";
import { ev, hit } from "../query/fixtures.ts";
import { storeSite } from "../../tools/generate.ts";
import { setListing } from "../../../lib/feedback/store.ts";
import { verifiedDomain } from "../../helpers/verified_domain.ts";
import { refreshRobots } from "../../../lib/crawl/robots.ts";
import { createSaved } from "../../../lib/saved/store.ts";
import type { StoredEvent, StoredHit } from "../../../lib/store/records.ts";

const DAY = 86_400_000;
/** Tuesday: the last closed week is Monday 16 to Sunday 22 November 2026, the week before 9 to 15. */
export const NOW = Date.parse("2026-11-24T10:00:00Z");
/** When the organization and its touchpoints were added: before October. */
export const ADDED = Date.parse("2026-09-20T09:00:00Z");
export const WEEK_START = Date.parse("2026-11-16T00:00:00Z");
export const PREV_START = Date.parse("2026-11-09T00:00:00Z");
const PAGES = ["/", "/pricing", "/docs", "/blog/launch"];

export async function plantedWorld(planted: boolean) {
  const deps = await testDeps();
  deps.clock.set(NOW);
  deps.config = { ...deps.config, readKeyRatePerMinute: 100_000 } as typeof deps.config;
  const app = createApp(deps);
  // added before the months reported (a report of a period that ended before a touchpoint was added, with no
  // data in it, is not made: October has none here)
  deps.clock.set(ADDED);
  const t = await createTenant(app, TEST_ADMIN_TOKEN, { timezone: "UTC" });
  deps.clock.set(NOW);
  const events: StoredEvent[] = [];
  const hits: StoredHit[] = [];
  const identifiers: string[] = [];
  let n = 0;
  const id = () => `70000000-0000-4000-8000-${String(++n).padStart(12, "0")}`;
  for (const start of [PREV_START, WEEK_START]) {
    const second = start === WEEK_START;
    for (let d = 0; d < 7; d++) {
      for (let v = 0; v < 20; v++) {
        const visitor = `vis-${v}-${d}-${second ? 2 : 1}`, session = `ses-${v}-${d}-${second ? 2 : 1}`;
        identifiers.push(visitor, session);
        let at = start + d * DAY + 8 * 3_600_000 + v * 60_000;
        const base = { org: t.org, touchpoint: t.touchpoint, anonymous_id: visitor, session_id: session };
        const view = (path: string) => {
          events.push(ev({ ...base, id: id(), received_at: at += 5_000, path, screen: path }));
          if (path === "/") {
            const lcp = planted && second ? 3200 + v * 10 : 1800 + v * 10;
            events.push(ev({
              ...base,
              id: id(),
              received_at: at += 500,
              path,
              screen: path,
              event_type: "$web_vitals",
              properties: { metric: "LCP", value: lcp },
            }));
          }
        };
        view("/");
        view(PAGES[1 + (v % 3)]);
        // the planted page: /pricing's views double in the second week
        if (planted && second && v % 3 === 0) view("/pricing");
        // and the saved funnel / → /docs converts twice as well (7 of 20 a day, then 14)
        if (planted && second && v % 3 === 0) view("/docs");
      }
      // planted: a newsletter brings 10 more visitors a day to /blog/launch (visitors +50%, one driver)
      for (let v = 0; planted && second && v < 10; v++) {
        const visitor = `news-${v}-${d}`, session = `news-s-${v}-${d}`;
        identifiers.push(visitor, session);
        events.push(ev({
          org: t.org,
          touchpoint: t.touchpoint,
          anonymous_id: visitor,
          session_id: session,
          id: id(),
          received_at: start + d * DAY + 12 * 3_600_000 + v * 60_000,
          path: "/blog/launch",
          screen: "/blog/launch",
          source: "newsletter",
          channel: "Email",
        }));
      }
      // crawlers: Googlebot reads every page both weeks; Bytespider only the first week, ClaudeBot the second
      const crawl = (crawler: string, vendor: string, category: StoredHit["category"], path: string) =>
        hits.push(hit({
          org: t.org,
          touchpoint: t.touchpoint,
          timestamp: start + d * DAY + 3 * 3_600_000 + hits.length,
          path,
          crawler,
          vendor,
          category,
          user_agent: `${crawler}/1.0`,
          verification: "verified",
        }));
      for (const p of PAGES) crawl("Googlebot", "Google", "search_engine", p);
      if (planted && !second) crawl("Bytespider", "ByteDance", "ai_training", PAGES[d % 4]);
      if (planted && second) crawl("ClaudeBot", "Anthropic", "ai_training", PAGES[d % 4]);
    }
  }
  // robots.txt (fetched before both weeks) disallows /private to GPTBot; planted: a verified GPTBot reads it,
  // and requests under GPTBot's name come from addresses that failed OpenAI's check
  if (planted) {
    for (let i = 0; i < 6; i++) {
      const timestamp = WEEK_START + DAY + i * 3_600_000;
      const base = { org: t.org, touchpoint: t.touchpoint, timestamp, crawler: "GPTBot", vendor: "OpenAI" };
      hits.push(hit({ ...base, path: "/private/plans", verification: i < 4 ? "verified" : "spoofed" }));
      hits.push(hit({ ...base, timestamp: timestamp + 1, path: "/", verification: "spoofed" }));
      hits.push(hit({ ...base, timestamp: timestamp + 2, path: "/docs", verification: "spoofed" }));
    }
  }
  await storeSite(deps.kv, { events, hits, identifiers });
  deps.clock.set(PREV_START - DAY);
  deps.fetch = () =>
    Promise.resolve(new Response("User-agent: GPTBot\nDisallow: /private\n", { status: 200 }));
  await refreshRobots(deps, t.org, (await app.ctx.directory.touchpoints(t.org))[0], "production");
  deps.clock.set(NOW);

  // A saved funnel insight of the site: the report follows its conversion.
  await createSaved(
    {
      kv: deps.kv,
      clock: deps.clock,
      org: t.org,
      editor: { user: "user-1", role: "owner" },
      touchpoints: [t.touchpoint],
      checkInsight: (_tool, input) => input,
    },
    "insight",
    {
      name: "Home to docs",
      touchpoint: t.touchpoint,
      tool: "behavior_funnel",
      input: { steps: [{ page: "/" }, { page: "/docs" }] },
    },
  );

  // An own iOS app: its listing names the site, on the organization's verified domain; reviews alike both
  // weeks, plus crashes.
  await verifiedDomain(deps, t.org, t.domain);
  const admin = (method: string, path: string, body?: unknown) =>
    adminCall(app, TEST_ADMIN_TOKEN, method, path, body);
  deps.clock.set(ADDED);
  const ios = await admin("POST", `/orgs/${t.org}/touchpoints`, { name: "Acme iOS", kind: "ios" });
  deps.clock.set(NOW);
  const own = await admin("POST", `/orgs/${t.org}/apps`, {
    store: "app_store",
    store_id: "123456789",
    touchpoint: ios.id,
    name: "Acme",
  });
  await setListing(deps.kv, t.org, own.id, {
    name: "Acme",
    developer: "Acme",
    developer_website: `https://www.${t.domain}/`,
    version: "2.1",
    fetched_at: NOW,
  });
  const praise = [
    "Love this app, checkout is quick and easy.",
    "Great app, delivery tracking works perfectly.",
    "Nice and simple, I order every week.",
  ];
  const lines: string[] = [];
  let r = 0;
  const review = (rating: number, text: string, at: number, version: string) =>
    lines.push(JSON.stringify({
      id: `rev-${++r}`,
      rating,
      text,
      date: new Date(at).toISOString(),
      version,
      author: `Author ${r}`,
    }));
  for (const start of [PREV_START, WEEK_START]) {
    for (let i = 0; i < 9; i++) review(5, praise[i % 3], start + (i % 7) * DAY + 3_600_000, "2.0");
    if (planted && start === WEEK_START) {
      for (let i = 0; i < 12; i++) {
        review(
          1,
          "The app crashes every time I log in since the update. Please fix the crash!",
          start + i * 13 * 3_600_000,
          "2.1",
        );
      }
    }
  }
  const res = await app.request(`/admin/v1/orgs/${t.org}/apps/${own.id}/reviews/import`, {
    method: "POST",
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "content-type": "application/x-ndjson" },
    body: lines.join("\n"),
  });
  assert.equal(res.status, 200, await res.clone().text());
  return { deps, app, t, ios: ios.id as string, identifiers, close: () => deps.kv.close() };
}
