import assert from "node:assert/strict";
import fc from "fast-check";
import { Identity, inSample, SESSION_IDLE_MS, uuid } from "../../../sdk/web/src/identity.ts";
import { pageInfo, PageProgress, rememberTouch, touchOf } from "../../../sdk/web/src/page.ts";
import { RageDetector } from "../../../sdk/web/src/autocapture.ts";
import { memoryStore } from "../../../sdk/web/src/storage.ts";

const UTM = ["utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content"];

Deno.test("web-sdk identity: the visitor id is kept; the session rolls after 30 idle minutes", () => {
  let now = 0;
  let n = 0;
  const id = new Identity(memoryStore(), () => now, () => `id-${++n}`);
  const visitor = id.anonymousId();
  const s1 = id.sessionId();
  now += SESSION_IDLE_MS; // exactly 30 minutes idle: same session
  assert.equal(id.sessionId(), s1);
  now += SESSION_IDLE_MS - 1; // activity keeps it alive
  assert.equal(id.sessionId(), s1);
  now += SESSION_IDLE_MS + 1;
  const s2 = id.sessionId();
  assert.notEqual(s2, s1);
  assert.equal(id.anonymousId(), visitor);
});

Deno.test("web-sdk identity: reset forgets the user, the visitor and the session", () => {
  let n = 0;
  const id = new Identity(memoryStore(), () => 0, () => `id-${++n}`);
  const visitor = id.anonymousId();
  const session = id.sessionId();
  id.setUserId("u-1");
  id.reset();
  assert.equal(id.userId(), null);
  assert.notEqual(id.anonymousId(), visitor);
  assert.notEqual(id.sessionId(), session);
});

Deno.test("web-sdk identity: sampling keeps whole visitors and about the asked share", () => {
  fc.assert(fc.property(fc.uuid(), fc.double({ min: 0, max: 1, noNaN: true }), (aid, rate) => {
    assert.equal(inSample(aid, rate), inSample(aid, rate));
  }));
  const ids = Array.from({ length: 4000 }, () => uuid());
  const share = ids.filter((a) => inSample(a, 0.25)).length / ids.length;
  assert.ok(share > 0.2 && share < 0.3, String(share));
  assert.equal(ids.every((a) => inSample(a, 1)), true);
  assert.equal(ids.some((a) => inSample(a, 0)), false);
});

Deno.test("web-sdk page: url keeps only allowlisted query parameters; path has no query", () => {
  const p = pageInfo("https://shop.test/pricing?utm_source=news&email=ann%40x.io&ref=tw&plan=pro#top", [
    ...UTM,
    "plan",
  ]);
  assert.equal(p.path, "/pricing");
  assert.equal(p.url, "https://shop.test/pricing?utm_source=news&plan=pro");
  assert.equal(p.screen, "/pricing");
  const spa = pageInfo("https://app.test/#/settings/profile", UTM);
  assert.equal(spa.screen, "/#/settings/profile");
  assert.equal(spa.url, "https://app.test/#/settings/profile");
});

Deno.test("web-sdk attribution: UTM or an outside referrer is a touch; internal navigation is not", () => {
  assert.deepEqual(touchOf("https://shop.test/a?utm_source=news&utm_medium=email", "https://shop.test/"), {
    source: "news",
    medium: "email",
    campaign: null,
    term: null,
    content: null,
    referrer_host: null,
    landing_path: "/a",
  });
  assert.equal(
    touchOf("https://shop.test/b", "https://www.google.com/search?q=x")?.referrer_host,
    "www.google.com",
  );
  assert.equal(touchOf("https://shop.test/c", "https://shop.test/a"), null);
  assert.equal(touchOf("https://shop.test/c", ""), null);
});

Deno.test("web-sdk attribution: first touch is kept, last touch follows the latest touch", () => {
  const store = memoryStore();
  const a = touchOf("https://s.test/?utm_source=a", "")!;
  const b = touchOf("https://s.test/x", "https://news.test/")!;
  rememberTouch(store, a);
  rememberTouch(store, null);
  const both = rememberTouch(store, b);
  assert.equal(both.first_touch?.source, "a");
  assert.equal(both.last_touch?.referrer_host, "news.test");
});

Deno.test("web-sdk page progress: depth is the deepest point reached, 100 for a page that fits", () => {
  const p = new PageProgress(() => 0);
  p.seen(0, 800, 4000);
  assert.equal(p.depthPercent(), 20);
  p.seen(1200, 800, 4000);
  p.seen(0, 800, 4000);
  assert.equal(p.depthPercent(), 50);
  p.restart(true);
  p.seen(0, 800, 600);
  assert.equal(p.depthPercent(), 100);
});

Deno.test("web-sdk page progress: engagement counts visible time, at most 30 s per idle stretch", () => {
  let now = 0;
  const p = new PageProgress(() => now);
  now = 5_000;
  p.active();
  now = 125_000; // two idle minutes count as 30 s
  p.active();
  p.visibility(false);
  now = 500_000; // hidden time does not count
  p.visibility(true);
  now = 502_000;
  assert.equal(p.engagementMs(), 5_000 + 30_000 + 2_000);
});

Deno.test("web-sdk rage clicks: the third click on one element within a second is a rage click", () => {
  const r = new RageDetector();
  const a = {}, b = {};
  assert.equal(r.click(a, 0), false);
  assert.equal(r.click(a, 300), false);
  assert.equal(r.click(a, 600), true);
  assert.equal(r.click(a, 900), true);
  assert.equal(r.click(b, 950), false, "another element starts over");
  const slow = new RageDetector();
  assert.deepEqual([0, 600, 1200, 1800].map((t) => slow.click(a, t)), [false, false, false, false]);
});
