/**
 * The web-event pipeline: validate (the route, by schema; here, size) → attribute (the target) → enrich →
 * dedupe → store, in groups with their dedupe keys (lib/ingest/commit_group.ts).
 */
import type { AppContext } from "../context.ts";
import { DAY } from "../clock.ts";
import { invalid } from "../errors.ts";
import { keys } from "../store/keys.ts";
import type { EnvName, Org, StoredEvent, Touchpoint, VerificationRecord } from "../store/records.ts";
import type { BehaviorEventInput } from "../schemas/events.ts";
import { enrichEvent } from "./enrich_event.ts";
import { packEvent } from "../store/event_codec.ts";
import { gapsInBatch } from "../enrich/sequence.ts";
import { type GroupRecord, storeGroups } from "./commit_group.ts";
import { catalogEntry } from "../crawl/classify.ts";
import { hasCheck } from "../crawl/verify.ts";

/** Web events are deduplicated for 35 days (hits for 8: their age limit is 7 days). */
export const WEB_DEDUPE_MS = 35 * DAY;
/** Events per atomic commit: each needs 1 check and 2 mutations, plus one address record per group. */
export const CHUNK = 25;
/** KV holds at most 64 KiB in one value; an event (as sent) must stay under this. */
export const MAX_EVENT_BYTES = 60_000;

export interface WebTarget {
  org: Org;
  touchpoint: Touchpoint;
  env: EnvName;
}

export interface Arrival {
  receivedAt: number;
  ip: string | null; // canonical form (lib/client_address.ts)
  userAgent: string | null;
}

export interface IngestResult {
  stored: number;
  duplicates: number;
}

/** 422 naming the first event too large to store; a retry could never succeed. */
export function checkEventSizes(events: BehaviorEventInput[]): number[] {
  return events.map((e, i) => {
    const bytes = JSON.stringify(e).length;
    if (bytes > MAX_EVENT_BYTES) {
      throw invalid(
        `batch[${i}]: event is ${bytes} bytes; at most ${MAX_EVENT_BYTES} (properties, context and fingerprint together)`,
      );
    }
    return bytes;
  });
}

/** Automated visitors are checked like crawler hits: now as unverifiable, or later through the queue. */
function verificationOf(
  ev: StoredEvent,
  hasIp: boolean,
  now: number,
): Pick<GroupRecord, "verifyToken" | "outcome"> {
  if (ev.traffic === "human") return { verifyToken: null, outcome: null };
  const entry = catalogEntry(ev.crawler ?? "unknown");
  if (hasIp && hasCheck(entry)) return { verifyToken: ev.crawler, outcome: null };
  const outcome: VerificationRecord = {
    outcome: "unverifiable",
    method: "none",
    reason: !hasIp ? "no address" : entry ? "vendor documents no check" : "unknown vendor",
    checked_at: now,
  };
  return { verifyToken: null, outcome };
}

export async function ingestWebEvents(
  ctx: AppContext,
  target: WebTarget,
  events: BehaviorEventInput[],
  arrival: Arrival,
): Promise<IngestResult> {
  const { kv, geo } = ctx.deps;
  const sizes = checkEventSizes(events);
  // Repeats inside the batch are stored once: the first occurrence wins.
  const seen = new Set<string>();
  const unique = events.map((e, i) => ({ e, bytes: sizes[i] }))
    .filter(({ e }) => !seen.has(e.event_id) && seen.add(e.event_id));
  const gaps = gapsInBatch(unique.map(({ e }) => e));
  const geoInfo = arrival.ip
    ? geo.lookup(arrival.ip)
    : { country: null, city: null, asn: null, as_org: null };
  const records = unique.map(({ e, bytes }, i): GroupRecord => {
    const ev = enrichEvent(e, target, arrival, geoInfo, gaps[i]);
    return {
      org: ev.org,
      id: ev.id,
      receivedAt: ev.received_at,
      key: keys.rawEvent(ev.org, ev.env, ev.received_at, ev.id),
      value: packEvent(ev),
      bytes: bytes + 500, // the derived fields, packed
      dedupeMs: WEB_DEDUPE_MS,
      ip: arrival.ip,
      ...verificationOf(ev, arrival.ip !== null, arrival.receivedAt),
    };
  });
  const stored = await storeGroups(kv, records, CHUNK);
  return { stored: stored.length, duplicates: events.length - stored.length };
}
