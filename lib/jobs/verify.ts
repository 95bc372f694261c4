/**
 * Crawler verification after the response. Ingest stores a pending marker (keys.verifyPending, one per group
 * of hits committed together) and enqueues its work in the same commit; the queue worker (handleVerifyMessage) verifies and stores the
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
  /** Crawler hits are stored in groups: the group's address record and pending marker (keys.ipGroup). */
  group?: string;
}

export interface VerifyMessage {
  kind: typeof VERIFY_KIND;
  items: PendingVerification[];
}

export function isVerifyMessage(msg: unknown): msg is VerifyMessage {
  return !!msg && typeof msg === "object" && (msg as { kind?: unknown }).kind === VERIFY_KIND &&
    Array.isArray((msg as { items?: unknown }).items);
}

export const verifyMessage = (items: PendingVerification[]): VerifyMessage => ({ kind: VERIFY_KIND, items });

/** The pending marker an item belongs to: its group's (crawler hits) or its own (web visitors). */
const markerOf = (it: PendingVerification) => keys.verifyPending(it.org, it.group ?? it.eventId);

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
  // the marker and the message in one commit: a lost message is still found by the sweep
  await deps.kv.atomic().set(markerOf(item), [item]).enqueue(verifyMessage([item])).commit();
}

/** Reads many keys, 10 at a time (KV's getMany limit). */
async function readAll<T>(kv: Deno.Kv, ks: Deno.KvKey[]): Promise<(T | null)[]> {
  const out: (T | null)[] = [];
  for (let i = 0; i < ks.length; i += 10) {
    for (const e of await kv.getMany<T[]>(ks.slice(i, i + 10))) out.push(e.value);
  }
  return out;
}

const addressIn = (v: { ip?: unknown } | string | null) =>
  typeof v === "string" ? v : typeof v?.ip === "string" ? v.ip : null;

/** The addresses of items, from their own records (web visitors) or their group's record (crawler hits). */
async function addressesOf(kv: Deno.Kv, items: PendingVerification[]): Promise<(string | null)[]> {
  const own = items.filter((it) => !it.group);
  const ownAddrs = await readAll<{ ip?: unknown } | string>(
    kv,
    own.map((it) => keys.ip(it.receivedAt, it.org, it.eventId)),
  );
  const byEvent = new Map(own.map((it, j) => [it.eventId, addressIn(ownAddrs[j])]));
  const groups = [...new Map(items.filter((it) => it.group).map((it) => [it.group!, it])).values()];
  const groupRecs = await readAll<{ ips?: Record<string, string> }>(
    kv,
    groups.map((it) => keys.ipGroup(it.receivedAt, it.org, it.group!)),
  );
  const ipsOf = new Map(groups.map((it, j) => [it.group!, groupRecs[j]?.ips ?? {}]));
  return items.map((it) =>
    it.group ? ipsOf.get(it.group)?.[it.eventId] ?? null : byEvent.get(it.eventId) ?? null
  );
}

/**
 * Verifies items and stores their outcomes in one commit (at most ITEMS_PER_MESSAGE at a time), skipping
 * those already decided, and clears their pending markers. Returns the outcome of every item.
 */
export async function verifyItems(deps: Deps, items: PendingVerification[]): Promise<VerificationRecord[]> {
  const { kv } = deps;
  const out: VerificationRecord[] = [];
  for (let i = 0; i < items.length; i += ITEMS_PER_MESSAGE) {
    const group = items.slice(i, i + ITEMS_PER_MESSAGE);
    const done = await readAll<VerificationRecord>(
      kv,
      group.map((it) => keys.verification(it.org, it.eventId)),
    );
    const todo = group.filter((_, j) => !done[j]);
    const addrs = await addressesOf(kv, todo);
    const addressOf = new Map(todo.map((it, j) => [it, addrs[j]]));
    const verifier = verifierFor(deps);
    const records = await Promise.all(group.map(async (it, j) => {
      if (done[j]) return { record: done[j]!, fresh: false };
      const outcome = await verifier.verify(it.token, addressOf.get(it) ?? null);
      return { record: { ...outcome, checked_at: deps.clock.now() } as VerificationRecord, fresh: true };
    }));
    const op = kv.atomic();
    group.forEach((it, j) => {
      if (records[j].fresh) op.set(keys.verification(it.org, it.eventId), records[j].record);
    });
    for (const marker of new Map(group.map((it) => [JSON.stringify(markerOf(it)), markerOf(it)])).values()) {
      op.delete(marker);
    }
    await op.commit();
    out.push(...records.map((r) => r.record));
  }
  return out;
}

/** Verifies one item and stores the outcome, unless one is stored already. */
export async function verifyOne(deps: Deps, item: PendingVerification): Promise<VerificationRecord> {
  return (await verifyItems(deps, [item]))[0];
}

/** The queue worker's body. Returns false for messages of other kinds. Throws to have the queue retry. */
export async function handleVerifyMessage(deps: Deps, msg: unknown): Promise<boolean> {
  if (!isVerifyMessage(msg)) return false;
  await verifyItems(deps, msg.items);
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
  const due: PendingVerification[][] = [];
  for await (const e of deps.kv.list<PendingVerification[]>({ prefix: keys.verifyPendingAll() }, { limit })) {
    const items = Array.isArray(e.value) ? e.value : [e.value];
    if (items.length && now - items[0].receivedAt >= minAge) due.push(items);
  }
  let verified = 0, failed = 0;
  for (const items of due) {
    try {
      await verifyItems(deps, items);
      verified += items.length;
    } catch (err) {
      failed += items.length;
      deps.log.warn("pending verifications failed; retried at the next sweep", { error: String(err) });
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
