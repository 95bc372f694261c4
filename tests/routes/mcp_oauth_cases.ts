/**
 * /mcp with an assistant connected as a person: the official MCP client with the access token, tools run
 * across the organizations the person allowed, each call counted against that organization's assistant
 * requests; the connection ends when the grant does.
 */
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { TEST_ADMIN_TOKEN } from "../helpers/deps.ts";
import { adminCall } from "../helpers/tenant.ts";
import { connect, oauthWorld, type World } from "../helpers/oauth.ts";
import { readUsage } from "../../lib/usage/allowance.ts";
import { CHECK_CACHE_MS } from "../../lib/oauth/state.ts";
import { ACCESS_TTL_MS } from "../../lib/oauth/types.ts";
import { TOOLS } from "../../tools/registry.ts";

const fetchVia = (w: World) => (url: string | URL | Request, init?: RequestInit) =>
  Promise.resolve(w.app.fetch(new Request(url, init)));

async function mcpClient(w: World, token: string) {
  const client = new Client({ name: "oauth-test", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL("http://localhost/mcp"), {
      fetch: fetchVia(w),
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

function rpc(w: World, token: string | null) {
  return w.app.request("/mcp", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
  });
}

const text = (r: { content: unknown }) => (r.content as { text: string }[])[0].text;

async function worldWithSites() {
  const w = await oauthWorld();
  for (const [org, domain] of [[w.acme, "acme.test"], [w.beta, "beta.test"]]) {
    await adminCall(w.app, TEST_ADMIN_TOKEN, "POST", `/orgs/${org}/touchpoints`, {
      name: `${domain} site`,
      kind: "website",
      domain,
    });
  }
  return w;
}

Deno.test("mcp as a person: tools take an organization; 422 lists the choices; each call counts for its organization", async () => {
  const w = await worldWithSites();
  const { tokens } = await connect(w, "ann", [w.acme, w.beta]);
  const client = await mcpClient(w, tokens.access_token);
  const { tools } = await client.listTools();
  assert.equal(tools.length, TOOLS.length);
  for (const t of tools) {
    const props = (t.inputSchema as { properties?: Record<string, { type: string }> }).properties ?? {};
    assert.equal(props.organization?.type, "string", t.name);
  }
  const overview = await client.callTool({ name: "account_overview", arguments: {} });
  assert.ok(!overview.isError, text(overview));
  const o = overview.structuredContent as {
    organization: { id: string };
    organizations: { id: string; name: string; described: boolean }[];
    organizations_total: number;
    notices: string[];
  };
  assert.deepEqual(o.organizations.map((x) => x.name), ["Acme", "Beta"]);
  assert.equal(o.organizations_total, 2);
  assert.equal(o.organization.id, w.acme);
  assert.ok(o.notices.some((n) => n.includes("reads 2 organizations")));

  const ambiguous = await client.callTool({ name: "behavior_overview", arguments: {} });
  assert.equal(ambiguous.isError, true);
  assert.match(
    text(ambiguous),
    /^VALIDATION_ERROR: organization: name the organization to read; this connection reads 2: "Acme" \(id .+\), "Beta"/,
  );
  const unknown = await client.callTool({ name: "behavior_overview", arguments: { organization: "Gamma" } });
  assert.match(text(unknown), /does not read "Gamma"/);

  const before = await readUsage(w.deps.kv, (await w.app.ctx.directory.org(w.beta))!, w.deps.clock.now());
  const byName = await client.callTool({ name: "behavior_overview", arguments: { organization: "beta" } });
  assert.ok(!byName.isError, text(byName));
  assert.equal(
    (byName.structuredContent as { scope: { touchpoint: { name: string } } }).scope.touchpoint.name,
    "beta.test site",
  );
  const byId = await client.callTool({ name: "account_overview", arguments: { organization: w.beta } });
  assert.equal((byId.structuredContent as { organization: { id: string } }).organization.id, w.beta);
  const after = await readUsage(w.deps.kv, (await w.app.ctx.directory.org(w.beta))!, w.deps.clock.now());
  assert.equal(after.assistant_requests - before.assistant_requests, 2);
  assert.equal(after.api_requests, before.api_requests);
  // Acme is on the free plan: read keys are refused there, an interactive connection reads it.
  const free = await client.callTool({ name: "behavior_pages", arguments: { organization: "Acme" } });
  assert.ok(!free.isError, text(free));
  await client.close();
  w.deps.kv.close();
});

Deno.test("mcp as a person: one organization needs no organization input; env is the one chosen", async () => {
  const w = await worldWithSites();
  const { tokens } = await connect(w, "bob", [w.acme], "staging");
  const client = await mcpClient(w, tokens.access_token);
  const r = await client.callTool({ name: "account_overview", arguments: {} });
  const a = r.structuredContent as {
    organizations_total: number;
    data: { environment: string };
    notices: string[];
  };
  assert.equal(a.organizations_total, 1);
  assert.equal(a.data.environment, "staging");
  assert.deepEqual(a.notices.filter((n) => n.includes("organizations")), []);
  assert.ok(!(await client.callTool({ name: "behavior_pages", arguments: {} })).isError);
  await client.close();
  w.deps.kv.close();
});

Deno.test("mcp as a person: 401 with the discovery challenge once the token expired or the connection ended", async () => {
  const w = await worldWithSites();
  const a = await connect(w, "bob", [w.acme]);
  assert.equal((await rpc(w, a.tokens.access_token)).status, 200);
  const none = await rpc(w, null);
  assert.equal(none.status, 401);
  assert.match(
    none.headers.get("www-authenticate")!,
    /^Bearer resource_metadata="http:\/\/localhost\/\.well-known\/oauth-protected-resource\/mcp", scope="read"$/,
  );
  w.deps.clock.advance(ACCESS_TTL_MS);
  const expired = await rpc(w, a.tokens.access_token);
  assert.equal(expired.status, 401);
  assert.match(
    expired.headers.get("www-authenticate")!,
    /error="invalid_token", error_description="the access token is unknown or expired"/,
  );
  assert.equal((await expired.json()).code, "UNAUTHORIZED");

  const b = await connect(w, "ann", [w.acme, w.beta]);
  await w.people.leave("ann", w.acme);
  w.deps.clock.advance(CHECK_CACHE_MS);
  const client = await mcpClient(w, b.tokens.access_token);
  const left = await client.callTool({ name: "account_overview", arguments: {} });
  assert.deepEqual(
    (left.structuredContent as { organizations: { name: string }[] }).organizations.map((o) => o.name),
    ["Beta"],
  );
  const gone = await client.callTool({ name: "behavior_pages", arguments: { organization: "Acme" } });
  assert.match(text(gone), /does not read "Acme"/);
  await client.close();
  await w.people.leave("ann", w.beta);
  w.deps.clock.advance(CHECK_CACHE_MS);
  const ended = await rpc(w, b.tokens.access_token);
  assert.equal(ended.status, 401);
  assert.match(ended.headers.get("www-authenticate")!, /no longer a member of any granted organization/);
  w.deps.kv.close();
});
