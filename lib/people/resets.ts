/**
 * Password reset: a single-use link valid for RESET_MS. Using it sets the new password and ends every
 * session of the account. Asking for one answers the same whether the address has an account or not.
 */
import type { Clock } from "../clock.ts";
import { HOUR } from "../clock.ts";
import { invalid } from "../errors.ts";
import { keys } from "../store/keys.ts";
import type { PasswordReset, User } from "./records.ts";
import { newToken, TOKEN_PATTERN, tokenHash } from "./secrets.ts";
import { endAllSessions } from "./sessions.ts";
import { findUserByEmail, getUser, setPassword } from "./users.ts";
import { PASSWORD_COST, passwordProblem } from "./passwords.ts";
import { LINK_PROBLEM, type LinkState } from "./invitations.ts";

export const RESET_MS = 1 * HOUR;

export const resetPath = (token: string) => `/app/reset/${token}`;

/** A reset link for the account with this address, or null when there is none (callers answer the same). */
export async function createReset(
  kv: Deno.Kv,
  clock: Clock,
  email: string,
): Promise<{ user: User; token: string } | null> {
  const user = await findUserByEmail(kv, email);
  if (!user) return null;
  const token = newToken();
  const now = clock.now();
  const reset: PasswordReset = { user: user.id, created_at: now, expires_at: now + RESET_MS };
  await kv.set(keys.passwordReset(tokenHash(token)), reset, { expireIn: RESET_MS });
  return { user, token };
}

export async function findReset(kv: Deno.Kv, clock: Clock, token: string): Promise<LinkState<PasswordReset>> {
  if (!TOKEN_PATTERN.test(token)) return { ok: false, problem: "unknown" };
  const r = (await kv.get<PasswordReset>(keys.passwordReset(tokenHash(token)))).value;
  if (!r) return { ok: false, problem: "unknown" };
  if (clock.now() >= r.expires_at) return { ok: false, problem: "expired" };
  return { ok: true, value: r };
}

/** Uses the link once: the record is deleted in a checked commit before the password changes. */
export async function completeReset(
  kv: Deno.Kv,
  clock: Clock,
  token: string,
  password: string,
  cost = PASSWORD_COST,
): Promise<User> {
  const problem = passwordProblem(password);
  if (problem) throw invalid(`password: ${problem}`);
  const state = await findReset(kv, clock, token);
  if (!state.ok) throw invalid(`link: ${LINK_PROBLEM[state.problem]}`);
  const key = keys.passwordReset(tokenHash(token));
  const entry = await kv.get<PasswordReset>(key);
  const res = await kv.atomic().check(entry).delete(key).commit();
  if (!res.ok || !entry.value) throw invalid(`link: ${LINK_PROBLEM.used}`);
  await setPassword(kv, state.value.user, password, cost);
  await endAllSessions(kv, clock, state.value.user);
  const user = await getUser(kv, state.value.user);
  if (!user) throw invalid("link: the account no longer exists");
  return user;
}
