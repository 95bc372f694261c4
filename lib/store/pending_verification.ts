/**
 * The pending-verification marker: what ingest leaves, in the commit that stores the records, for the
 * crawler-verification job (lib/jobs/verify.ts) to pick up. A marker names the hits to check; their addresses
 * stay under keys.ip / keys.ipGroup, never in a marker or a queue message.
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

/** Adds a marker and its queue message to a commit; the message is delivered only if the commit lands. */
export function addPendingVerification(op: Deno.AtomicOperation, id: string, marker: PendingMarker): void {
  op.set(keys.verifyPending(marker.org, id), marker);
  op.enqueue({ kind: VERIFY_KIND, org: marker.org, marker: id } satisfies VerifyMessage);
}
