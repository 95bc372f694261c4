import assert from "node:assert/strict";
import { AppClient } from "../../helpers/app_client.ts";
import { PASSWORD, peopleWorld } from "../../helpers/people.ts";
import { createApp } from "../../../app.ts";
import { LIMITS } from "../../../lib/people/abuse.ts";
import { MINUTE } from "../../../lib/clock.ts";

const signIn = (c: AppClient, email: string, password: string) =>
  c.post("/app/sign-in", { email, password, next: "/app" }, { csrf: null });

Deno.test("app sign-in: a wrong password and an unknown email get the same answer; the right one a new session", async () => {
  const w = await peopleWorld();
  const ann = await w.join("ann@example.com", "owner");
  const before = ann.cookies.get("svc_session");
  const c = new AppClient(w.app);
  const wrong = await signIn(c, "ann@example.com", "not the password");
  const unknown = await signIn(c, "nobody@example.com", "not the password");
  assert.equal(wrong.status, 401);
  assert.equal(unknown.status, 401);
  const message = (html: string) => html.match(/role="alert">([^<]+)</)?.[1];
  assert.equal(message(wrong.html), "wrong email or password");
  assert.equal(message(unknown.html), message(wrong.html));
  assert.equal(c.cookies.size, 0);

  const ok = await signIn(ann, "ANN@example.com", PASSWORD);
  assert.equal(ok.status, 303);
  assert.equal(ok.location, "/app");
  const after = ann.cookies.get("svc_session");
  assert.ok(after && after !== before, "rotated at sign-in");
  // The old token no longer works.
  const stale = new AppClient(w.app);
  stale.cookies.set("svc_session", before!);
  assert.equal((await stale.get("/app")).location, "/app/sign-in?next=%2Fapp");
  w.close();
});

Deno.test("app sign-in: the cookie is HttpOnly, SameSite=Lax, under /app; over HTTPS __Host- and Secure", async () => {
  const w = await peopleWorld();
  const c = await w.join("ann@example.com", "owner");
  const page = await c.post("/app/sign-in", { email: "ann@example.com", password: PASSWORD }, { csrf: null });
  const cookie = page.headers.getSetCookie().find((l) => l.startsWith("svc_session="))!;
  assert.match(cookie, /; HttpOnly/);
  assert.match(cookie, /; SameSite=Lax/);
  assert.match(cookie, /; Path=\/app(;|$)/);
  assert.doesNotMatch(cookie, /Secure/);

  const secure = createApp({
    ...w.deps,
    config: { ...w.deps.config, publicUrl: "https://behavior.example.com" },
  });
  const s = new AppClient(secure, "https://behavior.example.com");
  const res = await s.post("/app/sign-in", { email: "ann@example.com", password: PASSWORD }, { csrf: null });
  assert.equal(res.status, 303);
  const host = res.headers.getSetCookie().find((l) => l.startsWith("__Host-svc_session="))!;
  assert.match(host, /; Secure/);
  assert.match(host, /; Path=\/(;|$)/);
  assert.match(host, /; HttpOnly/);
  // Ingest answers never set a cookie.
  const ingest = await w.app.request("/v1/behavior/events", { method: "POST", body: "{}" });
  assert.equal(ingest.headers.getSetCookie().length, 0);
  w.close();
});

Deno.test("app sign-in: attempts are limited per account and per address (429 with Retry-After)", async () => {
  const w = await peopleWorld();
  const c = new AppClient(w.app);
  let last = await signIn(c, "victim@example.com", "guess 0");
  for (let i = 1; i < LIMITS.signInPerAccount; i++) {
    last = await signIn(c, "victim@example.com", `guess ${i}`);
  }
  assert.equal(last.status, 401);
  const limited = await signIn(c, "Victim@Example.com", "guess again");
  assert.equal(limited.status, 429);
  assert.ok(Number(limited.headers.get("retry-after")) >= 1);
  assert.match(limited.html, /too many sign-in attempts for this account/);
  // Other accounts from elsewhere are not affected; after the window the account may try again.
  assert.equal((await signIn(c, "someone@example.com", "guess")).status, 401);
  w.deps.clock.advance(MINUTE);
  assert.equal((await signIn(c, "victim@example.com", "guess")).status, 401);
  w.close();
});

Deno.test("app sign-in: many accounts tried from one address are limited per address", async () => {
  const w = await peopleWorld();
  const from = (hostname: string) => ({
    request: (path: string, init?: RequestInit) => w.app.request(path, init, { remoteAddr: { hostname } }),
  });
  const attacker = new AppClient(from("203.0.113.5"));
  const tries = await Promise.all(
    Array.from(
      { length: LIMITS.signInPerAddress + 1 },
      (_, i) => signIn(attacker, `user${i}@example.com`, "guess"),
    ),
  );
  const statuses = tries.map((p) => p.status).sort();
  assert.equal(statuses.filter((s) => s === 401).length, LIMITS.signInPerAddress);
  assert.equal(statuses.filter((s) => s === 429).length, 1);
  assert.match(tries.find((p) => p.status === 429)!.html, /too many sign-in attempts from here/);
  // Someone else, elsewhere, is not affected.
  assert.equal((await signIn(new AppClient(from("198.51.100.7")), "user0@example.com", "guess")).status, 401);
  w.close();
});

Deno.test("app: a POST without the CSRF token or from another origin is refused, and changes nothing", async () => {
  const w = await peopleWorld();
  const c = await w.join("ann@example.com", "owner");
  const path = `/app/o/${w.org}/settings/touchpoints`;
  await c.get(path);
  const noToken = await c.post(path, { name: "Evil", kind: "ios" }, { csrf: null });
  assert.equal(noToken.status, 403);
  assert.match(noToken.html, /Not allowed/);
  const wrongToken = await c.post(path, { name: "Evil", kind: "ios" }, { csrf: "x".repeat(43) });
  assert.equal(wrongToken.status, 403);
  const foreign = await c.post(path, { name: "Evil", kind: "ios" }, { origin: "https://evil.example" });
  assert.equal(foreign.status, 403);
  const noOrigin = await c.post(path, { name: "Evil", kind: "ios" }, { origin: null });
  assert.equal(noOrigin.status, 403);
  assert.doesNotMatch((await c.get(path)).html, /Evil/);
  const ok = await c.submit(path, { name: "Good app", kind: "ios" });
  assert.match(ok.html, /Good app added/);
  w.close();
});

Deno.test("app: signed out, pages send you to sign in and come back after", async () => {
  const w = await peopleWorld();
  await w.join("ann@example.com", "owner");
  const c = new AppClient(w.app);
  const target = `/app/o/${w.org}/settings/members`;
  const page = await c.get(target);
  assert.equal(page.status, 303);
  assert.equal(page.location, `/app/sign-in?next=${encodeURIComponent(target)}`);
  const form = await c.get(page.location!);
  assert.match(form.html, new RegExp(`name="next" value="${target}"`));
  const done = await c.post("/app/sign-in", { email: "ann@example.com", password: PASSWORD, next: target });
  assert.equal(done.location, target);
  // Never to another site.
  const evil = await c.post("/app/sign-in", {
    email: "ann@example.com",
    password: PASSWORD,
    next: "//evil.example/app",
  });
  assert.equal(evil.location, "/app");
  w.close();
});
