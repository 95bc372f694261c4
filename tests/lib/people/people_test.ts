import assert from "node:assert/strict";
import { testDeps } from "../../helpers/deps.ts";
import { createOrg } from "../../../lib/tenancy/admin.ts";
import { createUser, findUserByEmail, getUser } from "../../../lib/people/users.ts";
import {
  addMember,
  changeRole,
  listMembers,
  removeFromOrganization,
  removeMember,
} from "../../../lib/people/members.ts";
import { acceptInvitation, createInvitation, findInvitation } from "../../../lib/people/invitations.ts";
import { completeReset, createReset, findReset, RESET_MS } from "../../../lib/people/resets.ts";
import {
  ABSOLUTE_MS,
  createSession,
  endAllSessions,
  IDLE_MS,
  resumeSession,
} from "../../../lib/people/sessions.ts";
import { MIN_PASSWORD_COST, verifyPassword } from "../../../lib/people/passwords.ts";
import { DAY } from "../../../lib/clock.ts";
import { HttpError } from "../../../lib/errors.ts";

const PW = "correct horse battery";
/** The least hashing cost (production's is tested in passwords_test.ts): these tests make many accounts. */
const COST = MIN_PASSWORD_COST;

async function world() {
  const deps = await testDeps();
  const org = await createOrg(deps, { name: "Acme" });
  return { ...deps, deps, org: org.id };
}

const status = (e: unknown) => (e as HttpError).status;

Deno.test("people: an email is one account whatever its letter case", async () => {
  const { kv, clock } = await world();
  const ann = await createUser(kv, clock, "  Ann@Example.COM ", PW, COST);
  assert.equal(ann.email, "ann@example.com");
  assert.equal((await findUserByEmail(kv, "ANN@example.com"))?.id, ann.id);
  await assert.rejects(() => createUser(kv, clock, "ann@EXAMPLE.com", PW, COST), (e) => status(e) === 422);
  await assert.rejects(() => createUser(kv, clock, "not-an-email", PW, COST), /email: must be an email/);
  await assert.rejects(() => createUser(kv, clock, "bob@example.com", "short"), /password: must be at least/);
  assert.ok(!JSON.stringify(ann).includes(PW), "the record holds a hash, not the password");
  kv.close();
});

Deno.test("people: the last owner can neither step down nor leave; with two owners one may", async () => {
  const { kv, clock, org } = await world();
  const a = await createUser(kv, clock, "a@example.com", PW, COST);
  const b = await createUser(kv, clock, "b@example.com", PW, COST);
  await addMember(kv, clock, org, a.id, "owner");
  await addMember(kv, clock, org, b.id, "member");
  await assert.rejects(() => changeRole(kv, org, a.id, "admin"), /last owner cannot step down/);
  await assert.rejects(() => removeMember(kv, org, a.id), /last owner cannot leave/);
  await changeRole(kv, org, b.id, "owner");
  // Two owners demote each other at the same moment: exactly one succeeds.
  const results = await Promise.allSettled([
    changeRole(kv, org, a.id, "member"),
    changeRole(kv, org, b.id, "member"),
  ]);
  assert.equal(results.filter((r) => r.status === "fulfilled").length, 1);
  const owners = (await listMembers(kv, org)).filter((m) => m.role === "owner");
  assert.equal(owners.length, 1);
  kv.close();
});

Deno.test("people: an invitation works once, and not after 7 days", async () => {
  const { kv, clock, org } = await world();
  const u = await createUser(kv, clock, "c@example.com", PW, COST);
  const { token } = await createInvitation(kv, clock, {
    org,
    email: "C@example.com",
    role: "admin",
    invitedBy: null,
  });
  const m = await acceptInvitation(kv, clock, token, u.id);
  assert.equal(m.role, "admin");
  assert.deepEqual(await findInvitation(kv, clock, token), { ok: false, problem: "used" });
  await assert.rejects(() => acceptInvitation(kv, clock, token, u.id), /already used/);

  const late = await createInvitation(kv, clock, {
    org,
    email: "d@example.com",
    role: "member",
    invitedBy: null,
  });
  clock.advance(7 * DAY - 1);
  assert.equal((await findInvitation(kv, clock, late.token)).ok, true);
  clock.advance(1);
  assert.deepEqual(await findInvitation(kv, clock, late.token), { ok: false, problem: "expired" });
  await assert.rejects(() => acceptInvitation(kv, clock, late.token, u.id), /expired/);
  assert.deepEqual(await findInvitation(kv, clock, "x".repeat(43)), { ok: false, problem: "unknown" });
  kv.close();
});

/** Two accounts and one invitation link for a race between them. */
async function oneInvitationTwoUsers() {
  const w = await world();
  const { kv, clock, org } = w;
  const u = await createUser(kv, clock, "e@example.com", PW, COST);
  const v = await createUser(kv, clock, "f@example.com", PW, COST);
  const { token } = await createInvitation(kv, clock, {
    org,
    email: "e@example.com",
    role: "member",
    invitedBy: null,
  });
  return { ...w, u, v, token };
}

Deno.test("people: one invitation accepted twice at the same moment joins once", async () => {
  const { kv, clock, org, u, v, token } = await oneInvitationTwoUsers();
  const r = await Promise.allSettled([
    acceptInvitation(kv, clock, token, u.id),
    acceptInvitation(kv, clock, token, v.id),
  ]);
  assert.equal(r.filter((x) => x.status === "fulfilled").length, 1);
  assert.equal((await listMembers(kv, org)).length, 1);
  kv.close();
});

Deno.test("people: a link judged unused and then used by another accept before its commit joins once", async () => {
  // one accept reads the invitation, then the other accept runs whole, then the first goes on: it must judge
  // the link from the entry its commit checks, not from its earlier read (which said unused)
  const { kv, clock, org, u, v, token } = await oneInvitationTwoUsers();
  let other: Promise<unknown> = Promise.resolve();
  let reads = 0;
  const paused = new Proxy(kv, {
    get(target, prop) {
      if (prop === "get") {
        return async (key: Deno.KvKey) => {
          if (key[0] === "invite" && ++reads === 2) await other.catch(() => {});
          return await target.get(key);
        };
      }
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const first = acceptInvitation(paused, clock, token, u.id);
  other = acceptInvitation(kv, clock, token, v.id);
  const r = await Promise.allSettled([first, other]);
  assert.equal(r.filter((x) => x.status === "fulfilled").length, 1);
  assert.equal((await listMembers(kv, org)).length, 1);
  kv.close();
});

Deno.test("people: a reset link sets the password once, within the hour, and ends every session", async () => {
  const { kv, clock } = await world();
  const u = await createUser(kv, clock, "g@example.com", PW, COST);
  const s = await createSession(kv, clock, u.id);
  assert.equal(await createReset(kv, clock, "nobody@example.com"), null);
  const made = (await createReset(kv, clock, "G@EXAMPLE.com"))!;
  await assert.rejects(() => completeReset(kv, clock, made.token, "short"), /password: must be at least/);
  await completeReset(kv, clock, made.token, "a brand new passphrase", COST);
  assert.equal(
    await verifyPassword("a brand new passphrase", (await getUser(kv, u.id))!.password_hash),
    true,
  );
  assert.equal(
    await resumeSession(kv, clock, s.token, (id) => getUser(kv, id)),
    null,
    "signed out everywhere",
  );
  await assert.rejects(() => completeReset(kv, clock, made.token, "yet another passphrase"), /not valid/);

  const old = (await createReset(kv, clock, "g@example.com"))!;
  clock.advance(RESET_MS);
  assert.deepEqual(await findReset(kv, clock, old.token), { ok: false, problem: "expired" });
  kv.close();
});

Deno.test("people: sessions end when idle for a day, 14 days after sign-in, and everywhere at once", async () => {
  const { kv, clock } = await world();
  const u = await createUser(kv, clock, "h@example.com", PW, COST);
  const userOf = (id: string) => getUser(kv, id);
  const s = await createSession(kv, clock, u.id);
  clock.advance(IDLE_MS - 1000);
  assert.ok(await resumeSession(kv, clock, s.token, userOf), "used within the idle time");
  clock.advance(IDLE_MS - 1000);
  assert.ok(await resumeSession(kv, clock, s.token, userOf), "each use refreshes the idle clock");
  clock.advance(IDLE_MS);
  assert.equal(await resumeSession(kv, clock, s.token, userOf), null, "idle too long");

  const t = await createSession(kv, clock, u.id);
  for (let used = 0; used < ABSOLUTE_MS - IDLE_MS; used += IDLE_MS / 2) {
    clock.advance(IDLE_MS / 2);
    assert.ok(await resumeSession(kv, clock, t.token, userOf));
  }
  clock.advance(IDLE_MS);
  assert.equal(await resumeSession(kv, clock, t.token, userOf), null, "absolute expiry, however busy");

  const one = await createSession(kv, clock, u.id);
  const two = await createSession(kv, clock, u.id);
  clock.advance(1);
  await endAllSessions(kv, clock, u.id);
  assert.equal(await resumeSession(kv, clock, one.token, userOf), null);
  assert.equal(await resumeSession(kv, clock, two.token, userOf), null);
  assert.equal(
    (await getUser(kv, u.id))!.sessions_valid_after,
    clock.now(),
    "the stamp other credentials check",
  );
  const after = await createSession(kv, clock, u.id);
  assert.ok(await resumeSession(kv, clock, after.token, userOf), "a new sign-in works");
  kv.close();
});

Deno.test("people: removing someone from their last organization signs them out everywhere", async () => {
  const { kv, clock, org, deps } = await world();
  const other = await createOrg(deps, { name: "Other" });
  const a = await createUser(kv, clock, "owner@example.com", PW, COST);
  const m = await createUser(kv, clock, "m@example.com", PW, COST);
  await addMember(kv, clock, org, a.id, "owner");
  await addMember(kv, clock, other.id, a.id, "owner");
  await addMember(kv, clock, org, m.id, "member");
  await addMember(kv, clock, other.id, m.id, "member");
  const s = await createSession(kv, clock, m.id);
  const userOf = (id: string) => getUser(kv, id);
  await removeFromOrganization(kv, clock, org, m.id);
  assert.ok(await resumeSession(kv, clock, s.token, userOf), "still in another organization");
  await removeFromOrganization(kv, clock, other.id, m.id);
  assert.equal(await resumeSession(kv, clock, s.token, userOf), null);
  kv.close();
});
