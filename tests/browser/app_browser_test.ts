/// <reference lib="dom" />
/**
 * The app in Debian's Chromium against the real service (main.ts in a child process) with real mail through
 * a local SMTP server: invitation → account → sign in → server key (shown once) → crawler hit → revoke;
 * roles (403), sign out everywhere, CSRF, cookie flags, and layouts at 375 and 1280 px.
 *
 * The tests of this file share one SMTP server, one service and one Chromium (each start costs seconds of
 * CPU): the first test that runs starts them, the last to finish ends them (or the module's unload ends the
 * service, when a filter ran only some). Each test keeps its own tenant, its own browser contexts and its own
 * people (accounts are the service's, not a tenant's: each test's addresses are at its own mail domain).
 */
import assert from "node:assert/strict";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { endOnUnload, type RunningServer, startServer } from "../helpers/server.ts";
import { type LocalSmtp, startLocalSmtp } from "../helpers/smtp.ts";
import { adminCall, createTenant, type Tenant } from "../helpers/tenant.ts";
import { linkIn } from "../helpers/mail.ts";
import { launchChromium, USER_AGENT } from "./browser.ts";

const PASSWORD = "a long browser passphrase";

interface AppWorld {
  base: string;
  tenant: Tenant;
  browser: Browser;
  admin: (method: string, path: string, body?: unknown) => Promise<Record<string, unknown>>;
  mailTo(email: string): Promise<string>;
  context(width?: number): Promise<BrowserContext>;
  close(): Promise<void>;
}

interface Shared {
  smtp: LocalSmtp;
  server: RunningServer;
  browser: Browser;
}

/** Tests of this file that have not finished yet; the last to finish ends what they share. */
const pending = new Set<string>();
let shared: Promise<Shared> | undefined;
let running: RunningServer | undefined; // for the unload's synchronous end

async function start(): Promise<Shared> {
  const smtp = await startLocalSmtp();
  const server = await startServer({
    env: { SMTP_URL: smtp.url, MAIL_FROM: "Behavior <no-reply@behavior.test>" },
  }).catch(async (e) => {
    await smtp.stop();
    throw e;
  });
  running = server;
  const browser = await launchChromium().catch(async (e) => {
    running = undefined;
    await server.stop();
    await smtp.stop();
    throw e;
  });
  return { smtp, server, browser };
}

async function finished(name: string) {
  pending.delete(name);
  if (pending.size) return;
  const s = await shared?.catch(() => undefined);
  shared = running = undefined;
  if (!s) return;
  await s.browser.close().catch(() => {});
  await s.server.stop();
  await s.smtp.stop();
}

// a filter that leaves some test out: nothing calls the last `finished`; the module's unload ends the service
endOnUnload(() => running);

/** A test's world on the shared service: its own tenant; `close` closes the contexts it opened. */
async function openApp(): Promise<AppWorld> {
  const { smtp, server, browser } = await (shared ??= start());
  const api = { request: (p: string, init?: RequestInit) => fetch(server.url + p, init) };
  const tenant = await createTenant(api, server.adminToken);
  const contexts: BrowserContext[] = [];
  return {
    base: server.url,
    tenant,
    browser,
    admin: (method, path, body) => adminCall(api, server.adminToken, method, path, body),
    async mailTo(email) {
      const m = await smtp.waitFor((m) => m.to.includes(email) && !m.used, `to ${email}`);
      m.used = true;
      return linkIn(m.text)!;
    },
    async context(width = 1280) {
      const ctx = await browser.newContext({
        userAgent: USER_AGENT,
        viewport: { width, height: width < 600 ? 800 : 900 },
      });
      contexts.push(ctx);
      return ctx;
    },
    async close() {
      for (const ctx of contexts) await ctx.close().catch(() => {});
    },
  };
}

/**
 * A test on the shared service and Chromium, which outlive it (ended by the file's last test): the
 * sanitizers, which would count them as its leaks, are off.
 */
function appTest(name: string, fn: (w: AppWorld) => Promise<void>) {
  pending.add(name);
  Deno.test({
    name,
    sanitizeResources: false,
    sanitizeOps: false,
    async fn() {
      let w: AppWorld | undefined;
      try {
        w = await openApp();
        await fn(w);
      } finally {
        await w?.close();
        await finished(name);
      }
    },
  });
}

/** Accepts an invitation mailed to `email` in a fresh context: a new account, signed in. */
async function acceptInvite(
  w: AppWorld,
  email: string,
  width = 1280,
): Promise<{ ctx: BrowserContext; page: Page }> {
  const link = await w.mailTo(email);
  const ctx = await w.context(width);
  const page = await ctx.newPage();
  page.on("dialog", (d) => d.accept());
  await page.goto(link);
  await page.getByLabel("New password").fill(PASSWORD);
  await page.getByLabel("Repeat it").fill(PASSWORD);
  await page.getByRole("button", { name: "Create account and join" }).click();
  await page.waitForURL(/\/settings\/touchpoints$/);
  return { ctx, page };
}

async function signIn(page: Page, base: string, email: string) {
  await page.goto(`${base}/app/sign-in`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
}

const hit = () =>
  JSON.stringify({
    events: [{
      event_type: "$crawl",
      event_id: crypto.randomUUID(),
      host: "acme.test",
      path: "/docs",
      status: 200,
      user_agent: "Mozilla/5.0 (compatible; GPTBot/1.3; +https://openai.com/gptbot)",
      ip: "20.171.207.1",
    }],
  });

/**
 * Posts a form the way a page would (a real form submission: the browser sets Origin and the cookie), and
 * answers the status of the response.
 */
async function postForm(page: Page, url: string, fields: Record<string, string>): Promise<number> {
  const response = page.waitForResponse((r) => r.url() === url && r.request().method() === "POST");
  await page.evaluate(({ url, fields }) => {
    const form = document.createElement("form");
    form.method = "post";
    form.action = url;
    for (const [name, value] of Object.entries(fields)) {
      const input = document.createElement("input");
      input.type = "hidden";
      input.name = name;
      input.value = value;
      form.append(input);
    }
    document.body.append(form);
    form.submit();
  }, { url, fields });
  const status = (await response).status();
  await page.waitForLoadState();
  return status;
}

/** No page may scroll sideways: everything fits the viewport's width. */
async function fitsWidth(page: Page, what: string) {
  const { scroll, client } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    client: document.documentElement.clientWidth,
  }));
  assert.ok(scroll <= client, `${what}: ${scroll}px of content in a ${client}px viewport`);
}

appTest(
  "app in Chromium: invite by mail → account → sign in → a server key shown once → hits → revoke",
  async (w) => {
    const res = await w.admin("POST", `/orgs/${w.tenant.org}/invitations`, {
      email: "Olga@Acme.test",
      role: "owner",
    });
    const { ctx, page } = await acceptInvite(w, "olga@acme.test");
    assert.match(String(res.invitation_url), /\/app\/invite\//);

    // The cookie: HttpOnly, SameSite=Lax, only under /app.
    const [cookie] = await ctx.cookies();
    assert.equal(cookie.name, "svc_session");
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, "Lax");
    assert.equal(cookie.path, "/app");
    assert.equal(await page.evaluate(() => document.cookie), "", "scripts cannot read it");

    // Sign out, sign in again (a new session token).
    await page.getByText("olga@acme.test ▾").click();
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/\/app\/sign-in$/);
    assert.equal((await ctx.cookies()).length, 0);
    await signIn(page, w.base, "OLGA@acme.test");
    await page.waitForURL(/\/settings\/touchpoints$/);
    assert.notEqual((await ctx.cookies())[0].value, cookie.value);

    // Settings → Touchpoints → the website → Production → Server capture.
    await page.getByRole("link", { name: "Acme site" }).click();
    await page.getByRole("button", { name: "Create server key" }).click();
    const key = (await page.locator("#new-key").textContent())!.trim();
    assert.match(key, /^svc_sk_prod_/);
    assert.match((await page.locator("#server-snippet").textContent())!, /createCrawlReporter/);
    await page.getByRole("button", { name: "Copy" }).first().click();
    await page.reload();
    assert.equal(await page.locator("#new-key").count(), 0, "gone on reload");
    assert.ok(!(await page.content()).includes(key));

    const send = () =>
      fetch(`${w.base}/v1/behavior/server-events`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: hit(),
      });
    const ok = await send();
    assert.equal(ok.status, 202, await ok.text());

    await page.locator("tr", { hasText: key.slice(0, 16) }).getByRole("button", { name: "Revoke" }).click();
    await page.getByText("Key revoked").waitFor();
    const refused = await send();
    assert.equal(refused.status, 403);
    assert.match((await refused.json()).error, /revoked/);
    await ctx.close();
  },
);

// (its people at beta.test: the service's accounts outlive the first test's tenant)
appTest(
  "app in Chromium: a member gets the 403 page and refused POSTs; sign out everywhere ends another browser's session",
  async (w) => {
    await w.admin("POST", `/orgs/${w.tenant.org}/invitations`, { email: "olga@beta.test", role: "owner" });
    const owner = await acceptInvite(w, "olga@beta.test");
    // The owner invites a member from the app; the mail arrives through SMTP.
    await owner.page.getByRole("link", { name: "Members" }).click();
    await owner.page.getByLabel("Email").fill("mia@beta.test");
    await owner.page.getByLabel("Role", { exact: true }).selectOption("member");
    await owner.page.getByRole("button", { name: "Send invitation" }).click();
    await owner.page.getByText("Invitation sent to mia@beta.test").waitFor();
    const mia = await acceptInvite(w, "mia@beta.test", 375);

    const tpUrl = `${w.base}/app/o/${w.tenant.org}/settings/touchpoints/${w.tenant.touchpoint}`;
    const res = await mia.page.goto(tpUrl);
    assert.equal(res!.status(), 403);
    assert.equal(await mia.page.locator("h1").textContent(), "Not allowed");
    await fitsWidth(mia.page, "403 page at 375 px");
    // The POST is refused too, even with a valid CSRF token of the member's session.
    const csrf = await mia.page.locator("input[name=_csrf]").first().inputValue();
    const status = await postForm(mia.page, `${tpUrl}/keys`, {
      _csrf: csrf,
      kind: "server",
      environment: "production",
    });
    assert.equal(status, 403);

    // Olga signs in on a second browser too, then signs out everywhere from the first.
    const second = await w.context();
    const other = await second.newPage();
    await signIn(other, w.base, "olga@beta.test");
    await other.waitForURL(/\/settings\/touchpoints$/);
    await owner.page.goto(`${w.base}/app/account`);
    await owner.page.getByRole("button", { name: "Sign out everywhere" }).click();
    await owner.page.waitForURL(/\/app\/sign-in$/);
    await other.reload();
    assert.match(other.url(), /\/app\/sign-in/);
    // Mia's session is not Olga's: it goes on.
    await mia.page.goto(`${w.base}/app/o/${w.tenant.org}/settings/members`);
    assert.equal(await mia.page.locator("h1").textContent(), "Members");
  },
);

// (its person at gamma.test)
appTest(
  "app in Chromium: a form posted from another origin or without the CSRF token is refused; pages fit 375 and 1280 px",
  async (w) => {
    // Another site on this machine that auto-submits a form to the app (the classic CSRF attack).
    const evil = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, () =>
      new Response(
        `<!doctype html><form id="f" method="post" action="${w.base}/app/o/${w.tenant.org}/settings/touchpoints">
       <input name="name" value="Evil"><input name="kind" value="ios"></form><script>f.submit()</script>`,
        { headers: { "content-type": "text/html" } },
      ));
    try {
      await w.admin("POST", `/orgs/${w.tenant.org}/invitations`, { email: "olga@gamma.test", role: "owner" });
      const { page } = await acceptInvite(w, "olga@gamma.test");
      const touchpoints = `${w.base}/app/o/${w.tenant.org}/settings/touchpoints`;

      const attack = page.waitForResponse((r) => r.url() === touchpoints && r.request().method() === "POST");
      await page.goto(`http://127.0.0.1:${evil.addr.port}/`);
      assert.equal((await attack).status(), 403);

      await page.goto(touchpoints);
      assert.equal(await postForm(page, touchpoints, { name: "Sneaky", kind: "ios" }), 403);
      assert.equal(await page.locator("h1").textContent(), "Not allowed");
      await page.reload();
      const html = await page.content();
      assert.ok(!html.includes("Evil") && !html.includes("Sneaky"), "nothing was created");

      // Every settings page fits a phone and a desktop without sideways scrolling, a website named like its domain
      // (no space or hyphen to break at) too.
      const long = await w.admin("POST", `/orgs/${w.tenant.org}/touchpoints`, {
        name: "www.departmentstoreofmanythingsandmoreforeveryone.example.com",
        kind: "website",
        domain: "a-very-long-domain-name-for-testing-layouts-on-small-phones.example",
      });
      const longId = (long.touchpoint as { id?: string } | undefined)?.id ?? long.id;
      assert.equal(typeof longId, "string", JSON.stringify(long));
      for (const width of [375, 1280]) {
        await page.setViewportSize({ width, height: 850 });
        for (
          const path of [
            "settings/touchpoints",
            `settings/touchpoints/${w.tenant.touchpoint}`,
            `settings/touchpoints/${longId}`,
            "settings/read-keys",
            "settings/members",
            "settings/domains",
            "settings/assistants",
          ]
        ) {
          await page.goto(`${w.base}/app/o/${w.tenant.org}/${path}`);
          await fitsWidth(page, `${path} at ${width} px`);
          if (Deno.env.get("APP_SCREENSHOTS")) {
            await page.screenshot({
              path: `${Deno.env.get("APP_SCREENSHOTS")}/${path.replaceAll("/", "_")}_${width}.png`,
              fullPage: true,
            });
          }
        }
      }
      // Keyboard: the first Tab reaches the skip link, which moves focus to the content.
      await page.keyboard.press("Tab");
      assert.equal(await page.evaluate(() => document.activeElement?.textContent), "Skip to content");
    } finally {
      await evil.shutdown();
    }
  },
);
