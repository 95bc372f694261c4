/**
 * The raw tail of one environment (records not compacted yet) read whole, with what identifies this read:
 * each record's id and the versionstamp of the commit that wrote it, in key order. Two reads with the same
 * identity hold the same records, so what was built from the first (a question's batch) serves the second
 * without building it again. Unreadable records are quarantined as every raw listing does (readable.ts).
 */
import { rawEvents, rawHits, type RawWhere } from "./readable.ts";
import type { StoredEvent, StoredHit } from "./records.ts";

export interface RawTail<R> {
  records: R[];
  /** per record, in key order: its versionstamp and id (a rewrite or a delete changes this) */
  stamps: string[];
}

export async function readEventTail(kv: Deno.Kv, w: RawWhere): Promise<RawTail<StoredEvent>> {
  const records: StoredEvent[] = [], stamps: string[] = [];
  for await (const e of rawEvents(kv, w)) {
    records.push(e.value);
    stamps.push(e.versionstamp + e.value.id);
  }
  return { records, stamps };
}

export async function readHitTail(kv: Deno.Kv, w: RawWhere): Promise<RawTail<StoredHit>> {
  const records: StoredHit[] = [], stamps: string[] = [];
  for await (const e of rawHits(kv, w)) {
    records.push(e.value);
    stamps.push(e.versionstamp + e.value.id);
  }
  return { records, stamps };
}

/** True when both reads hold the same records. */
export function sameRecords(a: RawTail<unknown>, b: RawTail<unknown>): boolean {
  if (a.stamps.length !== b.stamps.length) return false;
  for (let i = 0; i < a.stamps.length; i++) if (a.stamps[i] !== b.stamps[i]) return false;
  return true;
}
