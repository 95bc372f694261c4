/**
 * What the OAuth code needs to know about people: who is signed in on this request, their memberships, and
 * when they last signed out everywhere. The app's accounts and sessions answer it; until they are wired in,
 * nobody is signed in (no consent can be given, no grant passes its check).
 */
import type { Role } from "../store/records.ts";

export type { Role };

export interface Person {
  id: string;
  email: string;
  /** The sign-in session's CSRF token: the consent form must carry it back. */
  csrf: string;
}

export interface Membership {
  org: string;
  role: Role;
}

export interface People {
  /** The person signed in to the app on this request (by the app's session cookie), or null. */
  signedIn(req: Request): Promise<Person | null>;
  memberships(userId: string): Promise<Membership[]>;
  /** When the person last signed out everywhere (ms), or null if never: grants issued before then end. */
  signedOutEverywhereAt(userId: string): Promise<number | null>;
  /** Where to send someone who must sign in first, coming back to `returnTo` (a path on this service). */
  signInPath(returnTo: string): string;
}

export const nobody: People = {
  signedIn: () => Promise.resolve(null),
  memberships: () => Promise.resolve([]),
  signedOutEverywhereAt: () => Promise.resolve(null),
  signInPath: (returnTo) => `/app/sign-in?next=${encodeURIComponent(returnTo)}`,
};
