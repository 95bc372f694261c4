/**
 * Limits on what an attacker could repeat: sign-in attempts per address and per account, and mail sent per
 * address and per recipient (reset links, invitations). Counted per minute in KV by lib/limits/rate.ts, so
 * they hold across instances; addresses and emails are hashed before they become part of a key.
 */
import type { Deps } from "../deps.ts";
import type { RateLimiter } from "../limits/rate.ts";
import { rateLimited } from "../errors.ts";
import { sha256Hex } from "../keys/apikeys.ts";
import { normalizeEmail } from "./users.ts";

export const LIMITS = {
  /** sign-in attempts (right or wrong) from one address a minute */
  signInPerAddress: 30,
  /** sign-in attempts for one account (email) a minute, from anywhere */
  signInPerAccount: 10,
  /** reset links asked for from one address, and for one email, a minute */
  resetPerAddress: 10,
  resetPerAccount: 3,
  /** invitations sent by one organization a minute */
  invitesPerOrg: 30,
} as const;

/** What the people actions that send mail or check passwords take: the outside world and the shared rate limiter. */
export interface PeopleContext {
  deps: Deps;
  rates: RateLimiter;
}

const id = (kind: string, value: string) => sha256Hex(`people-limit:${kind}:${value}`).slice(0, 32);

async function take(ctx: PeopleContext, scope: string, value: string, limit: number, what: string) {
  const d = await ctx.rates.take(scope, id(scope, value), limit);
  if (!d.ok) throw rateLimited(d.retryAfterS, `too many ${what}; wait ${d.retryAfterS} s and try again`);
}

/** Both limits are taken before the password is checked, so guessing costs the same whatever the answer. */
export async function takeSignInAttempt(ctx: PeopleContext, addr: string | null, email: string) {
  if (addr) await take(ctx, "signin_addr", addr, LIMITS.signInPerAddress, "sign-in attempts from here");
  await take(
    ctx,
    "signin_acct",
    normalizeEmail(email),
    LIMITS.signInPerAccount,
    "sign-in attempts for this account",
  );
}

export async function takeResetRequest(ctx: PeopleContext, addr: string | null, email: string) {
  if (addr) await take(ctx, "reset_addr", addr, LIMITS.resetPerAddress, "reset requests from here");
  await take(
    ctx,
    "reset_acct",
    normalizeEmail(email),
    LIMITS.resetPerAccount,
    "reset requests for this address",
  );
}

export async function takeInvitation(ctx: PeopleContext, org: string) {
  await take(ctx, "invite_org", org, LIMITS.invitesPerOrg, "invitations from this organization");
}
