/**
 * The authorization server through an independent OAuth client (oauth4webapi): discovery, registration,
 * PKCE, iss checking and its error handling see the service the way a third-party client does.
 */
import assert from "node:assert/strict";
import * as oauth from "oauth4webapi";
import { approve, BASE, decide, oauthWorld, RESOURCE, startAuthorization } from "../helpers/oauth.ts";

type App = Awaited<ReturnType<typeof oauthWorld>>["app"];

const CALLBACK = "http://127.0.0.1:8123/cb";

async function independentClient(app: App) {
  const opts = {
    [oauth.customFetch]: (url: string, init: RequestInit) =>
      Promise.resolve(app.fetch(new Request(url, init))),
    [oauth.allowInsecureRequests]: true,
  };
  const issuer = new URL(BASE);
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, opts));
  const client = await oauth.processDynamicClientRegistrationResponse(
    await oauth.dynamicClientRegistrationRequest(as, {
      client_name: "Independent client",
      redirect_uris: [CALLBACK],
      token_endpoint_auth_method: "none",
    }, opts),
  );
  const auth = oauth.None();
  const start = async (over: Record<string, string> = {}) => {
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const u = new URL(as.authorization_endpoint!);
    const params: Record<string, string> = {
      client_id: client.client_id,
      redirect_uri: CALLBACK,
      response_type: "code",
      scope: "read",
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
      resource: RESOURCE,
      state,
      ...over,
    };
    for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
    return { url: u.toString(), verifier, state };
  };
  const exchange = async (
    callback: URL,
    state: string,
    verifier: string,
    extra: Record<string, string> = {},
  ) => {
    const params = oauth.validateAuthResponse(as, client, callback, state);
    const res = await oauth.authorizationCodeGrantRequest(as, client, auth, params, CALLBACK, verifier, {
      ...opts,
      additionalParameters: { resource: RESOURCE, ...extra },
    });
    return await oauth.processAuthorizationCodeResponse(as, client, res);
  };
  const refresh = async (token: string) =>
    await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, auth, token, {
        ...opts,
        additionalParameters: { resource: RESOURCE },
      }),
    );
  const revoke = async (token: string) =>
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, auth, token, opts));
  return { as, client, start, exchange, refresh, revoke };
}

async function refusedWith(p: Promise<unknown>, error: string): Promise<string> {
  try {
    await p;
  } catch (err) {
    if (err instanceof oauth.ResponseBodyError || err instanceof oauth.AuthorizationResponseError) {
      assert.equal(err.error, error, err.error_description);
      return err.error_description ?? "";
    }
    throw err;
  }
  throw new Error(`expected ${error}`);
}

Deno.test("independent client: discovery, registration, PKCE code flow with iss check, refresh and revocation", async () => {
  const w = await oauthWorld();
  const c = await independentClient(w.app);
  assert.equal(c.as.issuer, BASE);
  assert.equal(c.as.authorization_response_iss_parameter_supported, true);
  const { url, verifier, state } = await c.start();
  const back = await approve(w, url, "ann", [w.acme]);
  const tokens = await c.exchange(back, state, verifier);
  assert.equal(tokens.token_type, "bearer");
  assert.equal(tokens.expires_in, 3600);
  const next = await c.refresh(tokens.refresh_token!);
  assert.notEqual(next.refresh_token, tokens.refresh_token);
  await c.revoke(next.refresh_token!);
  await refusedWith(c.refresh(next.refresh_token!), "invalid_grant");
  w.deps.kv.close();
});

Deno.test("independent client: a callback whose iss is not the issuer is rejected by the client", async () => {
  const w = await oauthWorld();
  const c = await independentClient(w.app);
  const { url, state } = await c.start();
  const back = await approve(w, url, "ann", [w.acme]);
  back.searchParams.set("iss", "https://mix-up.example");
  assert.throws(
    () => oauth.validateAuthResponse(c.as, c.client, back, state),
    oauth.OperationProcessingError,
  );
  w.deps.kv.close();
});

Deno.test("independent client: wrong resource, PKCE mismatch, reused code, redirect mismatch, denied consent", async () => {
  const w = await oauthWorld();
  const c = await independentClient(w.app);
  // Wrong resource at the authorization endpoint: an error redirect the client reads as invalid_target.
  const wrong = await c.start({ resource: "https://elsewhere.example/mcp" });
  const res = await w.app.request(wrong.url);
  assert.equal(res.status, 302);
  const desc = await refusedWith(
    Promise.resolve().then(() =>
      oauth.validateAuthResponse(c.as, c.client, new URL(res.headers.get("location")!), wrong.state)
    ),
    "invalid_target",
  );
  assert.match(desc, /resource must be http:\/\/localhost\/mcp/);
  // PKCE mismatch at the token endpoint.
  const a = await c.start();
  const backA = await approve(w, a.url, "ann", [w.acme]);
  await refusedWith(c.exchange(backA, a.state, oauth.generateRandomCodeVerifier()), "invalid_grant");
  // Wrong resource at the token endpoint.
  await refusedWith(
    c.exchange(backA, a.state, a.verifier, { resource: "https://elsewhere.example/mcp" }),
    "invalid_target",
  );
  // The right exchange, then the same code again: refused, and the connection it made is revoked.
  const tokens = await c.exchange(backA, a.state, a.verifier);
  await refusedWith(c.exchange(backA, a.state, a.verifier), "invalid_grant");
  assert.match(await refusedWith(c.refresh(tokens.refresh_token!), "invalid_grant"), /code reused/);
  // A redirect URI the client did not register: the person sees an error page; nothing goes to that address.
  const evil = await c.start({ redirect_uri: "https://evil.example/cb" });
  const page = await w.app.request(evil.url);
  assert.equal(page.status, 400);
  assert.equal(page.headers.get("location"), null);
  // Denied consent.
  const d = await c.start();
  const path = await startAuthorization(w.app, d.url);
  await (await w.app.request(path, { headers: { cookie: "test_person=ann" } })).text();
  const denied = await decide(w, path, "ann", [["decision", "deny"]]);
  await refusedWith(
    Promise.resolve().then(() =>
      oauth.validateAuthResponse(c.as, c.client, new URL(denied.headers.get("location")!), d.state)
    ),
    "access_denied",
  );
  w.deps.kv.close();
});

Deno.test("independent client: a reused refresh token revokes the grant", async () => {
  const w = await oauthWorld();
  const c = await independentClient(w.app);
  const { url, verifier, state } = await c.start();
  const tokens = await c.exchange(await approve(w, url, "ann", [w.acme]), state, verifier);
  const rotated = await c.refresh(tokens.refresh_token!);
  assert.match(await refusedWith(c.refresh(tokens.refresh_token!), "invalid_grant"), /already used/);
  assert.match(await refusedWith(c.refresh(rotated.refresh_token!), "invalid_grant"), /refresh token reused/);
  w.deps.kv.close();
});
