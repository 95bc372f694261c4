/**
 * The app's accounts behind assistant sign-in: the consent page sends a signed-out person through the app's
 * sign-in and back; the connection acts as the account; signing out everywhere or leaving ends it.
 */
import assert from "node:assert/strict";
import { AppClient } from "../../helpers/app_client.ts";
import { orgUrl, PASSWORD, peopleWorld } from "../../helpers/people.ts";
import {
  authorizeUrl,
  pkce,
  REDIRECT,
  RESOURCE,
  startAuthorization,
  tokenRequest,
} from "../../helpers/oauth.ts";

async function connectAs(w: Awaited<ReturnType<typeof peopleWorld>>, client: AppClient, clientId: string) {
  const { verifier, challenge } = await pkce();
  const consent = await startAuthorization(
    w.app,
    authorizeUrl({ client_id: clientId, redirect_uri: REDIRECT, code_challenge: challenge }),
  );
  const page = await client.get(consent);
  assert.equal(page.status, 200, page.html);
  const back = await client.post(consent, {
    decision: "approve",
    environment: "production",
    organization: w.org,
  });
  assert.equal(back.status, 303, back.html);
  const code = new URL(back.location!).searchParams.get("code")!;
  const t = await tokenRequest(w.app, {
    grant_type: "authorization_code",
    code,
    code_verifier: verifier,
    client_id: clientId,
    redirect_uri: REDIRECT,
    resource: RESOURCE,
  });
  assert.equal(t.status, 200, JSON.stringify(t.body));
  return t.body as { refresh_token: string };
}

Deno.test("assistant sign-in with app accounts: sign in on the way, then signing out everywhere or leaving ends the connection", async () => {
  const w = await peopleWorld();
  const owner = await w.join("olga@example.com", "owner");
  await w.join("mia@example.com", "member");
  const reg = await w.app.request("/oauth/register", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_name: "Test Assistant", redirect_uris: [REDIRECT] }),
  });
  const clientId = (await reg.json()).client_id;

  // Signed out: the consent page sends Mia to the app's sign-in and she comes back to it.
  const mia = new AppClient(w.app);
  const { challenge } = await pkce();
  const consent = await startAuthorization(
    w.app,
    authorizeUrl({ client_id: clientId, redirect_uri: REDIRECT, code_challenge: challenge }),
  );
  const first = await mia.get(consent);
  assert.equal(first.location, `/app/sign-in?next=${encodeURIComponent(consent)}`);
  const signedIn = await mia.post("/app/sign-in", {
    email: "mia@example.com",
    password: PASSWORD,
    next: consent,
  });
  assert.equal(signedIn.location, consent);
  assert.match((await mia.get(consent)).html, /Acme/);

  const refresh = (t: { refresh_token: string }) =>
    tokenRequest(w.app, { grant_type: "refresh_token", refresh_token: t.refresh_token, client_id: clientId });
  const tokens = await connectAs(w, mia, clientId);
  const ok = await refresh(tokens);
  assert.equal(ok.status, 200);

  // Mia signs out everywhere: her session and her assistant's connection end.
  w.deps.clock.advance(1000);
  await mia.get("/app/account");
  await mia.submit("/app/sign-out-everywhere", {});
  const ended = await refresh(ok.body);
  assert.equal(ended.status, 400);
  assert.match(ended.body.error_description, /signed out everywhere/);

  // A new connection, then the owner removes Mia: it ends with her membership.
  await mia.post("/app/sign-in", { email: "mia@example.com", password: PASSWORD }, { csrf: null });
  const again = await connectAs(w, mia, clientId);
  const members = (await owner.get(orgUrl(w.org, "settings/members"))).html;
  const miaId =
    members.match(/members\/(usr_[A-Za-z0-9]+)\/remove" class="inline" data-confirm="Remove mia@/)![1];
  // at once, not after the few seconds a grant check is cached: the page says "their access ended at once"
  const fresh = await refresh(again); // the grant's check is now cached as fine
  assert.equal(fresh.status, 200);
  await owner.submit(orgUrl(w.org, `settings/members/${miaId}/remove`), {});
  const gone = await refresh(fresh.body);
  assert.equal(gone.status, 400);
  // the reason is the removal (it said "signed out everywhere", which the removal also does)
  assert.match(gone.body.error_description, /removed from the organization/);
  w.close();
});
