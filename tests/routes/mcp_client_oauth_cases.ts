/**
 * The official MCP client's OAuth support against the app in-process (fast; the Chromium test in
 * tests/browser/assistant_browser_test.ts does the same against the real server): discovery from /mcp's 401,
 * a metadata-document client or dynamic registration, PKCE, the iss check, refresh after a refused token.
 */
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client";
import { FakeDns } from "../helpers/deps.ts";
import { decide, oauthWorld, REDIRECT, startAuthorization, type World } from "../helpers/oauth.ts";
import { TestOAuthProvider } from "../helpers/mcp_oauth.ts";
import { MetadataDocuments } from "../../lib/oauth/metadata_document.ts";

const MCP = new URL("http://localhost/mcp");
const fetchVia = (w: World) => (url: string | URL | Request, init?: RequestInit) =>
  Promise.resolve(w.app.fetch(new Request(url, init)));

async function connect(w: World, provider: TestOAuthProvider, person: string, orgs: string[]) {
  const first = new Client({ name: "t", version: "1" });
  const transport = new StreamableHTTPClientTransport(MCP, { authProvider: provider, fetch: fetchVia(w) });
  await assert.rejects(first.connect(transport), UnauthorizedError);
  const url = provider.authorizationUrls.at(-1)!;
  const path = await startAuthorization(w.app, url.toString());
  await w.people.client(person).get(path);
  const res = await decide(w, path, person, [
    ["decision", "approve"],
    ...orgs.map((o) => ["organization", o] as [string, string]),
  ]);
  assert.equal(res.status, 303);
  await transport.finishAuth(new URL(res.headers.get("location")!).searchParams);
  const client = new Client({ name: "t", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(MCP, { authProvider: provider, fetch: fetchVia(w) }),
  );
  return client;
}

Deno.test("MCP client OAuth in-process: dynamic registration, PKCE, tools, refresh after a refused token", async () => {
  const w = await oauthWorld();
  const provider = new TestOAuthProvider(REDIRECT, "SDK Assistant");
  const client = await connect(w, provider, "ann", [w.acme, w.beta]);
  assert.match(provider.client!.client_id, /^oc_/);
  const r = await client.callTool({ name: "account_overview", arguments: { organization: "Beta" } });
  assert.equal((r.structuredContent as { organization: { name: string } }).organization.name, "Beta");
  await client.close();
  const old = provider.saved!;
  provider.saved = { ...old, access_token: "svc_at_stale" };
  const again = new Client({ name: "t", version: "1" });
  await again.connect(new StreamableHTTPClientTransport(MCP, { authProvider: provider, fetch: fetchVia(w) }));
  assert.ok(
    !(await again.callTool({ name: "account_overview", arguments: { organization: "Acme" } })).isError,
  );
  assert.notEqual(provider.saved!.refresh_token, old.refresh_token);
  await again.close();
  w.deps.kv.close();
});

Deno.test("MCP client OAuth in-process: a client metadata document client is used as is, never registered", async () => {
  const w = await oauthWorld();
  const docUrl = "https://assistant.example/oauth/client.json";
  (w.deps.dns as FakeDns).a.set("assistant.example", ["93.184.216.34"]);
  w.app.ctx.oauth.documents = new MetadataDocuments({
    ...w.deps,
    fetch: (() =>
      Promise.resolve(
        Response.json({ client_id: docUrl, client_name: "Doc Assistant", redirect_uris: [REDIRECT] }),
      )) as typeof fetch,
  });
  const provider = new TestOAuthProvider(REDIRECT, "Doc Assistant", docUrl);
  const client = await connect(w, provider, "bob", [w.acme]);
  assert.equal(provider.client!.client_id, docUrl);
  assert.ok(!(await client.callTool({ name: "account_overview", arguments: {} })).isError);
  await client.close();
  w.deps.kv.close();
});
