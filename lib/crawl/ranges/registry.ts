/**
 * The IP lists in use: the shipped snapshot, replaced per list by the last good refresh stored in KV.
 * Refresh (daily, through deps.fetch) writes a list only when every URL of it answered with prefixes, so a
 * failed or empty download keeps the last good list. Every RECHECK_MS an instance reads the lists' small
 * headers (one KV read per 10 lists) and loads a list again only when its refresh time changed, so a list
 * another instance refreshed is in use everywhere within seconds.
 */
import type { Deps } from "../../deps.ts";
import { keys } from "../../store/keys.ts";
import { type ParsedIp, parseIp, RangeSet } from "../cidr.ts";
import { extractPrefixes } from "./parse.ts";
import { RANGE_LISTS, type RangeListDef } from "./lists.ts";
import { RANGE_SNAPSHOT } from "./snapshot.ts";

export const RECHECK_MS = 5_000;
const CHUNK_CHARS = 60_000;
const FETCH_TIMEOUT_MS = 20_000;

interface StoredListMeta {
  fetched_at: number;
  count: number;
  chunks: number;
}

export class RangeRegistry {
  #sets = new Map<string, RangeSet>();
  /** fetched_at of the stored copy in use, per list */
  #stamps = new Map<string, number>();
  #checkedAt = -Infinity;
  #loading: Promise<void> = Promise.resolve();

  /** The list's ranges; empty when nothing is known about it. */
  get(id: string): RangeSet {
    let set = this.#sets.get(id);
    if (!set) {
      set = new RangeSet(RANGE_SNAPSHOT[id]?.prefixes ?? []);
      this.#sets.set(id, set);
    }
    return set;
  }

  /** Uses these prefixes for the list; `stamp`: the fetched_at of the KV copy they are. */
  replace(id: string, prefixes: string[], stamp?: number): void {
    this.#sets.set(id, new RangeSet(prefixes));
    if (stamp !== undefined) this.#stamps.set(id, stamp);
  }

  /** The CDN whose edge list holds the address ("cdn-cloudflare"), or null. */
  cdnEdge(ip: string | ParsedIp): string | null {
    const p = typeof ip === "string" ? parseIp(ip) : ip;
    if (!p) return null;
    for (const def of RANGE_LISTS) if (def.kind === "cdn" && this.get(def.id).has(p)) return def.id;
    return null;
  }

  /** Takes the refreshed lists other instances stored, looking at most every RECHECK_MS. */
  syncFromKv(kv: Deno.Kv, now: number): Promise<void> {
    if (now - this.#checkedAt >= RECHECK_MS) {
      this.#checkedAt = now;
      // concurrent callers wait for the same load instead of checking against stale lists
      this.#loading = (async () => {
        const ids = RANGE_LISTS.map((d) => d.id);
        for (let i = 0; i < ids.length; i += 10) {
          const metas = await kv.getMany<StoredListMeta[]>(
            ids.slice(i, i + 10).map((id) => keys.ipRanges(id)),
          );
          for (const [j, m] of metas.entries()) {
            const id = ids[i + j];
            if (!m.value || m.value.fetched_at === this.#stamps.get(id)) continue;
            const prefixes = await readStoredList(kv, id);
            if (prefixes) this.replace(id, prefixes, m.value.fetched_at);
          }
        }
      })().catch((err) => {
        this.#checkedAt = -Infinity; // try again next time
        throw err;
      });
    }
    return this.#loading;
  }
}

async function readStoredList(kv: Deno.Kv, id: string): Promise<string[] | null> {
  const meta = (await kv.get<StoredListMeta>(keys.ipRanges(id))).value;
  if (!meta) return null;
  const parts: string[] = [];
  for (let i = 0; i < meta.chunks; i++) {
    const chunk = (await kv.get<string>(keys.ipRangesChunk(id, i))).value;
    if (chunk === null) return null; // a half-written list is not a good one
    parts.push(chunk);
  }
  const prefixes = parts.join("\n").split("\n").filter(Boolean);
  return prefixes.length === meta.count ? prefixes : null;
}

async function storeList(kv: Deno.Kv, id: string, prefixes: string[], now: number): Promise<void> {
  const text = prefixes.join("\n");
  const chunks: string[] = [];
  // cut on line ends so each chunk holds whole prefixes
  for (let at = 0; at < text.length;) {
    let end = Math.min(text.length, at + CHUNK_CHARS);
    if (end < text.length) end = text.lastIndexOf("\n", end) + 1 || end;
    chunks.push(text.slice(at, end).replace(/\n$/, ""));
    at = end;
  }
  const op = kv.atomic();
  chunks.forEach((c, i) => op.set(keys.ipRangesChunk(id, i), c));
  op.set(
    keys.ipRanges(id),
    { fetched_at: now, count: prefixes.length, chunks: chunks.length } satisfies StoredListMeta,
  );
  const res = await op.commit();
  if (!res.ok) throw new Error(`storing list ${id} failed`);
}

export interface RefreshOutcome {
  id: string;
  ok: boolean;
  count: number;
  reason?: string;
}

async function download(deps: Deps, def: RangeListDef): Promise<string[]> {
  const all = new Set<string>();
  for (const url of def.urls) {
    const res = await deps.fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
    if (!res.ok) {
      await res.body?.cancel();
      throw new Error(`${url} answered ${res.status}`);
    }
    const found = extractPrefixes(await res.text(), def.service);
    if (found.length === 0) throw new Error(`${url} held no prefixes`);
    for (const p of found) all.add(p);
  }
  return [...all];
}

/** Downloads every list that has URLs; a list that fails keeps its last good copy. */
export async function refreshRanges(deps: Deps, registry: RangeRegistry): Promise<RefreshOutcome[]> {
  const out: RefreshOutcome[] = [];
  for (const def of RANGE_LISTS) {
    if (def.urls.length === 0) continue;
    try {
      const prefixes = await download(deps, def);
      const now = deps.clock.now();
      await storeList(deps.kv, def.id, prefixes, now);
      registry.replace(def.id, prefixes, now);
      out.push({ id: def.id, ok: true, count: prefixes.length });
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      deps.log.warn("ip list refresh failed; keeping the last good list", { list: def.id, reason });
      out.push({ id: def.id, ok: false, count: registry.get(def.id).size, reason });
    }
  }
  return out;
}
