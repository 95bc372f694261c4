/**
 * OAuth test helpers: real accounts (users, memberships and sessions in KV, signed in with real cookies), PKCE
 * pairs, and the consent walk (authorize → consent page → Allow, with the session's CSRF token) through
 * app.request.
 */
import assert from "node:assert/strict";
import { s256 } from "../../lib/oauth/secrets.ts";
import { addMember, removeMember } from "../../lib/people/members.ts";
import { hashPassword, MIN_PASSWORD_COST } from "../../lib/people/passwords.ts";
import type { Role, User } from "../../lib/people/records.ts";
import { createSession, SESSION_COOKIES } from "../../lib/people/sessions.ts";
import { keys } from "../../lib/store/keys.ts";
import { adminCall, type Requester } from "./tenant.ts";
import { AppClient } from "./app_client.ts";
import { type App, createApp } from "../../app.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "./deps.ts";

export const PASSWORD = "correct horse battery staple";
let passwordHash: Promise<string> | undefined;

/** People of a test world by short name ("ann" is ann@example.test): each a real account with a browser. */
export class Accounts {
  #clients = new Map<string, AppClient>();
  #ids = new Map<string, string>();
  constructor(private app: App) {}

  static email = (name: string) => `${name}@example.test`;

  /**
   * Makes `name` a member of an organization: a real account (the first time; its password hash computed
   * once per test module, scrypt being slow on purpose) signed in with a real session, and a membership.
   * Invitations and sign-in pages have their own tests (tests/routes/app).
   */
  async join(name: string, org: string, role: Role): Promise<void> {
    const { kv, clock } = this.app.ctx.deps;
    if (!this.#clients.has(name)) {
      const user: User = {
        id: `usr_${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`,
        email: Accounts.email(name),
        password_hash: await (passwordHash ??= hashPassword(PASSWORD, MIN_PASSWORD_COST)),
        created_at: new Date(clock.now()).toISOString(),
        sessions_valid_after: 0,
      };
      const made = await kv.atomic().check({ key: keys.userByEmail(user.email), versionstamp: null })
        .set(keys.userByEmail(user.email), user.id).set(keys.user(user.id), user).commit();
      assert.ok(made.ok);
      const client = new AppClient(this.app);
      const session = await createSession(kv, clock, user.id);
      client.cookies.set(SESSION_COOKIES[1], session.token);
      this.#clients.set(name, client);
      this.#ids.set(name, user.id);
    }
    await addMember(kv, clock, org, this.id(name), role);
    this.app.ctx.people.invalidate();
    await this.client(name).get("/app/account"); // a page of the session: its CSRF token
  }

  /** The person's browser: their session cookie and the CSRF token of the last page they saw. */
  client(name: string): AppClient {
    const c = this.#clients.get(name);
    if (!c) throw new Error(`no account named ${name}`);
    return c;
  }
  id(name: string): string {
    return this.#ids.get(name)!;
  }
  /** Request headers with the person's session cookie. */
  as(name: string): { cookie: string } {
    return { cookie: [...this.client(name).cookies].map(([k, v]) => `${k}=${v}`).join("; ") };
  }
  /** The person's membership ends (as when an owner removes them or they leave). */
  async leave(name: string, org: string): Promise<void> {
    await removeMember(this.app.ctx.deps.kv, org, this.id(name));
    this.app.ctx.people.invalidate();
  }
  /** The person presses "Sign out everywhere" in the app. */
  async signOutEverywhere(name: string): Promise<void> {
    const c = this.client(name);
    await c.get("/app/account");
    const res = await c.post("/app/sign-out-everywhere", {});
    assert.equal(res.status, 303, res.html);
    assert.equal(c.cookies.size, 0);
  }
  async signIn(name: string): Promise<void> {
    const c = this.client(name);
    const res = await c.post("/app/sign-in", { email: Accounts.email(name), password: PASSWORD }, {
      csrf: null,
    });
    assert.equal(res.status, 303, res.html);
  }
}

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

/** The person posts the consent form from their browser (session cookie, Origin and CSRF token). */
export async function decide(
  w: { people: Accounts },
  path: string,
  person: string,
  fields: [string, string][],
): Promise<Response> {
  const page = await w.people.client(person).post(path, fields);
  return new Response(page.html, { status: page.status, headers: page.headers });
}

/** The whole consent walk: authorize, open the page as `person`, Allow with these organizations. */
export async function approve(
  w: { app: Requester; people: Accounts },
  url: string,
  person: string,
  orgs: string[],
  env = "production",
): Promise<URL> {
  const path = await startAuthorization(w.app, url);
  const page = await w.people.client(person).get(path);
  assert.equal(page.status, 200, page.html);
  const res = await decide(w, path, person, [
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

/**
 * An app with two organizations (Acme on free, Beta on enterprise) and real accounts: Ann (member of Acme,
 * owner of Beta), Bob (admin of Acme) and Olga (Beta's other owner, so Ann may leave it); and a registered
 * client.
 */
export async function oauthWorld() {
  const deps = await testDeps();
  const app = createApp(deps);
  const acme = await adminCall(app, TEST_ADMIN_TOKEN, "POST", "/orgs", { name: "Acme", plan: "free" });
  const beta = await adminCall(app, TEST_ADMIN_TOKEN, "POST", "/orgs", { name: "Beta", plan: "enterprise" });
  const people = new Accounts(app);
  await people.join("ann", acme.id, "member");
  await people.join("ann", beta.id, "owner");
  await people.join("bob", acme.id, "admin");
  await people.join("olga", beta.id, "owner");
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
    w,
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
