/**
 * The web-event pipeline: validate (the route, by schema; here, size) → attribute (the target) → enrich →
 * dedupe → store, in groups with their dedupe keys (lib/store/commit_group.ts).
 */
import { DAY } from "../clock.ts";
import { invalid } from "../errors.ts";
import { keys } from "../store/keys.ts";
import type { StoredEvent } from "../store/records.ts";
import type { BehaviorEventInput } from "../schemas/events.ts";
import { type Arrival, enrichEvent, type WebTarget } from "./enrich_event.ts";
import { packEvent } from "../store/event_codec.ts";
import { gapsInBatch } from "../enrich/sequence.ts";
import { type GroupRecord, RECORD_OVERHEAD_BYTES, storeGroups } from "../store/commit_group.ts";
import { storedBytes } from "../store/stored_size.ts";
import { arrivalVerification } from "../crawl/verify.ts";
import { IP_RETENTION_MS } from "../store/address_retention.ts";
import type { WriteContext } from "./context.ts";
import { sampleRateOf } from "./sampled.ts";

/** Web events are deduplicated for 35 days (hits for 8: their age limit is 7 days). */
export const WEB_DEDUPE_MS = 35 * DAY;
/** Events per atomic commit: each needs 1 check and 2 mutations, plus one address record per group. */
export const CHUNK = 25;
/** KV holds at most 65,536 bytes in one value; an event as stored (enriched, packed) must stay under this. */
export const MAX_EVENT_BYTES = 65_000;

export interface IngestResult {
  stored: number;
  duplicates: number;
}

/** Why an event cannot be stored, ever: a retry could never succeed, so it is a 422, not a 500. */
export function tooLargeMessage(bytes: number): string {
  return `event takes ${bytes} bytes as stored; at most ${MAX_EVENT_BYTES} (properties, context and ` +
    "fingerprint together; a text with any character past U+00FF takes two bytes a character)";
}

/** Automated visitors are checked like crawler hits: now as unverifiable, or later through the queue. */
function verificationOf(
  ev: StoredEvent,
  ip: string | null,
  now: number,
): Pick<GroupRecord, "verifyToken" | "outcome"> {
  if (ev.traffic === "human") return { verifyToken: null, outcome: null };
  return arrivalVerification(ev.crawler, ip, now);
}

/**
 * Stores a batch. An event too large to store makes the whole batch a 422 naming it, before anything is
 * stored; with `onTooLarge` (the history import) that event is reported by its index and the rest stored.
 */
export async function ingestWebEvents(
  ctx: WriteContext,
  target: WebTarget,
  events: BehaviorEventInput[],
  arrival: Arrival,
  onTooLarge?: (index: number, bytes: number) => void,
): Promise<IngestResult> {
  const { deps, committer } = ctx;
  const { geo } = deps;
  // Repeats inside the batch are stored once: the first occurrence wins.
  const seen = new Set<string>();
  const unique = events.map((e, index) => ({ e, index }))
    .filter(({ e }) => {
      return !seen.has(e.event_id) && seen.add(e.event_id); // lowercased by the schema
    });
  const gaps = gapsInBatch(unique.map(({ e }) => e));
  const geoInfo = arrival.ip
    ? geo.lookup(arrival.ip)
    : { country: null, city: null, asn: null, as_org: null };
  // an address is kept 30 days from its event: one already older (the history import) is used for geo only
  const now = deps.clock.now();
  const ip = arrival.ip !== null && arrival.receivedAt > now - IP_RETENTION_MS ? arrival.ip : null;
  const records: GroupRecord[] = [];
  let tooLarge = 0;
  unique.forEach(({ e, index }, i) => {
    const ev = enrichEvent(e, target, arrival, geoInfo, gaps[i]);
    const value = packEvent(ev);
    const bytes = storedBytes(value);
    if (bytes > MAX_EVENT_BYTES) {
      if (!onTooLarge) throw invalid(`batch[${index}]: ${tooLargeMessage(bytes)}`);
      onTooLarge(index, bytes);
      tooLarge++;
      return;
    }
    records.push({
      org: ev.org,
      id: ev.id,
      receivedAt: ev.received_at,
      key: keys.rawEvent(ev.org, ev.env, ev.received_at, ev.id),
      value,
      bytes: bytes + RECORD_OVERHEAD_BYTES,
      dedupeMs: target.dedupeMs ?? WEB_DEDUPE_MS,
      ip,
      storedAt: now,
      ...verificationOf(ev, ip, arrival.receivedAt),
    });
  });
  const stored = await storeGroups(committer, records, CHUNK);
  // events the SDK sampled: answers about this touchpoint over their days say counts are of the events sent
  // (one note a batch)
  const rate = Math.min(...unique.map(({ e }) => sampleRateOf(e.context) ?? 1));
  if (rate < 1 && stored.length) {
    await ctx.sampled.note(target.org.id, target.env, arrival.receivedAt, rate, target.touchpoint.id);
  }
  return { stored: stored.length, duplicates: events.length - tooLarge - stored.length };
}
