/// <reference lib="dom" />
/**
 * The web SDK in Debian's Chromium against the real service (main.ts in a child process): what a
 * visit stores, delivery by beacon when the page closes, retry after 429, and what never leaves the page.
 * Needs /usr/bin/chromium (see README.md here).
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { openWorld, type StoredEventView, type World, worldTest } from "./harness.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const EVENT_FIELDS = [
  "event_id",
  "anonymous_id",
  "user_id",
  "session_id",
  "sequence_no",
  "platform",
  "event_type",
  "screen",
  "fingerprint",
  "properties",
  "context",
  "device_time",
];
const CONTEXT_KEYS = [
  "user_agent",
  "language",
  "timezone",
  "screen_width",
  "screen_height",
  "viewport_width",
  "viewport_height",
  "online",
  "connection_type",
  "environment",
  "sdk_version",
  "consent",
  "gpc",
  "sample_rate",
  "first_touch",
  "last_touch",
];
const SECRETS = ["ann@example.com", "ann%40example.com", "hunter2", "Ann Smith", "Secret Agent", "555) 123"];

/** Records every sendBeacon call in the site's localStorage, where a later page can read it. */
const RECORD_BEACONS = `(() => {
  const send = navigator.sendBeacon.bind(navigator);
  navigator.sendBeacon = (url, data) => {
    const log = JSON.parse(localStorage.getItem("test_beacons") || "[]");
    log.push({ url: String(url), type: data && data.type });
    localStorage.setItem("test_beacons", JSON.stringify(log));
    return send(url, data);
  };
})()`;

async function beaconsSent(w: World): Promise<Array<{ url: string; type: string }>> {
  const page = await w.context.newPage();
  await page.goto(w.siteUrl + "/blank");
  const log = await page.evaluate(() => localStorage.getItem("test_beacons"));
  await page.close();
  return JSON.parse(log ?? "[]");
}

const ofType = (events: StoredEventView[], type: string, path?: string) =>
  events.filter((e) => e.event_type === type && (path === undefined || e.path === path));
const clicks = (events: StoredEventView[]) =>
  ofType(events, "$autocapture").filter((e) => e.properties.action === "click");
const byText = (events: StoredEventView[], text: string) =>
  clicks(events).filter((e) => e.fingerprint?.text === text);

async function visitHome(page: Page, w: World) {
  await page.goto(w.siteUrl + "/?utm_source=news&utm_medium=email&email=ann@example.com");
  await page.waitForFunction(() =>
    typeof (globalThis as { bsdk?: { init?: unknown } }).bsdk?.init === "function"
  );
  await page.click("#buy");
  await page.click("#contact");
  await page.click("#secret");
  await page.click("#banner", { clickCount: 3, delay: 20 });
  await page.fill("#email", "ann@example.com");
  await page.fill("#password", "hunter2");
  await page.fill("#full_name", "Ann Smith");
  await page.selectOption("#plan", "pro");
  await page.click("#submit");
  await page.evaluate(() => scrollTo(0, document.body.scrollHeight));
  await page.waitForTimeout(100); // let the scroll event fire before the next navigation
  await page.click("#spa");
}

worldTest(
  "browser: a visit with links, a form, a single-page navigation, scrolling and a rage click is stored as docs/events.md says",
  async () => {
    const w = await openWorld({ settings: { flushIntervalMs: 200 } });
    try {
      const page = await w.context.newPage();
      await visitHome(page, w);
      const events = await w.waitForStored(
        (evs) => ofType(evs, "$pageview", "/app/settings").length === 1,
        "the single-page navigation's page view",
      );

      const home = ofType(events, "$pageview", "/")[0];
      assert.ok(home, "a page view of /");
      assert.equal(home.sequence_no, 0);
      assert.equal(home.properties.title, "Home");
      assert.equal(home.properties.url, `${w.siteUrl}/?utm_source=news&utm_medium=email`);
      assert.deepEqual(CONTEXT_KEYS.filter((k) => !(k in home.context)), []);
      const first = home.context.first_touch as Record<string, unknown>;
      assert.equal(first.source, "news");
      assert.equal(first.medium, "email");
      assert.equal(first.landing_path, "/");

      const buy = byText(events, "Buy now");
      assert.equal(buy.length, 1);
      assert.equal(buy[0].fingerprint?.tag, "button");
      assert.equal(buy[0].fingerprint?.id, "buy");
      assert.deepEqual(buy[0].fingerprint?.classes, ["btn", "btn-primary"]);
      assert.equal(buy[0].fingerprint?.selector, "#buy");
      assert.equal(buy[0].properties.rage_click, false);
      assert.equal(byText(events, "Mail [email]").length, 1, "an email in button text is masked");

      // a plain element: only its rage clicks are sent, and without its text (content may be the visitor's own)
      const banner = clicks(events).filter((e) => e.fingerprint?.id === "banner");
      assert.ok(banner.length >= 1, "the rage-clicked banner");
      assert.ok(banner.every((e) => e.properties.rage_click === true), "only rage clicks on a plain element");
      assert.ok(
        banner.every((e) => e.fingerprint?.text === null && e.element === "#banner"),
        "named by its id",
      );

      const submit = ofType(events, "$autocapture").filter((e) => e.properties.action === "submit");
      assert.equal(submit.length, 1);
      assert.deepEqual((submit[0].properties.form as { fields: unknown }).fields, [
        { name: "email", type: "email" },
        { name: "password", type: "password" },
        { name: "full_name", type: "text" },
        { name: "plan", type: "select" },
      ]);
      const changes = ofType(events, "$autocapture").filter((e) => e.properties.action === "change");
      assert.deepEqual(changes.map((e) => e.fingerprint?.id).sort(), [
        "email",
        "full_name",
        "password",
        "plan",
      ]);
      // each change names its form with the fingerprint the submit sends; ingest names the form from it
      for (const c of changes) {
        assert.deepEqual((c.properties.form as { fingerprint: unknown }).fingerprint, submit[0].fingerprint);
        assert.equal(c.properties.form_element, submit[0].element);
      }
      assert.ok(submit[0].element, "the form has a name");

      const leave = ofType(events, "$pageleave", "/");
      assert.equal(leave.length, 1);
      assert.equal(leave[0].properties.depth_percent, 100);
      assert.equal(typeof leave[0].properties.engagement_time_ms, "number");
      const spa = ofType(events, "$pageview", "/app/settings")[0];
      assert.equal(spa.properties.url, `${w.siteUrl}/app/settings`, "tab is not an allowed parameter");
      assert.ok(leave[0].sequence_no < spa.sequence_no);

      // One page load: one visitor, one session, sequence numbers 0..n-1 without gaps or repeats.
      assert.equal(new Set(events.map((e) => e.anonymous_id)).size, 1);
      assert.equal(new Set(events.map((e) => e.session_id)).size, 1);
      const seqs = events.map((e) => e.sequence_no).sort((a, b) => a - b);
      assert.deepEqual(seqs, seqs.map((_, i) => i));
      assert.ok(events.every((e) => e.gap_before === 0));
    } finally {
      await w.close();
    }
  },
);

worldTest(
  "browser: every body the SDK posts is an IngestBody of BehaviorEvents and nothing else",
  async () => {
    const w = await openWorld({ settings: { flushIntervalMs: 200 } });
    try {
      const page = await w.context.newPage();
      await visitHome(page, w);
      await w.waitForStored((evs) => ofType(evs, "$pageview", "/app/settings").length === 1, "the visit");
      assert.ok(w.sent.length > 0);
      for (const { body } of w.sent) {
        assert.deepEqual(Object.keys(body).sort(), ["api_key", "batch"]);
        assert.equal(body.api_key, w.tenant.devPublicKey);
        assert.ok(body.batch.length >= 1 && body.batch.length <= 200);
        for (const e of body.batch) {
          assert.deepEqual(Object.keys(e).filter((k) => !EVENT_FIELDS.includes(k)), []);
          assert.match(String(e.event_id), UUID);
          assert.equal(e.platform, "web");
          assert.equal(new Date(String(e.device_time)).toISOString(), e.device_time);
          assert.ok(Number.isInteger(e.sequence_no) && Number(e.sequence_no) >= 0);
          const fp = e.fingerprint as Record<string, unknown> | undefined;
          if (e.event_type === "$autocapture") {
            assert.ok(fp && typeof fp.tag === "string" && typeof fp.selector === "string");
          }
        }
      }
    } finally {
      await w.close();
    }
  },
);

worldTest(
  "browser: no input value, unmasked email or data-no-capture text reaches the service, and no cookie exists",
  async () => {
    const w = await openWorld({ settings: { flushIntervalMs: 200 } });
    try {
      const page = await w.context.newPage();
      await visitHome(page, w);
      const other = await w.context.newPage();
      await other.goto(w.siteUrl + "/people/ann@example.com?tab=1");
      const events = await w.waitForStored(
        (evs) =>
          ofType(evs, "$pageview", "/app/settings").length === 1 && ofType(evs, "$pageview").length === 3,
        "the visit and the profile page",
      );
      assert.equal(ofType(events, "$pageview").filter((e) => e.screen === "/people/[email]").length, 1);
      const stored = JSON.stringify(events);
      const posted = JSON.stringify(w.sent);
      for (const secret of SECRETS) {
        assert.ok(!stored.includes(secret), `stored events contain ${secret}`);
        assert.ok(!posted.includes(secret), `posted bodies contain ${secret}`);
      }
      assert.ok(!stored.includes('"pro"'), "the selected option is a value too");
      assert.deepEqual(await w.context.cookies(), [], "no cookie on the site's or the service's origin");
      assert.equal(await page.evaluate(() => document.cookie), "");
    } finally {
      await w.close();
    }
  },
);

// Straight to the service works because its CORS answers allow credentials (sendBeacon always sends in
// credentials mode "include"); through the proxy it is same-origin.
for (const viaProxy of [false, true]) {
  const how = viaProxy ? "through the Deno/Hono first-party proxy" : "straight to the service";
  worldTest(`browser: the last batch arrives by beacon when the page closes (${how})`, async () => {
    // A long flush interval and a big batch: nothing leaves the page before it closes.
    const w = await openWorld({ viaProxy, settings: { flushIntervalMs: 600_000, batchSize: 100 } });
    try {
      await w.context.addInitScript(RECORD_BEACONS);
      const page = await w.context.newPage();
      await page.goto(w.siteUrl + "/pricing");
      // The first input ends LCP measurement: let the page paint its largest element first.
      await page.evaluate(() =>
        new Promise((painted) =>
          new PerformanceObserver(painted).observe({ type: "largest-contentful-paint", buffered: true })
        )
      );
      await page.click("#plan-pro");
      await page.evaluate(() =>
        (globalThis as unknown as { bsdk: (...a: unknown[]) => void }).bsdk("track", "signup", {
          plan: "pro",
        })
      );
      await page.waitForTimeout(300);
      assert.deepEqual(await w.stored(), [], "nothing is sent while the page is open");
      await page.close({ runBeforeUnload: true });

      // The page leave and LCP may travel in separate beacons of those last moments: wait for both.
      const hasLcp = (evs: StoredEventView[]) =>
        ofType(evs, "$web_vitals").some((e) => e.properties.metric === "LCP");
      const events = await w.waitForStored(
        (evs) => ofType(evs, "$pageleave").length === 1 && hasLcp(evs),
        "the page leave and LCP",
      );
      assert.equal(w.sent.filter((s) => s.kind === "fetch").length, 0, "no fetch carried them");
      const beacons = await beaconsSent(w);
      assert.ok(beacons.length >= 1);
      assert.ok(beacons.every((b) => b.type === "application/json"));
      assert.equal(ofType(events, "$pageview", "/pricing").length, 1);
      assert.equal(ofType(events, "signup").length, 1);
      assert.equal(ofType(events, "signup")[0].properties.plan, "pro");
      assert.equal(byText(events, "Choose Pro").length, 1);
      // Core Web Vitals are reported when the page is hidden: LCP at least, in the same last moments.
      const lcp = ofType(events, "$web_vitals").filter((e) => e.properties.metric === "LCP");
      assert.equal(lcp.length, 1);
      assert.equal(typeof lcp[0].properties.value, "number");
      assert.ok(["good", "needs-improvement", "poor"].includes(String(lcp[0].properties.rating)));
      if (viaProxy) assert.ok(w.site.proxied.every((r) => r.contentType === "application/json"));
    } finally {
      await w.close();
    }
  });
}

worldTest(
  "browser: after a 429 the SDK waits for Retry-After and delivers every event exactly once",
  async () => {
    const w = await openWorld({ settings: { flushIntervalMs: 100 } });
    try {
      const answered: number[] = [];
      const bodies: string[][] = [];
      await w.context.route(`${w.serviceUrl}/v1/behavior/events`, (route) => {
        const req = route.request();
        if (req.method() !== "POST") return route.fallback();
        bodies.push(JSON.parse(req.postData() ?? "{}").batch.map((e: { event_id: string }) => e.event_id));
        if (answered.length === 0) {
          answered.push(429);
          return route.fulfill({
            status: 429,
            headers: {
              "retry-after": "1",
              "access-control-allow-origin": w.siteUrl,
              "content-type": "application/json",
            },
            body: JSON.stringify({
              error: "slow down",
              code: "RATE_LIMIT_EXCEEDED",
              timestamp: new Date().toISOString(),
            }),
          });
        }
        answered.push(0);
        return route.continue();
      });
      const page = await w.context.newPage();
      await page.goto(w.siteUrl + "/pricing");
      for (let i = 0; i < 5; i++) {
        await page.evaluate(
          (n) => (globalThis as unknown as { bsdk: (...a: unknown[]) => void }).bsdk("track", "step", { n }),
          i,
        );
      }
      const events = await w.waitForStored((evs) => ofType(evs, "step").length === 5, "all five steps");
      await page.waitForTimeout(500); // a duplicate would have had time to land
      const final = await w.stored();
      assert.equal(answered[0], 429);
      assert.ok(answered.length >= 2, "retried after the 429");
      assert.ok(
        bodies[0].every((id) => bodies.slice(1).some((b) => b.includes(id))),
        "the retry kept the event ids",
      );
      assert.equal(new Set(final.map((e) => e.id)).size, final.length);
      assert.equal(final.length, events.length);
      assert.deepEqual(ofType(final, "step").map((e) => e.properties.n).sort(), [0, 1, 2, 3, 4]);
      assert.equal(ofType(final, "$pageview").length, 1);
    } finally {
      await w.close();
    }
  },
);
