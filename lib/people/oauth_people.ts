/**
 * The app's accounts as the OAuth side sees them (lib/oauth/people.ts): who is signed in on a request (the
 * session cookie), their memberships (cached seconds), and the "sessions valid after" stamp that ends
 * assistant connections made before a sign-out everywhere.
 */
import type { Clock } from "../clock.ts";
import type { People } from "../oauth/people.ts";
import type { PeopleCache } from "./cache.ts";
import { resumeSession, SESSION_COOKIES } from "./sessions.ts";

function cookieValue(header: string | null, names: readonly string[]): string | null {
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && names.includes(part.slice(0, eq).trim())) return part.slice(eq + 1).trim();
  }
  return null;
}

export function accountsForOAuth(kv: Deno.Kv, clock: Clock, cache: PeopleCache): People {
  return {
    async signedIn(req) {
      const token = cookieValue(req.headers.get("cookie"), SESSION_COOKIES);
      if (!token) return null;
      const live = await resumeSession(kv, clock, token, (id) => cache.user(id));
      return live ? { id: live.user.id, email: live.user.email, csrf: live.session.csrf } : null;
    },
    memberships: (userId) => cache.orgsOf(userId),
    async signedOutEverywhereAt(userId) {
      const user = await cache.user(userId);
      if (!user) return Number.MAX_SAFE_INTEGER; // no account: nothing it made stays valid
      return user.sessions_valid_after || null;
    },
    signInPath: (returnTo) => `/app/sign-in?next=${encodeURIComponent(returnTo)}`,
  };
}
