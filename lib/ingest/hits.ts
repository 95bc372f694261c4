/**
 * The crawler-hit pipeline, one hit at a time: validate → attribute → enrich → dedupe → store.
 * An expected rejection is data ({ rejected: "invalid" }), never an exception, so a bad hit never fails the
 * batch and accepted + duplicates + sum(rejected) always equals the number of events sent.
 * Each hit is written with its dedupe key in one atomic commit (chunked within KV's limits); when a chunk's
 * check fails (a repeat, or a concurrent identical batch) its hits are committed one by one, so each is
 * stored exactly once and a retried batch is safe.
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
import { enqueueHitVerifications, type PendingVerification } from "../jobs/verify.ts";
import { IP_RETENTION_MS } from "./web.ts";

/** Hits are deduplicated for 8 days: their age limit is 7. */
export const HIT_DEDUPE_MS = 8 * DAY;
export const MAX_AGE_MS = 7 * DAY;
export const MAX_AHEAD_MS = 5 * MINUTE;
/** Hits per atomic commit: each needs 1 check and up to 4 mutations, well inside KV's limits. */
export const HIT_CHUNK = 25;

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

/** Adds one hit to an atomic operation: only if its dedupe key is absent, with that key, its address and its pending check. */
function addHit(op: Deno.AtomicOperation, { hit, ip }: PreparedHit): Deno.AtomicOperation {
  op.check({ key: keys.dedupe(hit.org, hit.id), versionstamp: null })
    .set(keys.dedupe(hit.org, hit.id), hit.received_at, { expireIn: HIT_DEDUPE_MS })
    .set(keys.rawHit(hit.org, hit.env, hit.received_at, hit.id), hit);
  if (ip) {
    op.set(keys.ip(hit.received_at, hit.org, hit.id), { ip, at: hit.received_at }, {
      expireIn: IP_RETENTION_MS,
    });
  }
  if (hit.verification === "pending") op.set(keys.verifyPending(hit.org, hit.id), pendingOf(hit));
  return op;
}

const pendingOf = (hit: StoredHit): PendingVerification => ({
  org: hit.org,
  eventId: hit.id,
  token: hit.crawler,
  receivedAt: hit.received_at,
});

/** Stores prepared hits; returns those newly stored (the rest were already there). */
async function store(kv: Deno.Kv, hits: PreparedHit[]): Promise<PreparedHit[]> {
  const stored: PreparedHit[] = [];
  for (let i = 0; i < hits.length; i += HIT_CHUNK) {
    const chunk = hits.slice(i, i + HIT_CHUNK);
    const op = kv.atomic();
    for (const h of chunk) addHit(op, h);
    if ((await op.commit()).ok) {
      stored.push(...chunk);
      continue;
    }
    // some hit of the chunk is already stored: commit one by one, each only if still absent
    for (const h of chunk) if ((await addHit(kv.atomic(), h).commit()).ok) stored.push(h);
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
  const pending = stored.filter((s) => s.hit.verification === "pending").map((s) => pendingOf(s.hit));
  if (pending.length) await enqueueHitVerifications(deps, pending);
  return result;
}
