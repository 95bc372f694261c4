/**
 * People lookups every app request makes (the session's user, a membership), cached in memory for
 * CACHE_MS like the key directory: cheap enough for the app and for assistant connections to check on every
 * call. Writes in this process call `invalidate()`; other instances see a change within CACHE_MS. Session
 * records themselves are never cached, so signing out (everywhere) takes effect at once on every instance.
 */
import type { Clock } from "../clock.ts";
import { CACHE_MS } from "../tenancy/directory.ts";
import { getMembership, listUserOrgs } from "./members.ts";
import type { Membership, Role, User } from "./records.ts";
import { getUser } from "./users.ts";
import { ShortCache } from "../short_cache.ts";

export class PeopleCache {
  #cache: ShortCache;
  constructor(private kv: Deno.Kv, clock: Clock) {
    this.#cache = new ShortCache(clock, CACHE_MS);
  }

  invalidate(): void {
    this.#cache.clear();
  }

  user(id: string): Promise<User | null> {
    return this.#cache.get(`user:${id}`, () => getUser(this.kv, id));
  }

  membership(org: string, userId: string): Promise<Membership | null> {
    return this.#cache.get(`member:${org}:${userId}`, () => getMembership(this.kv, org, userId));
  }

  orgsOf(userId: string): Promise<{ org: string; role: Role }[]> {
    return this.#cache.get(`orgs:${userId}`, () => listUserOrgs(this.kv, userId));
  }
}
