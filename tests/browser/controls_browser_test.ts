/// <reference lib="dom" />
/**
 * The SDK's controls in Chromium against the real service: consent, opt-out, Global Privacy Control,
 * identify/reset, single-page navigation kinds, and events that outlive a failing service and a page load.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { openWorld, type StoredEventView, type World, worldTest } from "./harness.ts";

type Bsdk = (...args: unknown[]) => unknown;
const call = (page: Page, ...args: unknown[]) =>
  page.evaluate((a) => ((globalThis as unknown as { bsdk: Bsdk }).bsdk)(...a), args);
const ofType = (events: StoredEventView[], type: string) => events.filter((e) => e.event_type === type);
const sdkKeys = (page: Page) =>
  page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith("bsdk_")).sort());

async function open(w: World, path: string): Promise<Page> {
  const page = await w.context.newPage();
  await page.goto(w.siteUrl + path);
  await page.waitForFunction(() =>
    typeof (globalThis as { bsdk?: { init?: unknown } }).bsdk?.init === "function"
  );
  return page;
}

worldTest(
  "browser: with requireConsent nothing is captured or stored until consent, then capture starts",
  async () => {
    const w = await openWorld({ settings: { flushIntervalMs: 100, requireConsent: true } });
    try {
      const page = await open(w, "/");
      await page.click("#buy");
      await page.waitForTimeout(400);
      assert.deepEqual(await w.stored(), []);
      assert.deepEqual(await sdkKeys(page), [], "no visitor id before consent");
      await call(page, "setConsent", true);
      await page.click("#buy");
      const events = await w.waitForStored((evs) => ofType(evs, "$autocapture").length === 1, "the click");
      assert.equal(ofType(events, "$pageview").length, 1, "granting consent counts the page being viewed");
      assert.ok(events.every((e) => e.context.consent === "granted"));
    } finally {
      await w.close();
    }
  },
);

worldTest("browser: optOut stops capture and forgets the visitor; optIn resumes", async () => {
  const w = await openWorld({ settings: { flushIntervalMs: 100 } });
  try {
    const page = await open(w, "/");
    await w.waitForStored((evs) => ofType(evs, "$pageview").length === 1, "the page view");
    await call(page, "optOut");
    assert.deepEqual(await sdkKeys(page), ["bsdk_optout"]);
    await page.click("#buy");
    await call(page, "track", "ignored");
    await page.waitForTimeout(400);
    assert.equal((await w.stored()).length, 1);
    await call(page, "optIn");
    await call(page, "track", "back");
    const events = await w.waitForStored((evs) => ofType(evs, "back").length === 1, "the event after optIn");
    assert.equal(ofType(events, "ignored").length, 0);
    assert.equal(ofType(events, "$autocapture").length, 0);
    const [before, after] = [ofType(events, "$pageview")[0], ofType(events, "back")[0]];
    assert.notEqual(before.anonymous_id, after.anonymous_id, "opting out forgot the visitor id");
  } finally {
    await w.close();
  }
});

worldTest(
  "browser: under Global Privacy Control nothing is kept in storage and identify is ignored",
  async () => {
    const w = await openWorld({ settings: { flushIntervalMs: 100 } });
    try {
      await w.context.addInitScript(() =>
        Object.defineProperty(Navigator.prototype, "globalPrivacyControl", { get: () => true })
      );
      const page = await open(w, "/");
      await call(page, "identify", "user-42");
      await call(page, "track", "done");
      const events = await w.waitForStored((evs) => ofType(evs, "done").length === 1, "the custom event");
      assert.ok(events.every((e) => e.context.gpc === true && e.user_id === null));
      assert.equal(ofType(events, "$identify").length, 0);
      assert.deepEqual(await sdkKeys(page), []);
    } finally {
      await w.close();
    }
  },
);

worldTest("browser: identify tags later events with the user; reset starts a new visitor", async () => {
  const w = await openWorld({ settings: { flushIntervalMs: 100 } });
  try {
    const page = await open(w, "/");
    await call(page, "identify", "user-42");
    await call(page, "track", "signed_in");
    await call(page, "reset");
    await call(page, "track", "signed_out");
    const events = await w.waitForStored((evs) => ofType(evs, "signed_out").length === 1, "the events");
    const [view, identify, signedIn, signedOut] = ["$pageview", "$identify", "signed_in", "signed_out"]
      .map((t) => ofType(events, t)[0]);
    assert.equal(view.user_id, null);
    assert.equal(identify.user_id, "user-42");
    assert.equal(signedIn.user_id, "user-42");
    assert.equal(signedOut.user_id, null);
    assert.equal(identify.anonymous_id, view.anonymous_id);
    assert.notEqual(signedOut.anonymous_id, view.anonymous_id);
    assert.notEqual(signedOut.session_id, view.session_id);
  } finally {
    await w.close();
  }
});

worldTest(
  "browser: back navigation and hash routes are page views; a replaceState to the same URL is not",
  async () => {
    const w = await openWorld({ settings: { flushIntervalMs: 100 } });
    try {
      const page = await open(w, "/");
      await page.click("#spa"); // pushState to /app/settings
      await page.evaluate(() => history.replaceState({}, "", location.href));
      await page.evaluate(() => (location.hash = "#/billing"));
      await page.goBack(); // popstate back to /app/settings
      const events = await w.waitForStored((evs) => ofType(evs, "$pageview").length === 4, "four page views");
      assert.deepEqual(
        ofType(events, "$pageview").sort((a, b) => a.sequence_no - b.sequence_no).map((e) => e.screen),
        ["/", "/app/settings", "/app/settings#/billing", "/app/settings"],
      );
      assert.equal(ofType(events, "$pageleave").length, 3);
    } finally {
      await w.close();
    }
  },
);

worldTest(
  "browser: events queued while the service fails outlive the page and arrive once from the next page",
  async () => {
    const w = await openWorld({ settings: { flushIntervalMs: 100 } });
    try {
      let refused = 0;
      const url = `${w.serviceUrl}/v1/behavior/events`;
      await w.context.route(url, (route) => {
        if (route.request().method() !== "POST") return route.fallback();
        refused++;
        return route.fulfill({
          status: 503,
          headers: { "access-control-allow-origin": w.siteUrl, "retry-after": "30" },
          body: "{}",
        });
      });
      const page = await open(w, "/pricing");
      for (const n of [1, 2, 3]) await call(page, "track", "queued", { n });
      await page.waitForFunction(() => Object.keys(localStorage).some((k) => k.startsWith("bsdk_q:")));
      while (refused === 0) await page.waitForTimeout(50);
      await w.context.unroute(url);
      await page.goto(w.siteUrl + "/"); // the service is back; the old page's queue is left in storage
      const events = await w.waitForStored(
        (evs) => ofType(evs, "queued").length === 3 && ofType(evs, "$pageview").length === 2,
        "the queued events and both page views",
      );
      await page.waitForTimeout(500);
      const final = await w.stored();
      assert.equal(final.length, events.length);
      assert.equal(new Set(final.map((e) => e.id)).size, final.length, "each event stored once");
      assert.deepEqual(ofType(final, "queued").map((e) => e.properties.n).sort(), [1, 2, 3]);
    } finally {
      await w.close();
    }
  },
);

worldTest("browser: the ES module build captures like the classic script", async () => {
  const w = await openWorld({ settings: { flushIntervalMs: 100 } });
  try {
    const page = await w.context.newPage();
    await page.goto(w.siteUrl + "/esm");
    await page.click("#buy");
    const events = await w.waitForStored((evs) => ofType(evs, "$autocapture").length === 1, "the click");
    assert.equal(ofType(events, "$pageview")[0].properties.title, "Module");
    assert.equal(ofType(events, "module_loaded")[0].properties.ok, true);
  } finally {
    await w.close();
  }
});

worldTest("browser: a visitor outside the sample sends nothing at all", async () => {
  const w = await openWorld({ settings: { flushIntervalMs: 100, sampleRate: 0 } });
  try {
    const page = await open(w, "/");
    await page.click("#buy");
    await call(page, "track", "anything");
    await page.waitForTimeout(500);
    assert.deepEqual(w.sent, []);
    assert.deepEqual(await w.stored(), []);
  } finally {
    await w.close();
  }
});
