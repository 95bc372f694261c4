/**
 * Every robots.txt version a site has served, with when it was in force, so that a crawler hit is judged
 * against the rules of its time and not today's. The refresh job records each fetch: rules equal to the
 * latest version's only move its `seen_until`; different rules start a new version at the fetch time.
 * Bodies are stored in chunks because one KV value holds at most 64 KiB and a robots.txt may be 512 KiB.
 */
import { keys } from "../store/keys.ts";
import type { EnvName } from "../store/records.ts";

/**
 * What a version says: `rules` (a body applies: a 2xx answer, or the copy kept while the server fails),
 * `allow_all` (a 4xx answer: by RFC 9309 everything is allowed) or `unknown` (the server could not be
 * reached and no copy was kept: crawlers must assume a full disallow, but the service cannot tell whether
 * the site or its own fetch failed, so nothing is judged against it).
 */
export type RulesState = "rules" | "allow_all" | "unknown";

export interface RobotsVersion {
  /** the first fetch that saw these rules (ms) */
  since: number;
  /** the last fetch that still saw them (ms) */
  seen_until: number;
  state: RulesState;
  status: number | null;
  /** SHA-256 of the body in force, hex; null when no body applies */
  hash: string | null;
  /** body size in bytes and the number of chunks it is stored in */
  size: number;
  chunks: number;
}

/** What one fetch saw, as robots.ts records it. */
export interface FetchSeen {
  fetched_at: number;
  status: number | null;
  outcome: "ok" | "unavailable" | "unreachable";
  /** the rules in force: this fetch's body, or the kept copy; null when none */
  body: string | null;
}

const CHUNK_BYTES = 60_000;
/** A version replaced longer ago than the longest plan history (1,100 days) can judge no readable hit. */
const KEEP_REPLACED_MS = 1_100 * 86_400_000;

async function sha256(body: string): Promise<string> {
  const d = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(body));
  return [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export function stateOf(seen: Pick<FetchSeen, "outcome" | "body">): RulesState {
  if (seen.outcome === "unavailable") return "allow_all";
  return seen.body === null ? "unknown" : "rules";
}

/** The latest version, or null before the first fetch. */
export async function latestVersion(
  kv: Deno.Kv,
  org: string,
  tp: string,
  env: EnvName,
): Promise<Deno.KvEntry<RobotsVersion> | null> {
  for await (
    const e of kv.list<RobotsVersion>({ prefix: keys.robotsVersions(org, tp, env) }, {
      reverse: true,
      limit: 1,
    })
  ) return e;
  return null;
}

/** Records one fetch; returns the version in force after it. */
export async function recordFetch(
  kv: Deno.Kv,
  org: string,
  tp: string,
  env: EnvName,
  seen: FetchSeen,
): Promise<RobotsVersion> {
  const state = stateOf(seen);
  const body = state === "rules" ? seen.body! : null;
  const hash = body === null ? null : await sha256(body);
  const latest = await latestVersion(kv, org, tp, env);
  const cur = latest?.value;
  if (cur && cur.state === state && cur.hash === hash) {
    if (seen.fetched_at <= cur.seen_until) return cur;
    const next = { ...cur, seen_until: seen.fetched_at };
    await kv.set(latest!.key, next);
    return next;
  }
  const bytes = body === null ? new Uint8Array() : new TextEncoder().encode(body);
  const chunks = Math.ceil(bytes.length / CHUNK_BYTES);
  const version: RobotsVersion = {
    since: seen.fetched_at,
    seen_until: seen.fetched_at,
    state,
    status: seen.status,
    hash,
    size: bytes.length,
    chunks,
  };
  const tx = kv.atomic().set(keys.robotsVersion(org, tp, env, version.since), version);
  for (let i = 0; i < chunks; i++) {
    tx.set(
      keys.robotsVersionChunk(org, tp, env, version.since, i),
      bytes.subarray(i * CHUNK_BYTES, (i + 1) * CHUNK_BYTES),
    );
  }
  const res = await tx.commit();
  if (!res.ok) throw new Error("robots.txt version was not stored");
  await dropReplaced(kv, org, tp, env, seen.fetched_at - KEEP_REPLACED_MS);
  return version;
}

/** Deletes the versions (and their bodies) whose successor began before `before`. */
async function dropReplaced(kv: Deno.Kv, org: string, tp: string, env: EnvName, before: number) {
  const all = await listVersions(kv, org, tp, env);
  for (let i = 0; i + 1 < all.length && all[i + 1].since < before; i++) {
    await kv.delete(keys.robotsVersion(org, tp, env, all[i].since));
    for await (const c of kv.list({ prefix: keys.robotsVersionChunks(org, tp, env, all[i].since) })) {
      await kv.delete(c.key);
    }
  }
}

/** Every version, oldest first (a site changes its robots.txt rarely: the list is short). */
export async function listVersions(
  kv: Deno.Kv,
  org: string,
  tp: string,
  env: EnvName,
): Promise<RobotsVersion[]> {
  const out: RobotsVersion[] = [];
  for await (const e of kv.list<RobotsVersion>({ prefix: keys.robotsVersions(org, tp, env) })) {
    out.push(e.value);
  }
  return out.sort((a, b) => a.since - b.since);
}

/** The body of a `rules` version, or null (other states, or a chunk gone missing). */
export async function versionBody(
  kv: Deno.Kv,
  org: string,
  tp: string,
  env: EnvName,
  v: RobotsVersion,
): Promise<string | null> {
  if (v.state !== "rules") return null;
  const parts: Uint8Array[] = [];
  for await (
    const e of kv.list<Uint8Array>({ prefix: keys.robotsVersionChunks(org, tp, env, v.since) })
  ) parts.push(e.value);
  if (parts.length !== v.chunks) return null;
  const all = new Uint8Array(v.size);
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  return new TextDecoder().decode(all);
}
