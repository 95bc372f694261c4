import assert from "node:assert/strict";
import { FakeDns } from "../helpers/deps.ts";
import { MetadataDocuments } from "../../lib/oauth/metadata_document.ts";
import {
  approve,
  authorizeUrl,
  BASE,
  connect,
  decide,
  oauthWorld,
  pkce,
  REDIRECT,
  RESOURCE,
  startAuthorization,
  tokenRequest,
} from "../helpers/oauth.ts";
import { checkGrant } from "../../lib/oauth/grants.ts";
import { keys } from "../../lib/store/keys.ts";
import { CODE_TTL_MS } from "../../lib/oauth/types.ts";

Deno.test("oauth: allow sends code, state and iss back; the code buys tokens bound to a grant", async () => {
  const e = await oauthWorld();
  const { back, tokens } = await connect(e, "ann", [e.acme, e.beta]);
  assert.equal(back.origin + back.pathname, REDIRECT);
  assert.equal(back.searchParams.get("state"), "st-123");
  assert.equal(back.searchParams.get("iss"), BASE);
  assert.match(tokens.access_token, /^svc_at_/);
  assert.match(tokens.refresh_token, /^svc_rt_/);
  assert.equal(tokens.token_type, "Bearer");
  assert.equal(tokens.expires_in, 3600);
  assert.equal(tokens.scope, "read");
  const grants = [];
  for await (const g of e.deps.kv.list({ prefix: keys.oauthUserGrants(e.people.id("ann")) })) {
    grants.push(g.key[2]);
  }
  assert.equal(grants.length, 1);
  const check = await checkGrant(e.app.ctx, String(grants[0]));
  assert.ok(check.ok);
  assert.deepEqual(check.grant!.orgs.sort(), [e.acme, e.beta].sort());
  assert.equal(check.grant!.env, "production");
  // Only hashes are stored: the raw token is in no key and no value.
  for await (const entry of e.deps.kv.list({ prefix: [] })) {
    const text = JSON.stringify(entry.key) +
      JSON.stringify(entry.value, (_k, v) => typeof v === "bigint" ? String(v) : v);
    assert.ok(!text.includes(tokens.access_token.slice(7)) && !text.includes(tokens.refresh_token.slice(7)));
  }
  e.deps.kv.close();
});

Deno.test("oauth: the consent page shows the client, its redirect host, the person and their organizations", async () => {
  const e = await oauthWorld();
  const { challenge } = await pkce();
  const path = await startAuthorization(
    e.app,
    authorizeUrl({ client_id: e.clientId, redirect_uri: REDIRECT, code_challenge: challenge }),
  );
  const anon = await e.app.request(path);
  assert.equal(anon.status, 303);
  assert.equal(anon.headers.get("location"), `/app/sign-in?next=${encodeURIComponent(path)}`);
  const res = await e.app.request(path, { headers: e.people.as("ann") });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("x-frame-options"), "DENY");
  assert.match(res.headers.get("content-security-policy")!, /frame-ancestors 'none'/);
  // Not no-referrer: under it Chromium posts the consent form with "Origin: null", which is refused.
  assert.equal(res.headers.get("referrer-policy"), "same-origin");
  const html = await res.text();
  for (
    const s of [
      "Test Assistant",
      "127.0.0.1:7777",
      "ann@example.test",
      "Acme",
      "Beta",
      "(owner)",
      "production",
    ]
  ) {
    assert.ok(html.includes(s), s);
  }
  assert.match(html, /<legend>Organizations it may read<\/legend>/);
  assert.match(html, /value="production" checked/);
  // Bound to ann once she opened it: bob gets nothing.
  const other = await e.app.request(path, { headers: e.people.as("bob") });
  assert.equal(other.status, 410);
  e.deps.kv.close();
});

Deno.test("oauth: deny sends access_denied with state and iss; the request cannot be decided twice", async () => {
  const e = await oauthWorld();
  const { challenge } = await pkce();
  const path = await startAuthorization(
    e.app,
    authorizeUrl({ client_id: e.clientId, redirect_uri: REDIRECT, code_challenge: challenge }),
  );
  await (await e.app.request(path, { headers: e.people.as("ann") })).text();
  const res = await decide(e, path, "ann", [["decision", "deny"]]);
  assert.equal(res.status, 303);
  const back = new URL(res.headers.get("location")!);
  assert.equal(back.searchParams.get("error"), "access_denied");
  assert.equal(back.searchParams.get("state"), "st-123");
  assert.equal(back.searchParams.get("iss"), BASE);
  assert.equal(back.searchParams.get("code"), null);
  const again = await decide(e, path, "ann", [["decision", "approve"], ["organization", e.acme]]);
  assert.equal(again.status, 410);
  e.deps.kv.close();
});

Deno.test("oauth: consent refuses no organization, a foreign one, a cross-site post, a post without the session's CSRF token and a signed-out post", async () => {
  const e = await oauthWorld();
  const { challenge } = await pkce();
  const path = await startAuthorization(
    e.app,
    authorizeUrl({ client_id: e.clientId, redirect_uri: REDIRECT, code_challenge: challenge }),
  );
  await (await e.app.request(path, { headers: e.people.as("bob") })).text();
  const none = await decide(e, path, "bob", [["decision", "approve"], ["environment", "production"]]);
  assert.equal(none.status, 422);
  assert.match(await none.text(), /role="alert">Choose at least one organization/);
  const foreign = await decide(e, path, "bob", [["decision", "approve"], ["organization", e.beta]]);
  assert.equal(foreign.status, 422);
  const badEnv = await decide(e, path, "bob", [["decision", "approve"], ["organization", e.acme], [
    "environment",
    "prod",
  ]]);
  assert.equal(badEnv.status, 422);
  const cross = await e.app.request(path, {
    method: "POST",
    headers: {
      ...e.people.as("bob"),
      origin: "https://evil.example",
      "content-type": "application/x-www-form-urlencoded",
    },
    body: "decision=approve&organization=" + e.acme,
  });
  assert.equal(cross.status, 403);
  const noOrigin = await e.app.request(path, {
    method: "POST",
    headers: { ...e.people.as("bob"), "content-type": "application/x-www-form-urlencoded" },
    body: "decision=approve&organization=" + e.acme,
  });
  assert.equal(noOrigin.status, 403);
  const noCsrf = await e.people.client("bob").post(path, { decision: "approve", organization: e.acme }, {
    csrf: null,
  });
  assert.equal(noCsrf.status, 403);
  assert.match(noCsrf.html, /not sent from this page/);
  const othersCsrf = await e.people.client("bob").post(path, { decision: "approve", organization: e.acme }, {
    csrf: e.people.client("ann").csrf,
  });
  assert.equal(othersCsrf.status, 403, "another session's token is not this one's");
  const signedOut = await e.app.request(path, {
    method: "POST",
    headers: { origin: BASE, "content-type": "application/x-www-form-urlencoded" },
    body: "decision=approve&organization=" + e.acme,
  });
  assert.equal(signedOut.status, 401);
  // Still undecided after all that: a proper approval works.
  const ok = await decide(e, path, "bob", [["decision", "approve"], ["organization", e.acme], [
    "environment",
    "staging",
  ]]);
  assert.equal(ok.status, 303);
  assert.ok(new URL(ok.headers.get("location")!).searchParams.get("code"));
  e.deps.kv.close();
});

Deno.test("oauth: authorization request errors: unknown client and foreign redirect stay on the page, others go back", async () => {
  const e = await oauthWorld();
  const { challenge } = await pkce();
  const page = async (url: string) => {
    const res = await e.app.request(url);
    assert.equal(res.status, 400);
    assert.equal(res.headers.get("location"), null);
    return await res.text();
  };
  assert.match(
    await page(authorizeUrl({ redirect_uri: REDIRECT, code_challenge: challenge })),
    /names no client/,
  );
  assert.match(
    await page(
      authorizeUrl({ client_id: "oc_nosuchclient1", redirect_uri: REDIRECT, code_challenge: challenge }),
    ),
    /unknown client_id/,
  );
  assert.match(
    await page(
      authorizeUrl({
        client_id: e.clientId,
        redirect_uri: "https://evil.example/cb",
        code_challenge: challenge,
      }),
    ),
    /not one that Test Assistant registered/,
  );
  assert.match(
    await page(authorizeUrl({ client_id: e.clientId, code_challenge: challenge })),
    /names no redirect_uri/,
  );

  const back = async (p: Record<string, string | undefined>) => {
    const res = await e.app.request(
      authorizeUrl({ client_id: e.clientId, redirect_uri: REDIRECT, code_challenge: challenge, ...p }),
    );
    assert.equal(res.status, 302);
    const u = new URL(res.headers.get("location")!);
    assert.equal(u.origin + u.pathname, REDIRECT);
    assert.equal(u.searchParams.get("state"), "st-123");
    assert.equal(u.searchParams.get("iss"), BASE);
    return [u.searchParams.get("error"), u.searchParams.get("error_description")];
  };
  assert.deepEqual((await back({ resource: "https://other.example/mcp" }))[0], "invalid_target");
  assert.deepEqual((await back({ resource: undefined }))[0], "invalid_target");
  assert.deepEqual((await back({ code_challenge: undefined }))[0], "invalid_request");
  assert.deepEqual((await back({ code_challenge_method: "plain" }))[0], "invalid_request");
  assert.deepEqual((await back({ code_challenge_method: undefined }))[0], "invalid_request");
  assert.deepEqual((await back({ response_type: "token" }))[0], "unsupported_response_type");
  assert.deepEqual((await back({ scope: "write" }))[0], "invalid_scope");
  // A loopback redirect may come back on any port (RFC 8252 §7.3); the path must still match.
  const otherPort = await e.app.request(
    authorizeUrl({
      client_id: e.clientId,
      redirect_uri: "http://127.0.0.1:9999/callback",
      code_challenge: challenge,
    }),
  );
  assert.equal(otherPort.status, 303);
  assert.equal(
    (await e.app.request(
      authorizeUrl({
        client_id: e.clientId,
        redirect_uri: "http://127.0.0.1:7777/other",
        code_challenge: challenge,
      }),
    )).status,
    400,
  );
  e.deps.kv.close();
});

Deno.test("oauth: code exchange refuses PKCE mismatch, another redirect, another resource, another client, expiry", async () => {
  const e = await oauthWorld();
  const { challenge, verifier } = await pkce();
  const fresh = async () =>
    (await approve(
      e,
      authorizeUrl({ client_id: e.clientId, redirect_uri: REDIRECT, code_challenge: challenge }),
      "ann",
      [e.acme],
    )).searchParams.get("code")!;
  const base = (code: string) => ({
    grant_type: "authorization_code",
    code,
    code_verifier: verifier,
    client_id: e.clientId,
    redirect_uri: REDIRECT,
  });
  const code = await fresh();
  let r = await tokenRequest(e.app, { ...base(code), code_verifier: "x".repeat(43) });
  assert.deepEqual([r.status, r.body.error], [400, "invalid_grant"]);
  assert.match(r.body.error_description, /PKCE/);
  assert.equal(r.headers.get("cache-control"), "no-store");
  r = await tokenRequest(e.app, { ...base(code), code_verifier: "" });
  assert.deepEqual([r.status, r.body.error], [400, "invalid_request"]);
  r = await tokenRequest(e.app, { ...base(code), redirect_uri: "http://127.0.0.1:7777/other" });
  assert.deepEqual([r.status, r.body.error], [400, "invalid_grant"]);
  r = await tokenRequest(e.app, { ...base(code), resource: "https://other.example/mcp" });
  assert.deepEqual([r.status, r.body.error], [400, "invalid_target"]);
  const other = await (await e.app.request("/oauth/register", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ redirect_uris: [REDIRECT] }),
  })).json();
  r = await tokenRequest(e.app, { ...base(code), client_id: other.client_id });
  assert.deepEqual([r.status, r.body.error], [400, "invalid_grant"]);
  // After all those refusals the right request still works once.
  r = await tokenRequest(e.app, base(code));
  assert.equal(r.status, 200);
  const late = await fresh();
  e.deps.clock.advance(CODE_TTL_MS + 1);
  r = await tokenRequest(e.app, base(late));
  assert.deepEqual([r.status, r.body.error], [400, "invalid_grant"]);
  assert.match(r.body.error_description, /expired/);
  r = await tokenRequest(e.app, { ...base(late), grant_type: "password" });
  assert.deepEqual([r.status, r.body.error], [400, "unsupported_grant_type"]);
  const form = await e.app.request("/oauth/token", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "{}",
  });
  assert.equal(form.status, 400);
  assert.equal((await form.json()).error, "invalid_request");
  e.deps.kv.close();
});

Deno.test("oauth: a reused code is refused and ends the connection it made", async () => {
  const e = await oauthWorld();
  const { code, verifier, tokens } = await connect(e);
  const r = await tokenRequest(e.app, {
    grant_type: "authorization_code",
    code,
    code_verifier: verifier,
    client_id: e.clientId,
    redirect_uri: REDIRECT,
  });
  assert.deepEqual([r.status, r.body.error], [400, "invalid_grant"]);
  const refresh = await tokenRequest(e.app, {
    grant_type: "refresh_token",
    refresh_token: tokens.refresh_token,
    client_id: e.clientId,
  });
  assert.deepEqual([refresh.status, refresh.body.error], [400, "invalid_grant"]);
  assert.match(refresh.body.error_description, /authorization code reused/);
  e.deps.kv.close();
});

Deno.test("oauth: refresh rotates both tokens; presenting a used refresh token ends the grant", async () => {
  const e = await oauthWorld();
  const { tokens } = await connect(e);
  const r1 = await tokenRequest(e.app, {
    grant_type: "refresh_token",
    refresh_token: tokens.refresh_token,
    client_id: e.clientId,
    resource: RESOURCE,
  });
  assert.equal(r1.status, 200);
  assert.notEqual(r1.body.refresh_token, tokens.refresh_token);
  assert.notEqual(r1.body.access_token, tokens.access_token);
  const replay = await tokenRequest(e.app, {
    grant_type: "refresh_token",
    refresh_token: tokens.refresh_token,
    client_id: e.clientId,
  });
  assert.deepEqual([replay.status, replay.body.error], [400, "invalid_grant"]);
  assert.match(replay.body.error_description, /already used/);
  // The newest refresh token dies with the grant too.
  const next = await tokenRequest(e.app, {
    grant_type: "refresh_token",
    refresh_token: r1.body.refresh_token,
    client_id: e.clientId,
  });
  assert.deepEqual([next.status, next.body.error], [400, "invalid_grant"]);
  assert.match(next.body.error_description, /refresh token reused/);
  e.deps.kv.close();
});

Deno.test("oauth: refresh is refused after leaving every granted organization or signing out everywhere", async () => {
  const e = await oauthWorld();
  const a = await connect(e, "bob", [e.acme]);
  await e.people.leave("bob", e.acme);
  let r = await tokenRequest(e.app, {
    grant_type: "refresh_token",
    refresh_token: a.tokens.refresh_token,
    client_id: e.clientId,
  });
  assert.deepEqual([r.status, r.body.error], [400, "invalid_grant"]);
  assert.match(r.body.error_description, /no longer a member/);
  const b = await connect(e, "ann", [e.acme, e.beta]);
  e.deps.clock.advance(1000);
  await e.people.signOutEverywhere("ann");
  r = await tokenRequest(e.app, {
    grant_type: "refresh_token",
    refresh_token: b.tokens.refresh_token,
    client_id: e.clientId,
  });
  assert.deepEqual([r.status, r.body.error], [400, "invalid_grant"]);
  assert.match(r.body.error_description, /signed out everywhere/);
  // A connection made after the sign-out (and a new sign-in) works.
  await e.people.signIn("ann");
  const c = await connect(e, "ann", [e.beta]);
  r = await tokenRequest(e.app, {
    grant_type: "refresh_token",
    refresh_token: c.tokens.refresh_token,
    client_id: e.clientId,
  });
  assert.equal(r.status, 200);
  e.deps.kv.close();
});

Deno.test("oauth: revocation (RFC 7009): a refresh token ends the grant, unknown tokens are fine, others' are refused", async () => {
  const e = await oauthWorld();
  const revoke = async (fields: Record<string, string>) => {
    const res = await e.app.request("/oauth/revoke", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
    });
    return { status: res.status, body: await res.text() };
  };
  const { tokens } = await connect(e);
  assert.equal((await revoke({ token: "svc_rt_nothing", client_id: e.clientId })).status, 200);
  const other = await (await e.app.request("/oauth/register", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ redirect_uris: [REDIRECT] }),
  })).json();
  const foreign = await revoke({ token: tokens.refresh_token, client_id: other.client_id });
  assert.equal(foreign.status, 400);
  assert.equal((await revoke({ token: tokens.refresh_token })).status, 401);
  assert.equal((await revoke({ token: tokens.refresh_token, client_id: e.clientId })).status, 200);
  const r = await tokenRequest(e.app, {
    grant_type: "refresh_token",
    refresh_token: tokens.refresh_token,
    client_id: e.clientId,
  });
  assert.deepEqual([r.status, r.body.error], [400, "invalid_grant"]);
  e.deps.kv.close();
});

Deno.test("oauth: a metadata-document client connects with its URL as client_id; the page names the document's host", async () => {
  const e = await oauthWorld();
  const id = "https://assistant.example/client.json";
  (e.deps.dns as FakeDns).a.set("assistant.example", ["93.184.216.34"]);
  let fetched = 0;
  e.app.ctx.oauth.documents = new MetadataDocuments({
    ...e.deps,
    fetch: (() => {
      fetched++;
      return Promise.resolve(
        Response.json({ client_id: id, client_name: "Doc Assistant", redirect_uris: [REDIRECT] }),
      );
    }) as typeof fetch,
  });
  const { verifier, challenge } = await pkce();
  const path = await startAuthorization(
    e.app,
    authorizeUrl({ client_id: id, redirect_uri: REDIRECT, code_challenge: challenge }),
  );
  const html = await (await e.app.request(path, { headers: e.people.as("ann") })).text();
  assert.ok(html.includes("Doc Assistant") && html.includes("identified by assistant.example"));
  const ok = await decide(e, path, "ann", [["decision", "approve"], ["organization", e.beta]]);
  const code = new URL(ok.headers.get("location")!).searchParams.get("code")!;
  const t = await tokenRequest(e.app, {
    grant_type: "authorization_code",
    code,
    code_verifier: verifier,
    client_id: id,
  });
  assert.equal(t.status, 200);
  assert.equal(fetched, 1, "the document is cached between the authorization and the token request");
  e.deps.kv.close();
});
