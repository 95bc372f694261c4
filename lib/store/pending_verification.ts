/**
 * The pending-verification marker: what ingest leaves, in the commit that stores the records, for the
 * crawler-verification job (lib/jobs/verify.ts) to pick up. A marker names the hits to check; their addresses
 * stay under keys.ip / keys.ipGroup, never in a marker or a queue message.
 * No commit depends on a queue: the cron sweep finds every marker; a queue message sent after the commit
 * (where the KV offers queues: not KV Connect, maybe not Deploy) only makes it quicker.
 */
import { keys } from "./keys.ts";

export const VERIFY_KIND = "crawl.verify";

/**
 * What waits for verification. `grouped`: crawler hits whose addresses sit in one keys.ipGroup record named
 * like the marker; otherwise a web visitor whose address sits under keys.ip of its own event.
 */
export interface PendingMarker {
  org: string;
  receivedAt: number; // ms; locates the address records
  /** a group's address record time when it is not receivedAt (its oldest hit's: lib/store/commit_group.ts) */
  addressAt?: number;
  grouped: boolean;
  hits: [eventId: string, token: string][];
}

/** Messages carry { kind: "crawl.verify" } so one listenQueue can serve several job kinds. */
export interface VerifyMessage {
  kind: typeof VERIFY_KIND;
  org: string;
  marker: string;
}

export function isVerifyMessage(msg: unknown): msg is VerifyMessage {
  const m = msg as Partial<VerifyMessage> | null;
  return !!m && m.kind === VERIFY_KIND && typeof m.org === "string" && typeof m.marker === "string";
}

/** Adds a marker to a commit. Once the commit has landed, `nudgeVerification` may hurry it along. */
export function addPendingVerification(op: Deno.AtomicOperation, id: string, marker: PendingMarker): void {
  op.set(keys.verifyPending(marker.org, id), marker);
}

/**
 * Whether this process still asks its store's queue. A store seen refusing queues ("Enqueue operations are
 * not supported in KV Connect"), or one told not to (KV_QUEUE=off), is not asked again. createContext
 * (lib/context.ts) makes the process's one; the group committer and the verification jobs are handed it.
 */
export class VerifyQueue {
  /** set once: nothing turns the queue back on in a running process */
  off = false;
  constructor(readonly kv: Deno.Kv) {}
}

/** Never ask this store's queue (KV_QUEUE=off): the sweeps do all the work. */
export function useNoQueue(queue: VerifyQueue): void {
  queue.off = true;
}

/**
 * Asks the queue to verify a committed marker now, without waiting for it: a speed-up only. A store without
 * queues is remembered and never asked again; any other failure leaves the marker to the sweep.
 */
export function nudgeVerification(queue: VerifyQueue, org: string, id: string): void {
  if (queue.off) return;
  try {
    queue.kv.enqueue({ kind: VERIFY_KIND, org, marker: id } satisfies VerifyMessage)
      .catch((e) => refused(queue, e));
  } catch (e) {
    refused(queue, e);
  }
}

function refused(queue: VerifyQueue, e: unknown) {
  if (/not supported/i.test(String((e as Error)?.message ?? e))) queue.off = true;
}
