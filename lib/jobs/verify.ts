/**
 * Crawler verification after the response. Ingest writes a pending marker (keys.verifyPending: one per group
 * of hits committed together, or one per automated web visitor) in the commit that stores the records. The
 * cron sweep (sweepPendingVerifications, every minute) verifies every marker older than SWEEP_MIN_AGE_MS, so
 * verification completes within 2 minutes with no queue at all (KV Connect has none; Deploy may not). Where
 * the KV has queues, a message sent after the commit has the worker (handleVerifyMessage) do it at once.
 * Either verifies the marker's hits, stores each outcome under keys.verification and deletes the marker.
 * Every step is idempotent: an outcome already stored is never redone.
 * The marker and its message: lib/store/pending_verification.ts. The schedule: lib/jobs/schedule.ts.
 *
 * The verifier (published lists, DNS answers) is the process's one, built by createContext (lib/context.ts)
 * and handed in with deps (`VerifyContext`; an AppContext is one).
 */
import type { Deps } from "../deps.ts";
import { MINUTE } from "../clock.ts";
import { keys } from "../store/keys.ts";
import { readMany } from "../store/read_many.ts";
import type { VerificationRecord } from "../store/records.ts";
import {
  addPendingVerification,
  isVerifyMessage,
  nudgeVerification,
  type PendingMarker,
  type VerifyQueue,
} from "../store/pending_verification.ts";
import { arrivalVerification, NotYetJudged, type Verifier } from "../crawl/verify.ts";
import { type RefreshOutcome, refreshRanges } from "../crawl/ranges/registry.ts";

/** A check that keeps failing (DNS down) is given up after a day. */
export const GIVE_UP_MS = 24 * 60 * MINUTE;
/**
 * A hit whose DNS answers stay empty (no PTR name, or the vendor's name resolving to nothing) is judged
 * spoofed only after this long: a resolver failing with SERVFAIL or REFUSED reaches Deno as the same empty
 * answer, and judging on it would have called real crawlers spoofed (each sweep asks again meanwhile).
 */
export const EMPTY_DNS_SETTLE_MS = 30 * MINUTE;
/**
 * The sweep leaves markers younger than this to the queue (where there is one). With the sweep every minute,
 * a marker is verified at most ~90 s after its commit, plus the time its checks take.
 */
export const SWEEP_MIN_AGE_MS = 30_000;

/** What verification uses: the outside world and the process's verifier. */
export interface VerifyContext {
  deps: Deps;
  verifier: Verifier;
}

/**
 * For the web-event pipeline: verify an automated visitor seen through the SDK, the same way as a crawler
 * hit. Call after the event (and its address under keys.ip) is stored. Without an address, with a non-public
 * one, or for an agent whose vendor documents no check, the outcome is stored at once as unverifiable.
 */
export async function enqueueVerification(
  { deps, verifyQueue }: { deps: Deps; verifyQueue: VerifyQueue },
  v: { org: string; eventId: string; token: string; receivedAt: number; ip: string | null },
): Promise<void> {
  const { verifyToken, outcome } = arrivalVerification(v.token, v.ip, deps.clock.now());
  if (outcome) {
    await deps.kv.set(keys.verification(v.org, v.eventId), outcome);
    return;
  }
  const op = deps.kv.atomic();
  addPendingVerification(op, v.eventId, {
    org: v.org,
    receivedAt: v.receivedAt,
    grouped: false,
    hits: [[v.eventId, verifyToken!]],
  });
  if ((await op.commit()).ok) nudgeVerification(verifyQueue, v.org, v.eventId);
}

const addressIn = (v: { ip?: unknown } | string | null) =>
  typeof v === "string" ? v : typeof v?.ip === "string" ? v.ip : null;

async function addressesOf(kv: Deno.Kv, id: string, m: PendingMarker, eventIds: string[]) {
  if (m.grouped) {
    const rec =
      (await kv.get<{ ips?: Record<string, string> }>(keys.ipGroup(m.addressAt ?? m.receivedAt, m.org, id)))
        .value;
    return eventIds.map((e) => rec?.ips?.[e] ?? null);
  }
  const own = await readMany<{ ip?: unknown } | string>(
    kv,
    eventIds.map((e) => keys.ip(m.receivedAt, m.org, e)),
  );
  return own.map((e) => addressIn(e.value));
}

/**
 * Hits of a marker that are not judged yet (a DNS failure, or an empty answer still waited on): the marker
 * was rewritten with only them; `stored` are the outcomes of its other hits, stored in the same commit.
 */
export class MarkerPartlyPending extends Error {
  constructor(readonly stored: VerificationRecord[], readonly waiting: number, readonly reason: unknown) {
    super(`${waiting} hit(s) not judged yet: ${String(reason)}`);
  }
}

/**
 * Verifies the hits of one pending marker and stores their outcomes in one commit with the marker: deleted
 * when every hit is judged, else rewritten with the hits still waiting (each hit is judged on its own: one
 * address without a PTR name must not hold back the batch's other crawlers), and then `MarkerPartlyPending`
 * is thrown so the queue and the sweep come back. A marker already handled (deleted) is a no-op; two workers
 * on one marker store once (the commit checks the marker is unchanged). Returns the outcomes stored now.
 */
export async function verifyMarker(
  { deps, verifier }: VerifyContext,
  org: string,
  id: string,
): Promise<VerificationRecord[]> {
  const { kv } = deps;
  const entry = await kv.get<PendingMarker>(keys.verifyPending(org, id));
  const m = entry.value;
  if (!m) return [];
  // outcomes are stored in the same commit that deletes or rewrites the marker
  const todo = m.hits;
  const addrs = await addressesOf(kv, id, m, todo.map(([e]) => e));
  const now = deps.clock.now();
  const settled = await Promise.allSettled(todo.map(async ([, token], j) => ({
    ...await verifier.verify(token, addrs[j]),
    checked_at: deps.clock.now(),
  } as VerificationRecord)));
  const judged: [string, VerificationRecord][] = [];
  const waiting: PendingMarker["hits"] = [];
  let reason: unknown = null;
  settled.forEach((r, j) => {
    const [eventId] = todo[j];
    if (r.status === "fulfilled") return void judged.push([eventId, r.value]);
    const err = r.reason;
    if (err instanceof NotYetJudged && now - m.receivedAt >= EMPTY_DNS_SETTLE_MS) {
      // empty DNS answers that have lasted are the judgement they would have been
      const minutes = EMPTY_DNS_SETTLE_MS / MINUTE;
      return void judged.push([eventId, {
        ...err.outcome,
        reason: `${err.outcome.reason} (for ${minutes} minutes)`,
        checked_at: now,
      }]);
    }
    // DNS did not answer (or answered empty): asked again by the queue and the sweep; after a day given up
    if (now - m.receivedAt < GIVE_UP_MS) {
      waiting.push(todo[j]);
      // a real DNS failure is what the sweep warns about; an empty answer is only waited on
      if (reason === null || reason instanceof NotYetJudged) reason = err;
      return;
    }
    judged.push([eventId, {
      outcome: "unverifiable",
      method: "none",
      reason: "lookups failed for a day",
      checked_at: now,
    }]);
  });
  const op = kv.atomic().check(entry);
  if (waiting.length) op.set(keys.verifyPending(org, id), { ...m, hits: waiting });
  else op.delete(keys.verifyPending(org, id));
  for (const [e, record] of judged) op.set(keys.verification(org, e), record);
  const res = await op.commit(); // fails only when another worker handled the marker meanwhile
  const stored = res.ok ? judged.map(([, record]) => record) : [];
  if (res.ok && waiting.length) throw new MarkerPartlyPending(stored, waiting.length, reason);
  return stored;
}

/** The queue worker's body. Returns false for messages of other kinds. Throws to have the queue retry. */
export async function handleVerifyMessage(ctx: VerifyContext, msg: unknown): Promise<boolean> {
  if (!isVerifyMessage(msg)) return false;
  await verifyMarker(ctx, msg.org, msg.marker);
  return true;
}

/** The cron sweep: verifies markers older than minAgeMs (their message was lost or failed). */
export async function sweepPendingVerifications(
  ctx: VerifyContext,
  opts: { minAgeMs?: number; limit?: number } = {},
): Promise<{ verified: number; failed: number }> {
  const { deps } = ctx;
  const minAge = opts.minAgeMs ?? SWEEP_MIN_AGE_MS;
  const now = deps.clock.now();
  const due: [string, string][] = [];
  for await (
    const e of deps.kv.list<PendingMarker>({ prefix: keys.verifyPendingAll() }, {
      limit: opts.limit ?? 2_000,
    })
  ) {
    if (now - e.value.receivedAt >= minAge) due.push([e.key[1] as string, e.key[2] as string]);
  }
  let verified = 0, failed = 0;
  for (const [org, id] of due) {
    try {
      verified += (await verifyMarker(ctx, org, id)).length;
    } catch (err) {
      failed++; // a marker with hits not judged yet (it stays for the next sweep)
      if (err instanceof MarkerPartlyPending) verified += err.stored.length;
      // an answer still empty is waited on, not a failure to warn about
      const cause = err instanceof MarkerPartlyPending ? err.reason : err;
      if (!(cause instanceof NotYetJudged)) {
        deps.log.warn("pending verification failed; retried at the next sweep", {
          org,
          error: String(cause),
        });
      }
    }
  }
  return { verified, failed };
}

/** The daily refresh of the published IP lists (vendor and CDN edge lists). */
export function refreshIpLists({ deps, verifier }: VerifyContext): Promise<RefreshOutcome[]> {
  return refreshRanges(deps, verifier.ranges);
}
