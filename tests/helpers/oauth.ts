/**
 * OAuth test helpers: people (a stand-in for the app's accounts, signed in by a test cookie), PKCE pairs,
 * and the consent walk (authorize → consent page → Allow) through app.request.
 */
import assert from "node:assert/strict";
import type { Membership, People, Person } from "../../lib/oauth/people.ts";
import { s256 } from "../../lib/oauth/secrets.ts";
import { adminCall, type Requester } from "./tenant.ts";
import { createApp } from "../../app.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "./deps.ts";

export class TestPeople implements People {
  people = new Map<string, { person: Person; memberships: Membership[]; signedOutAt: number | null }>();

  add(id: string, memberships: Membership[]): Person {
    const person = { id, email: `${id}@example.test` };
    this.people.set(id, { person, memberships, signedOutAt: null });
    return person;
  }
  leave(id: string, org: string) {
    const p = this.people.get(id)!;
    p.memberships = p.memberships.filter((m) => m.org !== org);
  }
  signOutEverywhere(id: string, at: number) {
    this.people.get(id)!.signedOutAt = at;
  }
  signedIn(req: Request) {
    const m = /(?:^|;\s*)test_person=([^;]+)/.exec(req.headers.get("cookie") ?? "");
    return Promise.resolve(m ? this.people.get(m[1])?.person ?? null : null);
  }
  memberships(userId: string) {
    return Promise.resolve(this.people.get(userId)?.memberships ?? []);
  }
  signedOutEverywhereAt(userId: string) {
    return Promise.resolve(this.people.get(userId)?.signedOutAt ?? null);
  }
  signInPath(returnTo: string) {
    return `/app/sign-in?next=${encodeURIComponent(returnTo)}`;
  }
}

export const asPerson = (id: string) => ({ cookie: `test_person=${id}` });

export async function pkce() {
  const verifier = crypto.randomUUID() + crypto.randomUUID(); // 72 characters
  return { verifier, challenge: await s256(verifier) };
}

export const BASE = "http://localhost";
export const RESOURCE = `${BASE}/mcp`;

export function authorizeUrl(p: Record<string, string | undefined>): string {
  const u = new URL(`${BASE}/oauth/authorize`);
  const all: Record<string, string | undefined> = {
    response_type: "code",
    code_challenge_method: "S256",
    resource: RESOURCE,
    scope: "read",
    state: "st-123",
    ...p,
  };
  for (const [k, v] of Object.entries(all)) if (v !== undefined) u.searchParams.set(k, v);
  return u.toString();
}

/** GET /oauth/authorize → the consent page's path (asserts the hand-over). */
export async function startAuthorization(app: Requester, url: string): Promise<string> {
  const res = await app.request(url);
  assert.equal(res.status, 303, await res.clone().text());
  const to = res.headers.get("location")!;
  assert.match(to, /^\/app\/connect\/pa_/);
  return to;
}

export async function decide(
  app: Requester,
  path: string,
  person: string,
  fields: [string, string][],
): Promise<Response> {
  return await app.request(path, {
    method: "POST",
    headers: { ...asPerson(person), origin: BASE, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  });
}

/** The whole consent walk: authorize, open the page as `person`, Allow with these organizations. */
export async function approve(
  app: Requester,
  url: string,
  person: string,
  orgs: string[],
  env = "production",
): Promise<URL> {
  const path = await startAuthorization(app, url);
  const page = await app.request(path, { headers: asPerson(person) });
  assert.equal(page.status, 200);
  await page.text();
  const res = await decide(app, path, person, [
    ["decision", "approve"],
    ["environment", env],
    ...orgs.map((o) => ["organization", o] as [string, string]),
  ]);
  assert.equal(res.status, 303, await res.clone().text());
  return new URL(res.headers.get("location")!);
}

export async function tokenRequest(
  app: Requester,
  fields: Record<string, string>,
  headers: HeadersInit = {},
) {
  const res = await app.request("/oauth/token", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

export const REDIRECT = "http://127.0.0.1:7777/callback";

/** An app with two organizations (Acme on free, Beta on enterprise), two people and a registered client. */
export async function oauthWorld() {
  const deps = await testDeps();
  const app = createApp(deps);
  const people = new TestPeople();
  app.ctx.oauth.people = people;
  const acme = await adminCall(app, TEST_ADMIN_TOKEN, "POST", "/orgs", { name: "Acme", plan: "free" });
  const beta = await adminCall(app, TEST_ADMIN_TOKEN, "POST", "/orgs", { name: "Beta", plan: "enterprise" });
  people.add("ann", [{ org: acme.id, role: "member" }, { org: beta.id, role: "owner" }]);
  people.add("bob", [{ org: acme.id, role: "admin" }]);
  const reg = await app.request("/oauth/register", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_name: "Test Assistant", redirect_uris: [REDIRECT] }),
  });
  assert.equal(reg.status, 201);
  const client = await reg.json();
  return {
    deps,
    app,
    people,
    acme: acme.id as string,
    beta: beta.id as string,
    clientId: client.client_id as string,
  };
}

export type World = Awaited<ReturnType<typeof oauthWorld>>;

/** A person connects the world's client to these organizations; returns the code and the tokens. */
export async function connect(w: World, person = "ann", orgs = [w.acme], env = "production") {
  const { verifier, challenge } = await pkce();
  const back = await approve(
    w.app,
    authorizeUrl({ client_id: w.clientId, redirect_uri: REDIRECT, code_challenge: challenge }),
    person,
    orgs,
    env,
  );
  const code = back.searchParams.get("code")!;
  const t = await tokenRequest(w.app, {
    grant_type: "authorization_code",
    code,
    code_verifier: verifier,
    client_id: w.clientId,
    redirect_uri: REDIRECT,
    resource: RESOURCE,
  });
  assert.equal(t.status, 200, JSON.stringify(t.body));
  return { back, code, verifier, tokens: t.body };
}
