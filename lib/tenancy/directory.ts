/**
 * Reads tenancy records with a short in-memory cache, so the ingest path does not hit KV for every
 * request, while a revoked key or a disabled environment stops working within CACHE_MS (well under 10 s).
 */
import type { Clock } from "../clock.ts";
import { keys } from "../store/keys.ts";
import type { ApiKey, Org, Touchpoint } from "../store/records.ts";
import { sha256Hex } from "../keys/apikeys.ts";
import { ShortCache } from "../short_cache.ts";

export const CACHE_MS = 5_000;

export interface ResolvedKey {
  key: ApiKey;
  org: Org;
  touchpoint: Touchpoint | null;
}

/** The process's one is built by createContext (lib/context.ts); every access check is handed it. */
export class Directory {
  #cache: ShortCache;
  constructor(private kv: Deno.Kv, clock: Clock) {
    this.#cache = new ShortCache(clock, CACHE_MS);
  }

  /** Drops cached records; admin writes in this process call it so changes apply at once here. */
  invalidate(): void {
    this.#cache.clear();
  }

  org(id: string): Promise<Org | null> {
    return this.#cache.get(`org:${id}`, async () => (await this.kv.get<Org>(keys.org(id))).value);
  }

  touchpoints(org: string): Promise<Touchpoint[]> {
    return this.#cache.get(`tps:${org}`, async () => {
      const out: Touchpoint[] = [];
      for await (const e of this.kv.list<Touchpoint>({ prefix: keys.touchpoints(org) })) out.push(e.value);
      return out;
    });
  }

  async touchpoint(org: string, id: string): Promise<Touchpoint | null> {
    return (await this.touchpoints(org)).find((t) => t.id === id) ?? null;
  }

  /** Looks a raw key up by its hash. Returns revoked and expired keys too: callers decide what that means. */
  async resolveKey(raw: string): Promise<ResolvedKey | null> {
    const hash = sha256Hex(raw);
    const key = await this.#cache.get(
      `key:${hash}`,
      async () => (await this.kv.get<ApiKey>(keys.apiKeyByHash(hash))).value,
    );
    if (!key) return null;
    const org = await this.org(key.org);
    if (!org) return null;
    const touchpoint = key.touchpoint ? await this.touchpoint(key.org, key.touchpoint) : null;
    return { key, org, touchpoint };
  }
}
