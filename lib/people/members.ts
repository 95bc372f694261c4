/**
 * Memberships, stored both ways (organization → user and user → organization) in one commit. An organization
 * always keeps at least one owner: a change that would leave none is refused, checked against every owner's
 * record in the same commit, so two owners demoting each other at once cannot both succeed.
 */
import type { Clock } from "../clock.ts";
import { conflict, invalid, notFound } from "../errors.ts";
import { keys } from "../store/keys.ts";
import type { Membership, Role, User } from "./records.ts";
import { higherRole } from "./roles.ts";
import { endAllSessions } from "./sessions.ts";

export async function getMembership(kv: Deno.Kv, org: string, userId: string): Promise<Membership | null> {
  return (await kv.get<Membership>(keys.membership(org, userId))).value;
}

/** Adds a user to an organization; a user already in it keeps the higher of the two roles. */
export async function addMember(
  kv: Deno.Kv,
  clock: Clock,
  org: string,
  userId: string,
  role: Role,
): Promise<Membership> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const cur = await kv.get<Membership>(keys.membership(org, userId));
    const m: Membership = cur.value
      ? { ...cur.value, role: higherRole(cur.value.role, role) }
      : { org, user: userId, role, created_at: new Date(clock.now()).toISOString() };
    const res = await kv.atomic().check(cur)
      .set(keys.membership(org, userId), m)
      .set(keys.userOrg(userId, org), m.role)
      .commit();
    if (res.ok) return m;
  }
  throw conflict("the membership changed meanwhile; try again");
}

export interface MemberView {
  user: string;
  email: string;
  role: Role;
  created_at: string;
}

export async function listMembers(kv: Deno.Kv, org: string): Promise<MemberView[]> {
  const out: MemberView[] = [];
  for await (const e of kv.list<Membership>({ prefix: keys.memberships(org) })) {
    const user = (await kv.get<User>(keys.user(e.value.user))).value;
    if (user) {
      out.push({ user: user.id, email: user.email, role: e.value.role, created_at: e.value.created_at });
    }
  }
  return out.sort((a, b) => a.email.localeCompare(b.email));
}

/** The organizations a user belongs to, with the role in each. */
export async function listUserOrgs(kv: Deno.Kv, userId: string): Promise<{ org: string; role: Role }[]> {
  const out: { org: string; role: Role }[] = [];
  for await (const e of kv.list<Role>({ prefix: keys.userOrgs(userId) })) {
    out.push({ org: e.key[2] as string, role: e.value });
  }
  return out;
}

/**
 * Changes a member's role (next: the new role) or removes them (next: null) unless the organization would be
 * left without an owner.
 */
async function changeMembership(kv: Deno.Kv, org: string, userId: string, next: Role | null): Promise<void> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const owners: Deno.KvEntry<Membership>[] = [];
    let target: Deno.KvEntry<Membership> | null = null;
    for await (const e of kv.list<Membership>({ prefix: keys.memberships(org) })) {
      if (e.value.role === "owner") owners.push(e);
      if (e.value.user === userId) target = e;
    }
    if (!target) throw notFound(`no member ${userId} in organization ${org}`);
    if (target.value.role === "owner" && next !== "owner" && owners.length <= 1) {
      throw invalid(
        next === null
          ? "user: the last owner cannot leave or be removed; make another member an owner first"
          : "role: the last owner cannot step down; make another member an owner first",
      );
    }
    const op = kv.atomic();
    for (const o of owners) op.check(o);
    if (target.value.role !== "owner") op.check(target);
    if (next === null) {
      op.delete(keys.membership(org, userId)).delete(keys.userOrg(userId, org));
    } else {
      op.set(keys.membership(org, userId), { ...target.value, role: next })
        .set(keys.userOrg(userId, org), next);
    }
    if ((await op.commit()).ok) return;
  }
  throw conflict("the members changed meanwhile; try again");
}

export const changeRole = (kv: Deno.Kv, org: string, userId: string, role: Role) =>
  changeMembership(kv, org, userId, role);

export const removeMember = (kv: Deno.Kv, org: string, userId: string) =>
  changeMembership(kv, org, userId, null);

/**
 * Removes a member (or lets one leave). Their access to the organization ends with their next request (the
 * membership is checked on every one); a person left in no organization is signed out everywhere as well.
 */
export async function removeFromOrganization(
  kv: Deno.Kv,
  clock: Clock,
  org: string,
  userId: string,
): Promise<void> {
  await removeMember(kv, org, userId);
  if ((await listUserOrgs(kv, userId)).length === 0) await endAllSessions(kv, clock, userId);
}
