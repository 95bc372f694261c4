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

export class PeopleCache {
  #cache = new Map<string, { value: unknown; at: number }>();
  constructor(private kv: Deno.Kv, private clock: Clock) {}

  async #cached<T>(id: string, load: () => Promise<T>): Promise<T> {
    const now = this.clock.now();
    const hit = this.#cache.get(id);
    if (hit && now - hit.at < CACHE_MS) return hit.value as T;
    const value = await load();
    if (this.#cache.size > 50_000) this.#cache.clear();
    this.#cache.set(id, { value, at: now });
    return value;
  }

  invalidate(): void {
    this.#cache.clear();
  }

  user(id: string): Promise<User | null> {
    return this.#cached(`user:${id}`, () => getUser(this.kv, id));
  }

  membership(org: string, userId: string): Promise<Membership | null> {
    return this.#cached(`member:${org}:${userId}`, () => getMembership(this.kv, org, userId));
  }

  orgsOf(userId: string): Promise<{ org: string; role: Role }[]> {
    return this.#cached(`orgs:${userId}`, () => listUserOrgs(this.kv, userId));
  }
}
