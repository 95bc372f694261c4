/**
 * Crawler verification after the response. Ingest stores a pending marker (keys.verifyPending) with each hit
 * that can be checked and enqueues its work; the queue worker (handleVerifyMessage) verifies and stores the
 * outcome under keys.verification; the cron sweep (sweepPendingVerifications) picks up anything whose message
 * was lost. Every step is idempotent: an outcome already stored is never redone.
 * Queue messages carry { kind: "crawl.verify" } so one listenQueue can serve several job kinds.
 */
import type { Deps } from "../deps.ts";
import { MINUTE } from "../clock.ts";
import { keys } from "../store/keys.ts";
import type { VerificationRecord } from "../store/records.ts";
import { catalogEntry } from "../crawl/classify.ts";
import { hasCheck, verifierFor } from "../crawl/verify.ts";
import { type RefreshOutcome, refreshRanges } from "../crawl/ranges/registry.ts";

export const VERIFY_KIND = "crawl.verify";
/** Items per queue message: well under the 64 KiB message limit. */
const ITEMS_PER_MESSAGE = 100;
/** The sweep leaves fresh markers to the queue. */
export const SWEEP_MIN_AGE_MS = 5 * MINUTE;

/** One hit (or automated web visitor) to verify; the address is read from keys.ip, never carried here. */
export interface PendingVerification {
  org: string;
  eventId: string;
  token: string; // catalog token
  receivedAt: number; // ms; locates the address key
}

export interface VerifyMessage {
  kind: typeof VERIFY_KIND;
  items: PendingVerification[];
}

export function isVerifyMessage(msg: unknown): msg is VerifyMessage {
  return !!msg && typeof msg === "object" && (msg as { kind?: unknown }).kind === VERIFY_KIND &&
    Array.isArray((msg as { items?: unknown }).items);
}

/** Enqueues verification of stored hits whose pending markers are already written. A lost message is swept. */
export async function enqueueHitVerifications(deps: Deps, items: PendingVerification[]): Promise<void> {
  for (let i = 0; i < items.length; i += ITEMS_PER_MESSAGE) {
    const msg: VerifyMessage = { kind: VERIFY_KIND, items: items.slice(i, i + ITEMS_PER_MESSAGE) };
    try {
      await deps.kv.enqueue(msg);
    } catch (err) {
      deps.log.warn("verification enqueue failed; the sweep will pick the hits up", { error: String(err) });
    }
  }
}

/**
 * For the web-event pipeline: verify an automated visitor seen through the SDK, the same way as a crawler hit.
 * Call after the event (and its address under keys.ip) is stored. Without an address, or for a crawler
 * whose vendor documents no check, the outcome is stored at once as unverifiable.
 */
export async function enqueueVerification(
  deps: Deps,
  v: PendingVerification & { hasIp: boolean },
): Promise<void> {
  const item: PendingVerification = {
    org: v.org,
    eventId: v.eventId,
    token: v.token,
    receivedAt: v.receivedAt,
  };
  if (!v.hasIp || !hasCheck(catalogEntry(v.token))) {
    const record: VerificationRecord = {
      outcome: "unverifiable",
      method: "none",
      reason: v.hasIp
        ? (catalogEntry(v.token) ? "vendor documents no check" : "unknown vendor")
        : "no address",
      checked_at: deps.clock.now(),
    };
    await deps.kv.set(keys.verification(v.org, v.eventId), record);
    return;
  }
  await deps.kv.set(keys.verifyPending(v.org, v.eventId), item);
  await enqueueHitVerifications(deps, [item]);
}

async function addressOf(kv: Deno.Kv, item: PendingVerification): Promise<string | null> {
  const v = (await kv.get<{ ip?: string } | string>(keys.ip(item.receivedAt, item.org, item.eventId))).value;
  if (typeof v === "string") return v;
  return typeof v?.ip === "string" ? v.ip : null;
}

/** Verifies one item and stores the outcome, unless one is stored already. */
export async function verifyOne(deps: Deps, item: PendingVerification): Promise<VerificationRecord> {
  const { kv } = deps;
  const done = await kv.get<VerificationRecord>(keys.verification(item.org, item.eventId));
  if (done.value) {
    await kv.delete(keys.verifyPending(item.org, item.eventId));
    return done.value;
  }
  const ip = await addressOf(kv, item);
  const outcome = await verifierFor(deps).verify(item.token, ip);
  const record: VerificationRecord = { ...outcome, checked_at: deps.clock.now() };
  await kv.atomic()
    .set(keys.verification(item.org, item.eventId), record)
    .delete(keys.verifyPending(item.org, item.eventId))
    .commit();
  return record;
}

/** The queue worker's body. Returns false for messages of other kinds. Throws to have the queue retry. */
export async function handleVerifyMessage(deps: Deps, msg: unknown): Promise<boolean> {
  if (!isVerifyMessage(msg)) return false;
  for (const item of msg.items) await verifyOne(deps, item);
  return true;
}

/** The cron sweep: verifies pending markers older than minAgeMs (their message was lost or failed). */
export async function sweepPendingVerifications(
  deps: Deps,
  opts: { minAgeMs?: number; limit?: number } = {},
): Promise<{ verified: number; failed: number }> {
  const minAge = opts.minAgeMs ?? SWEEP_MIN_AGE_MS;
  const limit = opts.limit ?? 2_000;
  const now = deps.clock.now();
  let verified = 0, failed = 0;
  for await (const e of deps.kv.list<PendingVerification>({ prefix: keys.verifyPendingAll() }, { limit })) {
    if (now - e.value.receivedAt < minAge) continue;
    try {
      await verifyOne(deps, e.value);
      verified++;
    } catch (err) {
      failed++;
      deps.log.warn("pending verification failed; retried at the next sweep", { error: String(err) });
    }
  }
  return { verified, failed };
}

/** The daily refresh of the published IP lists (vendor and CDN edge lists). */
export function refreshIpLists(deps: Deps): Promise<RefreshOutcome[]> {
  return refreshRanges(deps, verifierFor(deps).ranges);
}

/**
 * For main.ts: the queue worker plus two crons (sweep every 5 minutes, IP-list refresh daily).
 * `listen: false` when main.ts runs one listenQueue for several job kinds and calls handleVerifyMessage itself.
 */
export function startVerificationJobs(deps: Deps, opts: { listen?: boolean } = {}): void {
  if (opts.listen ?? true) {
    deps.kv.listenQueue(async (msg) => {
      if (!(await handleVerifyMessage(deps, msg))) deps.log.warn("queue message of unknown kind dropped");
    });
  }
  Deno.cron("crawler verification sweep", "*/5 * * * *", async () => {
    const r = await sweepPendingVerifications(deps);
    if (r.verified || r.failed) deps.log.info("verification sweep", r);
  });
  Deno.cron("crawler IP list refresh", "41 3 * * *", async () => {
    const r = await refreshIpLists(deps);
    deps.log.info("ip list refresh", {
      ok: r.filter((x) => x.ok).length,
      failed: r.filter((x) => !x.ok).length,
    });
  });
}
