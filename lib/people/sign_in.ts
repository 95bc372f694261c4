/**
 * Checking a password. A wrong password and an unknown address get the same answer and cost the same time
 * (an unknown address is checked against a dummy hash). A hash made with older parameters is upgraded.
 */
import { unauthorized } from "../errors.ts";
import { dummyHash, hashPassword, needsRehash, verifyPassword } from "./passwords.ts";
import type { User } from "./records.ts";
import { type PeopleContext, takeSignInAttempt } from "./abuse.ts";
import { findUserByEmail, updateUser } from "./users.ts";

export const WRONG_CREDENTIALS = "wrong email or password";

export async function checkPassword(
  ctx: PeopleContext,
  input: { email: string; password: string; addr: string | null },
): Promise<User> {
  await takeSignInAttempt(ctx, input.addr, input.email);
  const { kv } = ctx.deps;
  const user = await findUserByEmail(kv, input.email);
  const cost = ctx.deps.config.passwordCost;
  const ok = await verifyPassword(input.password, user?.password_hash ?? await dummyHash(cost));
  if (!user || !ok) throw unauthorized(WRONG_CREDENTIALS);
  if (needsRehash(user.password_hash, cost)) {
    const upgraded = await hashPassword(input.password, cost);
    return await updateUser(kv, user.id, (u) => ({ ...u, password_hash: upgraded }));
  }
  return user;
}
