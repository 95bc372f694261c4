import assert from "node:assert/strict";
import { connect, oauthWorld, RESOURCE, tokenRequest } from "../../helpers/oauth.ts";
import {
  checkGrant,
  disconnectFromOrg,
  disconnectOwn,
  dropOrgs,
  endGrant,
  markUsed,
  orgConnections,
  userConnections,
} from "../../../lib/oauth/grants.ts";
import { checkAccessToken } from "../../../lib/oauth/tokens.ts";
import { endpoints } from "../../../lib/oauth/urls.ts";
import { CHECK_CACHE_MS } from "../../../lib/oauth/state.ts";
import { ACCESS_TTL_MS } from "../../../lib/oauth/types.ts";

const ep = endpoints({ publicUrl: null }, RESOURCE);

Deno.test("grants: an organization the person left drops out for good; leaving the last ends the grant", async () => {
  const w = await oauthWorld();
  const { tokens } = await connect(w, "ann", [w.acme, w.beta]);
  const ctx = w.app.ctx;
  let a = await checkAccessToken(ctx, tokens.access_token, ep);
  assert.deepEqual(a.grant!.orgs.sort(), [w.acme, w.beta].sort());
  await w.people.leave("ann", w.acme);
  a = await checkAccessToken(ctx, tokens.access_token, ep);
  assert.equal(a.grant!.orgs.length, 2, "a check is cached for seconds");
  w.deps.clock.advance(CHECK_CACHE_MS);
  a = await checkAccessToken(ctx, tokens.access_token, ep);
  assert.deepEqual(a.grant!.orgs, [w.beta]);
  // Rejoining does not bring it back without a new approval.
  await w.people.join("ann", w.acme, "member");
  w.deps.clock.advance(CHECK_CACHE_MS);
  assert.deepEqual((await checkAccessToken(ctx, tokens.access_token, ep)).grant!.orgs, [w.beta]);
  await w.people.leave("ann", w.beta);
  await w.people.leave("ann", w.acme);
  w.deps.clock.advance(CHECK_CACHE_MS);
  a = await checkAccessToken(ctx, tokens.access_token, ep);
  assert.equal(a.ok, false);
  assert.match(a.reason, /no longer a member of any granted organization/);
  assert.deepEqual(await userConnections(ctx, w.people.id("ann")), []);
  w.deps.kv.close();
});

Deno.test("grants: access tokens expire after an hour and are refused for another resource", async () => {
  const w = await oauthWorld();
  const { tokens } = await connect(w, "bob");
  const ctx = w.app.ctx;
  assert.ok((await checkAccessToken(ctx, tokens.access_token, ep)).ok);
  const other = endpoints({ publicUrl: "https://elsewhere.example" }, RESOURCE);
  const wrong = await checkAccessToken(ctx, tokens.access_token, other);
  assert.equal(wrong.ok, false);
  assert.match(wrong.reason, /issued for http:\/\/localhost\/mcp, not https:\/\/elsewhere.example\/mcp/);
  w.deps.clock.advance(ACCESS_TTL_MS);
  const late = await checkAccessToken(ctx, tokens.access_token, ep);
  assert.equal(late.ok, false);
  assert.match(late.reason, /unknown or expired/);
  assert.equal((await checkAccessToken(ctx, "svc_at_madeup", ep)).ok, false);
  // The refresh token still works after the access token expired.
  const r = await tokenRequest(w.app, {
    grant_type: "refresh_token",
    refresh_token: tokens.refresh_token,
    client_id: w.clientId,
  });
  assert.equal(r.status, 200);
  assert.ok((await checkAccessToken(ctx, r.body.access_token, ep)).ok);
  w.deps.kv.close();
});

Deno.test("grants: listed per person and per organization with last use; an owner's disconnect drops only their org", async () => {
  const w = await oauthWorld();
  const ctx = w.app.ctx;
  const one = await connect(w, "ann", [w.acme, w.beta]);
  w.deps.clock.advance(1000);
  await connect(w, "bob", [w.acme], "staging");
  const anns = await userConnections(ctx, w.people.id("ann"));
  assert.equal(anns.length, 1);
  assert.equal(anns[0].client_name, "Test Assistant");
  assert.equal(anns[0].redirect_host, "127.0.0.1:7777");
  assert.equal(anns[0].last_used_at, null);
  await checkAccessToken(ctx, one.tokens.access_token, ep);
  await markUsed(ctx, anns[0].id);
  assert.equal((await userConnections(ctx, w.people.id("ann")))[0].last_used_at, w.deps.clock.now());
  const acme = await orgConnections(ctx, w.acme);
  assert.deepEqual(acme.map((c) => c.user), [w.people.id("bob"), w.people.id("ann")]);
  assert.equal(acme[0].env, "staging");
  assert.deepEqual((await orgConnections(ctx, w.beta)).map((c) => c.user), [w.people.id("ann")]);
  await dropOrgs(ctx, anns[0].id, [w.beta], "disconnected by an owner");
  assert.deepEqual(await orgConnections(ctx, w.beta), []);
  assert.deepEqual((await userConnections(ctx, w.people.id("ann")))[0].orgs, [w.acme]);
  assert.ok((await checkGrant(ctx, anns[0].id)).ok);
  await endGrant(ctx, anns[0].id, "disconnected");
  const gone = await checkAccessToken(ctx, one.tokens.access_token, ep);
  assert.equal(gone.ok, false);
  assert.match(gone.reason, /ended \(disconnected\)/);
  assert.deepEqual((await orgConnections(ctx, w.acme)).map((c) => c.user), [w.people.id("bob")]);
  w.deps.kv.close();
});

Deno.test("grants: a person disconnects only their own; an owner's disconnect removes only their organization", async () => {
  const w = await oauthWorld();
  const ctx = w.app.ctx;
  const ann = await connect(w, "ann", [w.acme, w.beta]);
  const bob = await connect(w, "bob", [w.acme]);
  const annId = (await userConnections(ctx, w.people.id("ann")))[0].id;
  const bobId = (await userConnections(ctx, w.people.id("bob")))[0].id;
  assert.equal(await disconnectOwn(ctx, w.people.id("bob"), annId), false, "not bob's");
  assert.ok((await checkAccessToken(ctx, ann.tokens.access_token, ep)).ok);
  assert.equal(await disconnectFromOrg(ctx, w.beta, bobId), false, "bob's does not read Beta");
  assert.equal(await disconnectFromOrg(ctx, w.acme, annId), true);
  assert.deepEqual((await checkAccessToken(ctx, ann.tokens.access_token, ep)).grant!.orgs, [w.beta]);
  assert.equal(await disconnectOwn(ctx, w.people.id("bob"), bobId), true);
  const ended = await checkAccessToken(ctx, bob.tokens.access_token, ep);
  assert.equal(ended.ok, false);
  assert.equal(await disconnectOwn(ctx, w.people.id("bob"), bobId), false, "already ended");
  w.deps.kv.close();
});
