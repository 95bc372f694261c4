/// <reference lib="dom" />
/**
 * Done-means of interactive assistant sign-in, end to end: the real service (main.ts in a child process),
 * the official MCP client's OAuth support (discovery from /mcp's 401, a client metadata document served by
 * this test over https on loopback, or dynamic registration; PKCE; token refresh), and Chromium, where the
 * person signs in and approves on the consent page. Then tools are listed and called, and each way a
 * connection ends is taken: leaving an organization, Disconnect under Settings → Connected assistants, and
 * sign out everywhere.
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client";
import { endOnUnload, type RunningServer, startServer } from "../helpers/server.ts";
import { adminCall, createTenant } from "../helpers/tenant.ts";
import { AppClient } from "../helpers/app_client.ts";
import { type LoopbackTls, makeLoopbackTls, serveCallback, serveDocument } from "../helpers/loopback_tls.ts";
import { TestOAuthProvider } from "../helpers/mcp_oauth.ts";
import { launchChromium, USER_AGENT } from "./browser.ts";

const PASSWORD = "a long browser passphrase";

interface World {
  server: RunningServer;
  browser: Browser;
  tls: LoopbackTls;
  acme: string;
  beta: string;
  /** the member who connects assistants: the test's own account */
  ann: string;
  callback: ReturnType<typeof serveCallback>;
  close(): Promise<void>;
}

/** An account made through an invitation link (the admin API answers the link) and accepted over HTTP. */
async function invite(server: RunningServer, org: string, email: string, role: string) {
  const api = { request: (p: string, init?: RequestInit) => fetch(server.url + p, init) };
  const inv = await adminCall(api, server.adminToken, "POST", `/orgs/${org}/invitations`, { email, role });
  const page = await new AppClient(api, server.url).submit(new URL(inv.invitation_url).pathname, {
    password: PASSWORD,
    password2: PASSWORD,
  });
  assert.equal(page.status, 200, page.html);
}

/**
 * The tests of this file share one service and one Chromium (each start costs seconds of CPU): the first test
 * that runs starts them, the last to finish ends them (or the module's unload ends the service, when a filter
 * ran only some). The service trusts this run's loopback certificate authority, so it can fetch a metadata
 * document from 127.0.0.1.
 */
interface Shared {
  server: RunningServer;
  browser: Browser;
  tls: LoopbackTls;
}

const pending = new Set<string>();
let shared: Promise<Shared> | undefined;
let running: RunningServer | undefined; // for the unload's synchronous end

async function start(): Promise<Shared> {
  const tls = await makeLoopbackTls();
  const server = await startServer({
    env: { OAUTH_TEST_ALLOW_LOOPBACK_CLIENTS: "1", DENO_CERT: tls.caFile },
  }).catch(async (e) => {
    await tls.remove();
    throw e;
  });
  running = server;
  const browser = await launchChromium().catch(async (e) => {
    running = undefined;
    await server.stop();
    await tls.remove();
    throw e;
  });
  return { server, browser, tls };
}

async function finished(name: string) {
  pending.delete(name);
  if (pending.size) return;
  const s = await shared?.catch(() => undefined);
  shared = running = undefined;
  if (!s) return;
  await s.browser.close().catch(() => {});
  await s.server.stop();
  await s.tls.remove();
}

// a filter that leaves some test out: nothing calls the last `finished`; the module's unload ends the service
endOnUnload(() => running);

/**
 * A test's world on the shared service: Acme (free plan, a website) and Beta (professional), its own; Olga owns
 * both, Ann is a member of both. Accounts are the service's, not an organization's: each test's people are at
 * its own mail domain `mail`.
 */
async function open(mail: string): Promise<World> {
  const { server, browser, tls } = await (shared ??= start());
  const api = { request: (p: string, init?: RequestInit) => fetch(server.url + p, init) };
  const acme = (await createTenant(api, server.adminToken, { plan: "free" })).org;
  const beta =
    (await adminCall(api, server.adminToken, "POST", "/orgs", { name: "Beta", plan: "professional" }))
      .id as string;
  const ann = `ann@${mail}`;
  await invite(server, acme, `olga@${mail}`, "owner");
  await invite(server, beta, `olga@${mail}`, "owner");
  await invite(server, acme, ann, "member");
  await invite(server, beta, ann, "member");
  const callback = serveCallback();
  return {
    server,
    browser,
    tls,
    acme,
    beta,
    ann,
    callback,
    async close() {
      await callback.stop();
    },
  };
}

/**
 * A test on the shared service and Chromium, which outlive it (ended by the file's last test): the
 * sanitizers, which would count them as its leaks, are off.
 */
function worldTest(name: string, mail: string, fn: (w: World) => Promise<void>) {
  pending.add(name);
  Deno.test({
    name,
    sanitizeResources: false,
    sanitizeOps: false,
    async fn() {
      let w: World | undefined;
      try {
        w = await open(mail);
        await fn(w);
      } finally {
        await w?.close();
        await finished(name);
      }
    },
  });
}

/**
 * What the person does in the browser: opens the URL the assistant asked them to open, signs in if the
 * browser is not signed in yet, ticks the organizations, picks the environment and allows. Answers the
 * callback's query, as the assistant received it.
 */
async function approveInBrowser(
  w: World,
  page: Page,
  url: URL,
  orgs: string[],
): Promise<URLSearchParams> {
  const arrived = w.callback.next();
  await page.goto(url.toString());
  if (new URL(page.url()).pathname === "/app/sign-in") {
    await page.getByLabel("Email").fill(w.ann);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/app\/connect\/pa_/);
  }
  assert.match(await page.locator("h1").textContent() ?? "", /^Connect .+ to your analytics\?$/);
  await fitsWidth(page, `the consent page at ${page.viewportSize()!.width} px`);
  for (const org of orgs) await page.getByLabel(org).check();
  assert.ok(await page.getByLabel("production").isChecked(), "production is the default");
  await page.getByRole("button", { name: "Allow" }).click();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(async () => {
      reject(new Error(`no callback within 30 s; the browser is at ${page.url()}: ${await page.content()}`));
    }, 30_000);
  });
  try {
    return await Promise.race([arrived, late]);
  } finally {
    clearTimeout(timer);
  }
}

const transportOf = (w: World, provider: TestOAuthProvider) =>
  new StreamableHTTPClientTransport(new URL(`${w.server.url}/mcp`), { authProvider: provider });

/** The MCP client's first connect fails with 401; the person approves in Chromium; the client finishes. */
async function connectAssistant(w: World, page: Page, provider: TestOAuthProvider, orgs: string[]) {
  const first = transportOf(w, provider);
  await assert.rejects(new Client({ name: "e2e", version: "1" }).connect(first), UnauthorizedError);
  const query = await approveInBrowser(w, page, provider.authorizationUrls.at(-1)!, orgs);
  assert.equal(query.get("iss"), w.server.url);
  assert.ok(query.get("code"));
  await first.finishAuth(query);
  const client = new Client({ name: "e2e", version: "1" });
  await client.connect(transportOf(w, provider));
  return client;
}

const text = (r: { content: unknown }) => (r.content as { text: string }[])[0]?.text ?? "";
const orgNames = (r: { structuredContent?: unknown }) =>
  (r.structuredContent as { organizations: { name: string }[] }).organizations.map((o) => o.name);

/** Grant checks are cached for seconds on the server: ask again until the answer changes (or give up). */
async function eventually<T>(what: string, probe: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + 15_000;
  while (true) {
    const v = await probe();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`${what}: still not so after 15 s`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** No page may scroll sideways at this width. */
async function fitsWidth(page: Page, what: string) {
  const { scroll, client } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    client: document.documentElement.clientWidth,
  }));
  assert.ok(scroll <= client, `${what}: ${scroll}px of content in a ${client}px viewport`);
}

worldTest(
  "assistant end to end: a metadata-document client connects through Chromium; leaving an organization, then Disconnect, end what it reads",
  "acme.test",
  async (w) => {
    const doc = serveDocument(w.tls, (url) => ({
      client_id: url,
      client_name: "Doc Assistant",
      redirect_uris: [w.callback.url],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    }));
    try {
      const ctx = await w.browser.newContext({
        userAgent: USER_AGENT,
        viewport: { width: 375, height: 800 },
      });
      const page = await ctx.newPage();
      page.setDefaultTimeout(20_000);
      page.on("dialog", (d) => d.accept());
      const provider = new TestOAuthProvider(w.callback.url, "Doc Assistant", doc.url);
      const client = await connectAssistant(w, page, provider, ["Acme", "Beta"]);
      assert.equal(
        provider.client!.client_id,
        doc.url,
        "the document's URL is the client_id; nothing registered",
      );
      assert.ok(doc.fetched() >= 1);

      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === "account_overview"));
      assert.ok(
        tools.every((t) => "organization" in (t.inputSchema.properties ?? {})),
        "every tool takes it",
      );
      const overview = await client.callTool({ name: "account_overview", arguments: {} });
      assert.deepEqual(orgNames(overview).sort(), ["Acme", "Beta"]);
      const ambiguous = await client.callTool({ name: "behavior_pages", arguments: {} });
      assert.equal(ambiguous.isError, true);
      assert.match(
        text(ambiguous),
        /organization: name the organization to read; this connection reads 2: "Acme"/,
      );
      const pages = await client.callTool({ name: "behavior_pages", arguments: { organization: "Acme" } });
      assert.ok(!pages.isError, text(pages));

      // Ann leaves Acme in the app: the connection goes on reading Beta only.
      await page.goto(`${w.server.url}/app/o/${w.acme}/settings/members`);
      await page.getByRole("button", { name: "Leave" }).click();
      await page.getByText("You left Acme").waitFor();
      const after = await eventually(
        "Acme dropped out",
        () => client.callTool({ name: "account_overview", arguments: {} }),
        (r) => orgNames(r).length === 1,
      );
      assert.deepEqual(orgNames(after), ["Beta"]);
      const gone = await client.callTool({ name: "behavior_pages", arguments: { organization: "Acme" } });
      assert.match(text(gone), /does not read "Acme"/);

      // Settings → Connected assistants, on a phone: the connection with what it reads; Disconnect ends it.
      await page.goto(`${w.server.url}/app/assistants`);
      const card = page.locator("article", { hasText: "Doc Assistant" });
      assert.match(await card.textContent() ?? "", /Returns to127\.0\.0\.1:\d+.*ReadsBeta.*Dataproduction/s);
      await fitsWidth(page, "connected assistants at 375 px");
      await page.goto(`${w.server.url}/app/o/${w.beta}/settings/assistants`);
      await fitsWidth(page, "an organization's connected assistants at 375 px");
      await page.goto(`${w.server.url}/app/assistants`);
      await card.getByRole("button", { name: "Disconnect" }).click();
      await page.getByText("You have not connected an assistant").waitFor();
      // The access token is refused at once, the refresh token too: the client must send the person again.
      const refused = await fetch(`${w.server.url}/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${provider.saved!.access_token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
      });
      assert.equal(refused.status, 401);
      assert.match(refused.headers.get("www-authenticate")!, /ended \(disconnected\)/);
      await refused.body?.cancel();
      const asked = provider.authorizationUrls.length;
      await assert.rejects(client.callTool({ name: "account_overview", arguments: {} }), UnauthorizedError);
      assert.equal(provider.authorizationUrls.length, asked + 1, "the refresh was refused; sign-in again");
      await client.close();
      await ctx.close();
    } finally {
      await doc.stop();
    }
  },
);

worldTest(
  "assistant end to end: a dynamically registered client connects through Chromium, refreshes its token, and ends with sign out everywhere",
  "beta.test",
  async (w) => {
    const ctx = await w.browser.newContext({ userAgent: USER_AGENT, viewport: { width: 1280, height: 900 } });
    const page = await ctx.newPage();
    page.setDefaultTimeout(20_000);
    page.on("dialog", (d) => d.accept());
    const provider = new TestOAuthProvider(w.callback.url, "Registered Assistant");
    const client = await connectAssistant(w, page, provider, ["Beta"]);
    assert.match(provider.client!.client_id, /^oc_/, "registered dynamically");
    const overview = await client.callTool({ name: "account_overview", arguments: {} });
    assert.deepEqual(orgNames(overview), ["Beta"]);

    // An access token the server no longer accepts: the client refreshes (rotating the refresh token).
    const before = provider.saved!;
    provider.saved = { ...before, access_token: "svc_at_no_longer_valid" };
    const again = await client.callTool({ name: "account_overview", arguments: {} });
    assert.ok(!again.isError, text(again));
    assert.notEqual(provider.saved!.refresh_token, before.refresh_token);
    assert.notEqual(provider.saved!.access_token, "svc_at_no_longer_valid");

    // Ann signs out everywhere in the app: the connection ends with her sessions.
    await page.goto(`${w.server.url}/app/account`);
    await page.getByRole("button", { name: "Sign out everywhere" }).click();
    await page.waitForURL(/\/app\/sign-in$/);
    const asked = provider.authorizationUrls.length;
    await eventually(
      "the connection ended",
      () => client.callTool({ name: "account_overview", arguments: {} }).then(() => false, (e) => e),
      (e) => e instanceof UnauthorizedError,
    );
    assert.equal(provider.authorizationUrls.length, asked + 1, "the refresh was refused; sign-in again");
    await client.close();
    await ctx.close();
  },
);
