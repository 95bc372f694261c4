/** Users: one per email address (case-insensitive), a scrypt password hash, a "sessions valid after" stamp. */
import type { Clock } from "../clock.ts";
import { conflict, invalid, notFound } from "../errors.ts";
import { randomId } from "../keys/apikeys.ts";
import { keys } from "../store/keys.ts";
import { hashPassword, PASSWORD_COST, passwordProblem } from "./passwords.ts";
import type { User } from "./records.ts";

/** Emails compare case-insensitively everywhere: stored and looked up in lower case. */
export const normalizeEmail = (email: string) => email.trim().toLowerCase();

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,253}\.[^\s@]{1,63}$/;
export const emailProblem = (email: string) =>
  EMAIL.test(normalizeEmail(email)) ? null : "must be an email address such as ann@example.com";

export async function getUser(kv: Deno.Kv, id: string): Promise<User | null> {
  return (await kv.get<User>(keys.user(id))).value;
}

/** No account has an address that is not one; the check also bounds the lookup key (KV keys: 2 KiB at most). */
export async function findUserByEmail(kv: Deno.Kv, email: string): Promise<User | null> {
  if (emailProblem(email)) return null;
  const id = (await kv.get<string>(keys.userByEmail(normalizeEmail(email)))).value;
  return id ? await getUser(kv, id) : null;
}

/**
 * Creates a user; an address already taken (in any letter case) is a 422, whatever the race. `cost`: the
 * password hash's (Config.passwordCost; lib/people/passwords.ts).
 */
export async function createUser(
  kv: Deno.Kv,
  clock: Clock,
  email: string,
  password: string,
  cost = PASSWORD_COST,
): Promise<User> {
  const problem = emailProblem(email) ?? null;
  if (problem) throw invalid(`email: ${problem}`);
  const pwProblem = passwordProblem(password);
  if (pwProblem) throw invalid(`password: ${pwProblem}`);
  const user: User = {
    id: randomId("usr_"),
    email: normalizeEmail(email),
    password_hash: await hashPassword(password, cost),
    created_at: new Date(clock.now()).toISOString(),
    sessions_valid_after: 0,
  };
  const res = await kv.atomic()
    .check({ key: keys.userByEmail(user.email), versionstamp: null })
    .set(keys.userByEmail(user.email), user.id)
    .set(keys.user(user.id), user)
    .commit();
  if (!res.ok) throw invalid("email: an account with this address exists; sign in instead");
  return user;
}

/** Replaces the password hash; callers end the user's sessions (lib/people/sessions.ts endAllSessions). */
export async function setPassword(
  kv: Deno.Kv,
  userId: string,
  password: string,
  cost = PASSWORD_COST,
): Promise<User> {
  const pwProblem = passwordProblem(password);
  if (pwProblem) throw invalid(`password: ${pwProblem}`);
  const hash = await hashPassword(password, cost);
  return await updateUser(kv, userId, (u) => ({ ...u, password_hash: hash }));
}

/** Read-modify-write with a version check, retried on a concurrent change. */
export async function updateUser(kv: Deno.Kv, userId: string, change: (u: User) => User): Promise<User> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const cur = await kv.get<User>(keys.user(userId));
    if (!cur.value) throw notFound(`no user ${userId}`);
    const next = change(cur.value);
    const res = await kv.atomic().check(cur).set(keys.user(userId), next).commit();
    if (res.ok) return next;
  }
  throw conflict("the account changed meanwhile; try again");
}
