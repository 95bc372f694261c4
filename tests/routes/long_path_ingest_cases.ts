/**
 * Page paths are bounded at ingest (docs/events.md, "Long values"): a page path over 1,024 characters, sent by
 * the web SDK in `properties.path` or by an app as its `screen`, is stored cut to 1,024 with "…" at its end, and
 * the event is kept (a 422 would drop the whole batch in the SDK). The value as sent stays in `properties`.
 * A host over 253 characters (no DNS name can be) names no host. Through the events endpoint, on a real KV
 * file, read back by the read API and from the store.
 */
import assert from "node:assert/strict";
import { event } from "../helpers/events.ts";
import { openSite } from "../helpers/site.ts";

const NOW = Date.parse("2026-11-20T12:00:00Z");

Deno.test("ingest: a web page path over 1,024 characters is stored cut with '…', the event kept", async () => {
  const w = await openSite({ now: NOW });
  try {
    const long = "/p/" + "a".repeat(20_000);
    const host = "h".repeat(300) + ".acme.test";
    const res = await w.ingest([
      event({ properties: { path: long, url: `https://${host}${long}` }, screen: "/p" }),
      event({ properties: { path: "/pricing", url: "https://acme.test/pricing" } }),
    ]);
    assert.equal(res.status, 204, await res.text());
    const events = await w.stored();
    assert.equal(events.length, 2, "both events kept");
    const cut = events.find((e) => e.path !== "/pricing")!;
    assert.equal(cut.path.length, 1_024);
    assert.equal(cut.path, long.slice(0, 1_023) + "…");
    assert.equal(cut.host, null, "a 310-character host is no host name");
    assert.equal((cut.properties as { path: string }).path, long, "the value as sent stays in properties");
    const pages = await w.read("behavior_pages", { period: "today" });
    const names = pages.pages.map((p: { page: string }) => p.page);
    assert.ok(names.includes("/pricing"), JSON.stringify(names).slice(0, 300));
    assert.ok(names.every((p: string) => p.length <= 1_024), "no page longer than 1,024 characters");
  } finally {
    await w.close();
  }
});

Deno.test("ingest: an app screen that makes a path over 1,024 characters is cut the same way", async () => {
  const w = await openSite({ now: NOW });
  try {
    const ios = await w.admin("POST", "/touchpoints", {
      name: "iOS",
      kind: "ios",
    });
    const key = (await w.admin("POST", "/keys", {
      kind: "public",
      environment: "production",
      touchpoint: ios.id,
    })).key;
    // 2,048 characters is the longest screen the schema takes; "é" becomes "%C3%A9" in a path: 12,289 characters
    const screen = "/" + "é".repeat(2_047);
    const res = await w.ingest([event({ platform: "ios", screen, properties: {} })], { key, origin: null });
    assert.equal(res.status, 204, await res.text());
    const [ev] = await w.stored();
    assert.equal(ev.screen, screen, "the screen is stored as sent");
    assert.equal(ev.path.length, 1_024);
    assert.ok(ev.path.startsWith("/%C3%A9%C3%A9") && ev.path.endsWith("…"), ev.path.slice(-20));
  } finally {
    await w.close();
  }
});

Deno.test("ingest: a page path of exactly 1,024 characters is stored as sent", async () => {
  const w = await openSite({ now: NOW });
  try {
    const path = "/" + "b".repeat(1_023);
    assert.equal(
      (await w.ingest([event({ properties: { path } })])).status,
      204,
    );
    assert.equal((await w.stored())[0].path, path);
  } finally {
    await w.close();
  }
});
