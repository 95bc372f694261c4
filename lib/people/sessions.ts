/**
 * Sign-in sessions. The browser holds a random token in a cookie; KV holds only its SHA-256, with the user,
 * the times and the session's CSRF token. A session ends after IDLE_MS without a request or ABSOLUTE_MS after
 * sign-in, whichever comes first, at sign-out, or when the user signs out everywhere: the user's
 * `sessions_valid_after` stamp moves to now (anything created before it is void) and every session record is
 * deleted. Other credentials of a user (assistant connections) check the same stamp.
 */
import type { Clock } from "../clock.ts";
import { HOUR } from "../clock.ts";
import { keys } from "../store/keys.ts";
import type { Session, User } from "./records.ts";
import { newToken, TOKEN_PATTERN, tokenHash } from "./secrets.ts";
import { updateUser } from "./users.ts";

/** The cookie's name over HTTPS (a `__Host-` cookie: Secure, Path=/, this host only) and over plain HTTP. */
export const SESSION_COOKIES = ["__Host-svc_session", "svc_session"] as const;

export const IDLE_MS = 24 * HOUR;
export const ABSOLUTE_MS = 14 * 24 * HOUR;
/** last_seen_at is written at most this often, so a busy page costs no KV write per request */
const TOUCH_EVERY_MS = 60_000;

export interface OpenedSession {
  token: string; // goes into the cookie, never stored
  hash: string;
  session: Session;
}

export async function createSession(kv: Deno.Kv, clock: Clock, userId: string): Promise<OpenedSession> {
  const token = newToken();
  const hash = tokenHash(token);
  const now = clock.now();
  const session: Session = { user: userId, created_at: now, last_seen_at: now, csrf: newToken() };
  await kv.atomic()
    .set(keys.session(hash), session, { expireIn: ABSOLUTE_MS })
    .set(keys.userSession(userId, hash), now, { expireIn: ABSOLUTE_MS })
    .commit();
  return { token, hash, session };
}

/** Why a session is not (or no longer) valid at `now`; null when it is. */
export function sessionProblem(s: Session, user: User | null, now: number): string | null {
  if (!user) return "the account no longer exists";
  if (s.created_at < user.sessions_valid_after) return "signed out everywhere";
  if (now - s.created_at >= ABSOLUTE_MS) return "expired";
  if (now - s.last_seen_at >= IDLE_MS) return "idle too long";
  return null;
}

/**
 * The live session behind a cookie token, or null. `userOf` supplies the user (callers pass a cached
 * lookup); the idle clock is refreshed at most once a minute.
 */
export async function resumeSession(
  kv: Deno.Kv,
  clock: Clock,
  token: string,
  userOf: (id: string) => Promise<User | null>,
): Promise<{ hash: string; session: Session; user: User } | null> {
  if (!TOKEN_PATTERN.test(token)) return null;
  const hash = tokenHash(token);
  const entry = await kv.get<Session>(keys.session(hash));
  if (!entry.value) return null;
  const user = await userOf(entry.value.user);
  const now = clock.now();
  if (sessionProblem(entry.value, user, now)) {
    await endSession(kv, hash, entry.value.user);
    return null;
  }
  let session = entry.value;
  if (now - session.last_seen_at >= TOUCH_EVERY_MS) {
    session = { ...session, last_seen_at: now };
    const left = Math.max(1, ABSOLUTE_MS - (now - session.created_at));
    await kv.set(keys.session(hash), session, { expireIn: left });
  }
  return { hash, session, user: user! };
}

export async function endSession(kv: Deno.Kv, hash: string, userId: string): Promise<void> {
  await kv.atomic().delete(keys.session(hash)).delete(keys.userSession(userId, hash)).delete(keys.flash(hash))
    .commit();
}

/** Sign out everywhere: the stamp ends every session at once; the records go too. */
export async function endAllSessions(kv: Deno.Kv, clock: Clock, userId: string): Promise<void> {
  await updateUser(kv, userId, (u) => ({ ...u, sessions_valid_after: clock.now() }));
  for await (const e of kv.list({ prefix: keys.userSessions(userId) })) {
    await endSession(kv, e.key[2] as string, userId);
  }
}
