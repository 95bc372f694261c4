/**
 * The crawler-hit pipeline, one hit at a time: validate → attribute → enrich → dedupe → store.
 * An expected rejection is data ({ rejected: "invalid" }), never an exception, so a bad hit never fails the
 * batch and accepted + duplicates + sum(rejected) always equals the number of events sent.
 * Each hit is written with its dedupe key in one atomic commit (chunked within KV's limits); when a chunk's
 * check fails (a retry) the hits already stored are left out, and if it fails again (a concurrent identical
 * batch) the rest are committed one by one, so each is stored exactly once and a retried batch is safe.
 */
import { DAY, MINUTE } from "../clock.ts";
import type { Deps } from "../deps.ts";
import { keys } from "../store/keys.ts";
import type { EnvName, StoredHit, Touchpoint } from "../store/records.ts";
import { CrawlEvent, UA_MAX } from "../schemas/server_events.ts";
import { hostAllowedFor, normalizeHost } from "../tenancy/domains.ts";
import { catalogEntry, classifyUserAgent } from "../crawl/classify.ts";
import { isCrawled, siteFileOf } from "../crawl/paths.ts";
import { isIp } from "../crawl/cidr.ts";
import { hasCheck } from "../crawl/verify.ts";
import { addPendingVerification } from "../jobs/verify.ts";

/** Addresses are kept 30 days, like web events' (lib/ingest/web.ts), then swept. */
export const IP_RETENTION_MS = 30 * DAY;
/** Hits are deduplicated for 8 days: their age limit is 7. */
export const HIT_DEDUPE_MS = 8 * DAY;
export const MAX_AGE_MS = 7 * DAY;
export const MAX_AHEAD_MS = 5 * MINUTE;
/**
 * Hits per atomic commit: KV allows 100 checks, 1,000 mutations and 800 KiB per commit; a hit needs 1 check,
 * up to 4 mutations and at most ~2.5 KB, so 100 fit.
 */
export const HIT_CHUNK = 100;

export type HitRejection = "invalid" | "unknown_host" | "not_crawler";

export interface HitsResult {
  accepted: number;
  duplicates: number;
  rejected: Record<HitRejection, number>;
}

/** Where a batch goes and when it arrived. */
export interface HitTarget {
  org: string;
  touchpoint: string;
  env: EnvName;
  touchpoints: Touchpoint[]; // all of the organization's: the most specific domain decides a host's owner
  receivedAt: number;
  /** sender clock minus ours, from sent_at; 0 when not sent */
  clockOffsetMs: number;
}

interface PreparedHit {
  hit: StoredHit;
  ip: string | null;
}

type Step = PreparedHit | { rejected: HitRejection };

/** "https://www.Example.com:8443/a?b" or "www.example.com/a" → "www.example.com"; null when nothing is left. */
export function refererHostOf(raw: string | null | undefined): string | null {
  if (!raw) return null;
  let s = raw.trim();
  const scheme = s.indexOf("://");
  if (scheme >= 0) s = s.slice(scheme + 3);
  s = s.replace(/^[^@/]*@/, ""); // never keep credentials
  const end = s.search(/[/?#]/);
  if (end >= 0) s = s.slice(0, end);
  const host = normalizeHost(s);
  return host === "" ? null : host.slice(0, 255);
}

/** The sender's clock offset from sent_at (sender minus ours); an absent or unreadable sent_at means none. */
export function clockOffset(sentAt: unknown, receivedAt: number): number {
  if (typeof sentAt !== "string") return 0;
  const ms = Date.parse(sentAt);
  return Number.isFinite(ms) ? ms - receivedAt : 0;
}

/** The hit's time: corrected by the sender's offset; null when older than 7 days; receive time when too far ahead. */
export function hitTime(
  timestamp: string | null | undefined,
  t: Pick<HitTarget, "receivedAt" | "clockOffsetMs">,
) {
  if (!timestamp) return t.receivedAt;
  const at = Date.parse(timestamp) - t.clockOffsetMs;
  if (!Number.isFinite(at)) return null;
  if (at < t.receivedAt - MAX_AGE_MS) return null;
  if (at > t.receivedAt + MAX_AHEAD_MS) return t.receivedAt;
  return at;
}

function prepare(deps: Deps, t: HitTarget, raw: unknown): Step {
  // validate
  const parsed = CrawlEvent.safeParse(raw);
  if (!parsed.success) return { rejected: "invalid" };
  const e = parsed.data;
  const timestamp = hitTime(e.timestamp, t);
  if (timestamp === null) return { rejected: "invalid" };
  // attribute
  const host = normalizeHost(e.host);
  if (host === "" || !hostAllowedFor(t.touchpoints, host, t.touchpoint, t.env)) {
    return { rejected: "unknown_host" };
  }
  const userAgent = e.user_agent.slice(0, UA_MAX);
  const agent = classifyUserAgent(userAgent);
  if (!agent) return { rejected: "not_crawler" }; // and its address is never stored
  // enrich
  const ip = typeof e.ip === "string" && isIp(e.ip) ? e.ip.trim() : null;
  const method = (e.method ?? "GET").toUpperCase();
  const status = e.status ?? null;
  const siteFile = siteFileOf(e.path);
  const checkable = ip !== null && hasCheck(catalogEntry(agent.token));
  return {
    ip,
    hit: {
      v: 1,
      id: e.event_id,
      org: t.org,
      touchpoint: t.touchpoint,
      env: t.env,
      received_at: t.receivedAt,
      timestamp,
      host,
      path: e.path,
      method,
      status,
      user_agent: userAgent,
      referer_host: refererHostOf(e.referer_host),
      crawler: agent.token,
      vendor: agent.vendor,
      category: agent.category,
      site_file: siteFile,
      crawled: isCrawled(siteFile, method, status),
      geo: ip ? deps.geo.lookup(ip) : { country: null, city: null, asn: null, as_org: null },
      verification: checkable ? "pending" : "unverifiable",
      via: "server",
    },
  };
}

/** Adds one hit to an atomic operation: only if its dedupe key is absent, with that key. */
function addHit(op: Deno.AtomicOperation, { hit }: PreparedHit): Deno.AtomicOperation {
  return op.check({ key: keys.dedupe(hit.org, hit.id), versionstamp: null })
    .set(keys.dedupe(hit.org, hit.id), hit.received_at, { expireIn: HIT_DEDUPE_MS })
    .set(keys.rawHit(hit.org, hit.env, hit.received_at, hit.id), hit);
}

/**
 * Commits a group of hits at once: each hit with its dedupe key, plus ONE address record and ONE pending
 * verification marker for the whole group (a key per hit for those would halve throughput), and the queue
 * message in the same commit, so the work is enqueued exactly when the hits are stored.
 */
async function commitGroup(kv: Deno.Kv, group: PreparedHit[]): Promise<boolean> {
  const op = kv.atomic();
  for (const h of group) addHit(op, h);
  const first = group[0].hit, id = first.id; // a group's first hit is stored once, so its id names the group
  const ips: Record<string, string> = {};
  for (const h of group) if (h.ip) ips[h.hit.id] = h.ip;
  if (Object.keys(ips).length) {
    op.set(keys.ipGroup(first.received_at, first.org, id), { at: first.received_at, ips }, {
      expireIn: IP_RETENTION_MS,
    });
  }
  const pending = group.filter((h) => h.hit.verification === "pending");
  if (pending.length) {
    addPendingVerification(op, id, {
      org: first.org,
      receivedAt: first.received_at,
      grouped: true,
      hits: pending.map(({ hit }) => [hit.id, hit.crawler]),
    });
  }
  return (await op.commit()).ok;
}

/** The hits whose dedupe key is not yet in KV (getMany reads at most 10 keys at a time). */
async function absent(kv: Deno.Kv, hits: PreparedHit[]): Promise<PreparedHit[]> {
  const out: PreparedHit[] = [];
  for (let i = 0; i < hits.length; i += 10) {
    const group = hits.slice(i, i + 10);
    const found = await kv.getMany(group.map(({ hit }) => keys.dedupe(hit.org, hit.id)));
    group.forEach((h, j) => found[j].versionstamp === null && out.push(h));
  }
  return out;
}

/** Stores prepared hits; returns those newly stored (the rest were already there). */
async function store(kv: Deno.Kv, hits: PreparedHit[]): Promise<PreparedHit[]> {
  const stored: PreparedHit[] = [];
  for (let i = 0; i < hits.length; i += HIT_CHUNK) {
    const chunk = hits.slice(i, i + HIT_CHUNK);
    if (await commitGroup(kv, chunk)) {
      stored.push(...chunk);
      continue;
    }
    // Some hit is stored already (a retry): leave those out and commit the rest together.
    const rest = await absent(kv, chunk);
    if (rest.length === 0) continue;
    if (await commitGroup(kv, rest)) {
      stored.push(...rest);
      continue;
    }
    // A concurrent identical batch is writing the same hits: one by one, each only if still absent.
    for (const h of rest) if (await commitGroup(kv, [h])) stored.push(h);
  }
  return stored;
}

export async function ingestHits(deps: Deps, t: HitTarget, events: unknown[]): Promise<HitsResult> {
  const result: HitsResult = {
    accepted: 0,
    duplicates: 0,
    rejected: { invalid: 0, unknown_host: 0, not_crawler: 0 },
  };
  const seen = new Set<string>();
  const fresh: PreparedHit[] = [];
  for (const raw of events) {
    const step = prepare(deps, t, raw);
    if ("rejected" in step) result.rejected[step.rejected]++;
    else if (seen.has(step.hit.id)) result.duplicates++; // a repeat inside the batch
    else {
      seen.add(step.hit.id);
      fresh.push(step);
    }
  }
  const stored = fresh.length ? await store(deps.kv, fresh) : [];
  result.accepted = stored.length;
  result.duplicates += fresh.length - stored.length;
  return result;
}
