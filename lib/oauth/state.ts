/**
 * Per-process state of the OAuth side. Caches hold seconds of data (grant checks, access tokens) or
 * documents with their own expiry, so many instances agree within seconds.
 */
import type { Deps } from "../deps.ts";
import { MetadataDocuments } from "./metadata_document.ts";
import { nobody, type People } from "./people.ts";
import type { AccessRecord, Grant } from "./types.ts";

/** How long a grant check or an access-token lookup is trusted before KV is read again. */
export const CHECK_CACHE_MS = 5_000;
/** A grant's last-used time is written at most this often per instance. */
export const LAST_USED_EVERY_MS = 60_000;

export interface GrantCheck {
  ok: boolean;
  /** The grant as checked, its organizations cut to those still readable (granted and still a member). */
  grant: Grant | null;
  reason: string;
}

export class TimedCache<T> {
  #map = new Map<string, { at: number; value: T }>();
  constructor(private ms: number, private max = 50_000) {}
  get(key: string, now: number): T | undefined {
    const e = this.#map.get(key);
    return e && now - e.at < this.ms ? e.value : undefined;
  }
  set(key: string, value: T, now: number): void {
    if (this.#map.size >= this.max) this.#map.clear();
    this.#map.set(key, { at: now, value });
  }
  delete(key: string): void {
    this.#map.delete(key);
  }
}

/** What the OAuth functions take: the outside world and this per-process state. */
export interface OAuthContext {
  deps: Deps;
  oauth: OAuthState;
}

export class OAuthState {
  documents: MetadataDocuments;
  readonly grantChecks = new TimedCache<GrantCheck>(CHECK_CACHE_MS);
  readonly accessTokens = new TimedCache<AccessRecord | null>(CHECK_CACHE_MS);
  readonly lastUsedWritten = new TimedCache<true>(LAST_USED_EVERY_MS);
  /** Who is signed in and where they belong, as the app's accounts say. */
  people: People = nobody;
  constructor(deps: Deps) {
    this.documents = new MetadataDocuments(deps);
  }
}
