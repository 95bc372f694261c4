/// <reference lib="dom" />
/**
 * A report page on a phone (375 px) never scrolls sideways, even when its summary and findings name a page
 * whose path has a long unbroken segment (share and invoice links carry 64-character ids) and its "How to see
 * it" inputs are JSON without spaces. Real Chromium against the app served over HTTP on a real KV file: events
 * through the events endpoint, the report generated with the app's "Generate" form.
 */
import assert from "node:assert/strict";
import { launchChromium } from "./browser.ts";
import { createApp } from "../../app.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../helpers/deps.ts";
import { adminCall, createTenant } from "../helpers/tenant.ts";
import { event } from "../helpers/events.ts";
import { AppClient } from "../helpers/app_client.ts";
import { compactAll } from "../../lib/jobs/compact.ts";

const PASSWORD = "correct horse battery staple";

Deno.test("report page at 375 px: long paths and inputs wrap, the page does not scroll sideways", async () => {
  const dir = await Deno.makeTempDir();
  const deps = await testDeps({ kv: await Deno.openKv(`${dir}/kv.sqlite3`) });
  deps.config = { ...deps.config, trustProxy: true } as typeof deps.config;
  deps.clock.set(Date.parse("2026-11-18T10:00:00Z"));
  const app = createApp(deps);
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, (req) => app.fetch(req));
  const browser = await launchChromium().catch(async (err) => {
    await server.shutdown();
    deps.kv.close();
    throw err;
  });
  try {
    const t = await createTenant(app, TEST_ADMIN_TOKEN);
    const long = "/share/7f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a";
    for (let i = 0; i < 25; i++) {
      const res = await app.request("/v1/behavior/events", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          origin: "https://acme.test",
          "x-forwarded-for": `81.2.69.${i + 1}`,
        },
        body: JSON.stringify({
          api_key: t.publicKey,
          batch: [event({
            anonymous_id: `v${i}`,
            session_id: `s${i}`,
            screen: long,
            properties: { path: long, url: `https://acme.test${long}` },
          })],
        }),
      });
      assert.equal(res.status, 204, await res.text());
      deps.clock.advance(60_000);
    }
    deps.clock.set(Date.parse("2026-11-24T10:00:00Z"));
    await compactAll(deps);

    const inv = await adminCall(app, TEST_ADMIN_TOKEN, "POST", `/orgs/${t.org}/invitations`, {
      email: "owner@acme.test",
      role: "owner",
    });
    const client = new AppClient(app);
    await client.submit(new URL(inv.invitation_url).pathname, { password: PASSWORD, password2: PASSWORD });
    const made = await client.submit(`/app/o/${t.org}/reports/generate`, {
      kind: "weekly",
      touchpoint: t.touchpoint,
    });
    assert.match(made.html, /generated/);
    const href = made.html.match(/href="(\/app\/o\/[^"]+\/reports\/weekly-[^"]+)"/)?.[1];
    assert.ok(href, "the report is linked");

    const base = `http://127.0.0.1:${server.addr.port}`;
    const ctx = await browser.newContext({ viewport: { width: 375, height: 800 } });
    await ctx.addCookies([...client.cookies].map(([name, value]) => ({ name, value, url: base })));
    const page = await ctx.newPage();
    page.setDefaultTimeout(120_000);
    await page.goto(base + href);
    await page.locator("details summary").first().click(); // the inputs too
    assert.match(await page.locator(".report-summary").innerText(), /\/share\/7f9a8b7c/);
    const m = await page.evaluate(() => {
      const over: string[] = [];
      for (const el of document.querySelectorAll("main *")) {
        const b = el.getBoundingClientRect();
        if (b.right > document.documentElement.clientWidth + 1) {
          over.push(`${el.tagName.toLowerCase()}: ${(el.textContent ?? "").trim().slice(0, 40)}`);
        }
      }
      return {
        scroll: document.documentElement.scrollWidth,
        client: document.documentElement.clientWidth,
        over,
      };
    });
    assert.ok(
      m.scroll <= m.client,
      `scrollWidth ${m.scroll} > ${m.client}: ${JSON.stringify(m.over.slice(0, 6))}`,
    );
  } finally {
    await browser.close();
    await server.shutdown();
    deps.kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
