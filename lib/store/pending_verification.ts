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

/** KVs seen refusing queues ("Enqueue operations are not supported in KV Connect"): not asked again. */
const withoutQueues = new WeakSet<Deno.Kv>();

/** Never ask this KV's queue (KV_QUEUE=off): the sweeps do all the work. */
export function useNoQueue(kv: Deno.Kv): void {
  withoutQueues.add(kv);
}

/**
 * Asks the queue to verify a committed marker now, without waiting for it: a speed-up only. A KV without
 * queues is remembered and never asked again; any other failure leaves the marker to the sweep.
 */
export function nudgeVerification(kv: Deno.Kv, org: string, id: string): void {
  if (withoutQueues.has(kv)) return;
  try {
    kv.enqueue({ kind: VERIFY_KIND, org, marker: id } satisfies VerifyMessage)
      .catch((e) => refused(kv, e));
  } catch (e) {
    refused(kv, e);
  }
}

function refused(kv: Deno.Kv, e: unknown) {
  if (/not supported/i.test(String((e as Error)?.message ?? e))) withoutQueues.add(kv);
}
