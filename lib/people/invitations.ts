/**
 * Invitations: a single-use link that lets the invitee join an organization with a role, setting a password
 * (new account) or signing in (existing account). Only the token's hash is stored; the link expires after
 * INVITATION_MS, and accepting it marks it used in the same commit that adds the membership.
 */
import type { Clock } from "../clock.ts";
import { DAY } from "../clock.ts";
import { conflict, invalid } from "../errors.ts";
import { randomId } from "../keys/apikeys.ts";
import { keys } from "../store/keys.ts";
import type { Invitation, Membership, Role } from "./records.ts";
import { higherRole } from "./roles.ts";
import { newToken, TOKEN_PATTERN, tokenHash } from "./secrets.ts";
import { emailProblem, normalizeEmail } from "./users.ts";

export const INVITATION_MS = 7 * DAY;
/** Records stay a day past expiry so an old link says "expired" rather than "unknown". */
const KEEP_MS = INVITATION_MS + DAY;

export const invitationPath = (token: string) => `/app/invite/${token}`;

export async function createInvitation(
  kv: Deno.Kv,
  clock: Clock,
  input: { org: string; email: string; role: Role; invitedBy: string | null },
): Promise<{ invitation: Invitation; token: string }> {
  const problem = emailProblem(input.email);
  if (problem) throw invalid(`email: ${problem}`);
  const now = clock.now();
  const token = newToken();
  const hash = tokenHash(token);
  const invitation: Invitation = {
    id: randomId("inv_"),
    org: input.org,
    email: normalizeEmail(input.email),
    role: input.role,
    invited_by: input.invitedBy,
    created_at: now,
    expires_at: now + INVITATION_MS,
    used_at: null,
  };
  await kv.atomic()
    .set(keys.invitation(hash), invitation, { expireIn: KEEP_MS })
    .set(keys.orgInvitation(input.org, invitation.id), hash, { expireIn: KEEP_MS })
    .commit();
  return { invitation, token };
}

export type LinkState<T> = { ok: true; value: T } | { ok: false; problem: "unknown" | "used" | "expired" };

/** What a link token stands for right now. */
export async function findInvitation(
  kv: Deno.Kv,
  clock: Clock,
  token: string,
): Promise<LinkState<Invitation>> {
  if (!TOKEN_PATTERN.test(token)) return { ok: false, problem: "unknown" };
  return invitationState(clock, (await kv.get<Invitation>(keys.invitation(tokenHash(token)))).value);
}

function invitationState(clock: Clock, inv: Invitation | null): LinkState<Invitation> {
  if (!inv) return { ok: false, problem: "unknown" };
  if (inv.used_at !== null) return { ok: false, problem: "used" };
  if (clock.now() >= inv.expires_at) return { ok: false, problem: "expired" };
  return { ok: true, value: inv };
}

export const LINK_PROBLEM: Record<"unknown" | "used" | "expired", string> = {
  unknown: "This link is not valid. Ask for a new one.",
  used: "This link was already used. Sign in, or ask for a new one.",
  expired: "This link has expired. Ask for a new one.",
};

/**
 * Marks the invitation used and makes the user a member (a member already keeps the higher role), in one
 * commit checked against both records: a link accepted twice at once joins once and refuses the other.
 */
export async function acceptInvitation(
  kv: Deno.Kv,
  clock: Clock,
  token: string,
  userId: string,
): Promise<Membership> {
  if (!TOKEN_PATTERN.test(token)) throw invalid(`invitation: ${LINK_PROBLEM.unknown}`);
  const hash = tokenHash(token);
  for (let attempt = 0; attempt < 10; attempt++) {
    // the state is judged from the very entry the commit checks: judged from an earlier read, a link used
    // by a concurrent accept between the two reads passed as unused and joined twice
    const inv = await kv.get<Invitation>(keys.invitation(hash));
    const state = invitationState(clock, inv.value);
    if (!state.ok) throw invalid(`invitation: ${LINK_PROBLEM[state.problem]}`);
    const cur = await kv.get<Membership>(keys.membership(state.value.org, userId));
    const now = clock.now();
    const m: Membership = cur.value ? { ...cur.value, role: higherRole(cur.value.role, state.value.role) } : {
      org: state.value.org,
      user: userId,
      role: state.value.role,
      created_at: new Date(now).toISOString(),
    };
    const res = await kv.atomic().check(inv).check(cur)
      .set(keys.invitation(hash), { ...state.value, used_at: now }, { expireIn: KEEP_MS })
      .delete(keys.orgInvitation(state.value.org, state.value.id))
      .set(keys.membership(m.org, userId), m)
      .set(keys.userOrg(userId, m.org), m.role)
      .commit();
    if (res.ok) return m;
  }
  throw conflict("the invitation changed meanwhile; try again");
}

/** Invitations not yet accepted (expired ones included until their records go). */
export async function listInvitations(kv: Deno.Kv, org: string): Promise<Invitation[]> {
  const out: Invitation[] = [];
  for await (const e of kv.list<string>({ prefix: keys.orgInvitations(org) })) {
    const inv = (await kv.get<Invitation>(keys.invitation(e.value))).value;
    if (inv && inv.used_at === null) out.push(inv);
  }
  return out.sort((a, b) => a.created_at - b.created_at);
}

/** Withdraws an invitation: its link stops working at once. */
export async function revokeInvitation(kv: Deno.Kv, org: string, inviteId: string): Promise<boolean> {
  const hash = (await kv.get<string>(keys.orgInvitation(org, inviteId))).value;
  if (!hash) return false;
  await kv.atomic().delete(keys.orgInvitation(org, inviteId)).delete(keys.invitation(hash)).commit();
  return true;
}
