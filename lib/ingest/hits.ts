/**
 * The crawler-hit pipeline, one hit at a time: validate → attribute → enrich → dedupe → store.
 * An expected rejection is data ({ rejected: "invalid" }), never an exception, so a bad hit never fails the
 * batch and accepted + duplicates + sum(rejected) always equals the number of events sent.
 * Each hit is written with its dedupe key in one atomic commit (chunked within KV's limits); when a chunk's
 * check fails (a retry) the hits already stored are left out, and if it fails again (a concurrent identical
 * batch) the rest are committed one by one, so each is stored exactly once and a retried batch is safe.
 */
import { AHEAD_ALLOWED_MS, DAY } from "../clock.ts";
import type { Deps } from "../deps.ts";
import { keys } from "../store/keys.ts";
import type { EnvName, StoredHit, Touchpoint, VerificationRecord } from "../store/records.ts";
import { CrawlEvent, UA_MAX } from "../schemas/server_events.ts";
import { hostAllowedFor, isWellFormedHost, normalizeHost } from "../tenancy/domains.ts";
import { catalogEntry, classifyAgent } from "../crawl/classify.ts";
import { isCrawled, siteFileOf } from "../crawl/paths.ts";
import { hitPath } from "../url_path.ts";
import { canonicalIp } from "../enrich/ip.ts";
import { truncate } from "../text.ts";
import { type GroupRecord, storeGroups } from "../store/commit_group.ts";
import { hasCheck, type Verifier } from "../crawl/verify.ts";
import { notPublicReason } from "../crawl/public_address.ts";
import { IP_RETENTION_MS } from "../store/address_retention.ts";
import type { WriteContext } from "./context.ts";

/** Hits are deduplicated for 8 days: their age limit is 7. */
export const HIT_DEDUPE_MS = 8 * DAY;
export const MAX_AGE_MS = 7 * DAY;
/** A timestamp further ahead (after the sent_at correction) is replaced by the receive time. */
export const MAX_AHEAD_MS = AHEAD_ALLOWED_MS;
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
  /** how long a stored hit's dedupe key lives; HIT_DEDUPE_MS unless the history import says otherwise */
  dedupeMs?: number;
}

interface PreparedHit {
  hit: StoredHit;
  ip: string | null;
  /** an outcome with its reason known at arrival (a non-public address) */
  outcome?: VerificationRecord;
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

/**
 * Past this, a sent_at is not a clock's difference (a misset clock or zone is hours off) but a stored
 * request sent again later: by a durable retry queue, a replaying proxy, a log shipper catching up. Taken
 * as an offset, it would move that request's hits to "now", past the 7-day age check, after their dedupe
 * keys (8 days) expired: stored twice. Ignored, the hits keep their own times and age out as they should.
 */
export const MAX_CLOCK_OFFSET_MS = 86_400_000;

/**
 * The sender's clock offset from sent_at (sender minus ours); an absent or unreadable sent_at, or one more
 * than a day from our clock (MAX_CLOCK_OFFSET_MS), means none.
 */
export function clockOffset(sentAt: unknown, receivedAt: number): number {
  if (typeof sentAt !== "string") return 0;
  const ms = Date.parse(sentAt);
  if (!Number.isFinite(ms) || Math.abs(ms - receivedAt) > MAX_CLOCK_OFFSET_MS) return 0;
  return ms - receivedAt;
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

/**
 * An address in the vendor's published list is verified at arrival, in memory (the lists the queue's first
 * step uses, no DNS); the hit's own record says so, as for unverifiable hits. Only the others wait for the
 * queue. Measured (bench/crawl.ts): the queue round per group, mostly its per-hit outcome writes, cost
 * about as much KV time as the ingest commit. `verifier` is null when the lists could not be synced.
 */
function prepare(deps: Deps, t: HitTarget, raw: unknown, verifier: Verifier | null): Step {
  // validate
  const parsed = CrawlEvent.safeParse(raw);
  if (!parsed.success) return { rejected: "invalid" };
  const e = parsed.data;
  const timestamp = hitTime(e.timestamp, t);
  if (timestamp === null) return { rejected: "invalid" };
  // attribute
  // "*.acme.test", "a..acme.test", a bad port: malformed (an empty host names no host: unknown_host below)
  if (e.host.trim() !== "" && !isWellFormedHost(e.host)) return { rejected: "invalid" };
  const host = normalizeHost(e.host);
  if (host === "" || !hostAllowedFor(t.touchpoints, host, t.touchpoint, t.env)) {
    return { rejected: "unknown_host" };
  }
  const userAgent = truncate(e.user_agent, UA_MAX);
  const verdict = classifyAgent(userAgent);
  if (verdict.outcome === "human") return { rejected: "not_crawler" }; // a person: its address is never stored
  const agent = verdict.agent!; // a catalog crawler, or other automation: token "unknown", category "other"
  // enrich
  const address = canonicalIp(e.ip); // one stored form: reverse DNS and list matching depend on it
  // An address is kept 30 days from its hit: an older one (the history import) is used for geo only.
  const ip = address !== null && timestamp > deps.clock.now() - IP_RETENTION_MS ? address : null;
  const method = (e.method ?? "GET").toUpperCase();
  const status = e.status ?? null;
  const path = hitPath(e.path); // one form with visitors' pages: "/café" and "/caf%c3%a9" are "/caf%C3%A9"
  const siteFile = siteFileOf(path);
  // A private or loopback address is the sender's proxy, not the crawler: as good as none, never spoofed.
  const notPublic = notPublicReason(ip);
  const checkable = ip !== null && !notPublic && hasCheck(catalogEntry(agent.token));
  const listed = checkable && verifier?.listedOutcome(agent.token, ip) != null;
  return {
    ip,
    ...(notPublic
      ? {
        outcome: { outcome: "unverifiable", method: "none", reason: notPublic, checked_at: deps.clock.now() },
      }
      : {}),
    hit: {
      v: 1,
      id: e.event_id, // lowercased by the schema (lib/schemas/server_events.ts)
      org: t.org,
      touchpoint: t.touchpoint,
      env: t.env,
      received_at: t.receivedAt,
      timestamp,
      host,
      path,
      method,
      status,
      user_agent: userAgent,
      referer_host: refererHostOf(e.referer_host),
      crawler: agent.token,
      vendor: agent.vendor,
      category: agent.category,
      site_file: siteFile,
      crawled: isCrawled(siteFile, method, status),
      geo: address ? deps.geo.lookup(address) : { country: null, city: null, asn: null, as_org: null },
      verification: listed ? "verified" : checkable ? "pending" : "unverifiable",
      via: "server",
    },
  };
}

/** A prepared hit as the shared group commit stores it (lib/store/commit_group.ts). */
function groupRecord({ hit, ip, outcome }: PreparedHit, dedupeMs: number, storedAt: number): GroupRecord {
  return {
    org: hit.org,
    id: hit.id,
    receivedAt: hit.received_at,
    key: keys.rawHit(hit.org, hit.env, hit.received_at, hit.id),
    value: hit,
    // an upper bound: every field is length-limited, and a character takes at most two bytes
    bytes: 1_000 + 2 * (hit.user_agent.length + hit.path.length + hit.host.length),
    dedupeMs,
    ip,
    storedAt,
    at: hit.timestamp, // its address is kept 30 days from the hit's own time
    verifyToken: hit.verification === "pending" ? hit.crawler : null,
    // hits verified or unverifiable at arrival say so in their own record; a non-public address also says why
    outcome: outcome ?? null,
  };
}

export async function ingestHits(
  ctx: WriteContext,
  t: HitTarget,
  events: unknown[],
): Promise<HitsResult> {
  const { deps, committer, verifier: shared } = ctx;
  const result: HitsResult = {
    accepted: 0,
    duplicates: 0,
    rejected: { invalid: 0, unknown_host: 0, not_crawler: 0 },
  };
  const verifier = await shared.ranges.syncFromKv(deps.kv, deps.clock.now()).then(() => shared, () => null);
  const seen = new Set<string>();
  const fresh: PreparedHit[] = [];
  for (const raw of events) {
    const step = prepare(deps, t, raw, verifier);
    if ("rejected" in step) result.rejected[step.rejected]++;
    else if (seen.has(step.hit.id)) result.duplicates++; // a repeat inside the batch
    else {
      seen.add(step.hit.id);
      fresh.push(step);
    }
  }
  const stored = fresh.length
    ? await storeGroups(
      committer,
      fresh.map((h) => groupRecord(h, t.dedupeMs ?? HIT_DEDUPE_MS, deps.clock.now())),
      HIT_CHUNK,
    )
    : [];
  result.accepted = stored.length;
  result.duplicates += fresh.length - stored.length;
  return result;
}
