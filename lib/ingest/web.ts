/**
 * The web-event pipeline: validate (done by the route) → attribute (the target) → enrich → dedupe → store.
 * Each event is stored with its dedupe key in the same atomic commit, so a failure at any point leaves
 * every stored event with its dedupe key and a retry of the batch safe.
 */
import type { AppContext } from "../context.ts";
import { DAY } from "../clock.ts";
import { keys } from "../store/keys.ts";
import type { EnvName, Org, StoredEvent, Touchpoint } from "../store/records.ts";
import type { BehaviorEventInput } from "../schemas/events.ts";
import { enrichEvent } from "./enrich_event.ts";
import { gapsInBatch } from "../enrich/sequence.ts";

/** Web events are deduplicated for 35 days, hits for 8 (their age limit is 7 days). */
export const WEB_DEDUPE_MS = 35 * DAY;
export const IP_RETENTION_MS = 30 * DAY;
/** Events per atomic commit: each needs 1 check and 3 mutations, well inside KV's limits. */
export const CHUNK = 25;

export interface WebTarget {
  org: Org;
  touchpoint: Touchpoint;
  env: EnvName;
}

export interface Arrival {
  receivedAt: number;
  ip: string | null;
  userAgent: string | null;
}

export interface IngestResult {
  stored: number;
  duplicates: number;
  automated: StoredEvent[]; // stored events of bots and AI agents, for crawler verification
}

/** Adds one event to an atomic operation: only if its dedupe key is absent, with that key and its address. */
function addEvent(op: Deno.AtomicOperation, ev: StoredEvent, ip: string | null): Deno.AtomicOperation {
  op.check({ key: keys.dedupe(ev.org, ev.id), versionstamp: null })
    .set(keys.dedupe(ev.org, ev.id), ev.received_at, { expireIn: WEB_DEDUPE_MS })
    .set(keys.rawEvent(ev.org, ev.env, ev.received_at, ev.id), ev);
  if (ip) {
    op.set(keys.ip(ev.received_at, ev.org, ev.id), { ip, at: ev.received_at }, { expireIn: IP_RETENTION_MS });
  }
  return op;
}

export async function ingestWebEvents(
  ctx: AppContext,
  target: WebTarget,
  events: BehaviorEventInput[],
  arrival: Arrival,
): Promise<IngestResult> {
  const { kv, geo } = ctx.deps;
  // Repeats inside the batch are stored once: the first occurrence wins.
  const seen = new Set<string>();
  const unique = events.filter((e) => !seen.has(e.event_id) && seen.add(e.event_id));
  const gaps = gapsInBatch(unique);
  const geoInfo = arrival.ip
    ? geo.lookup(arrival.ip)
    : { country: null, city: null, asn: null, as_org: null };
  const stored = unique.map((e, i) => enrichEvent(e, target, arrival, geoInfo, gaps[i]));

  let count = 0;
  const automated: StoredEvent[] = [];
  for (let i = 0; i < stored.length; i += CHUNK) {
    const chunk = stored.slice(i, i + CHUNK);
    const op = kv.atomic();
    for (const ev of chunk) addEvent(op, ev, arrival.ip);
    if ((await op.commit()).ok) {
      count += chunk.length;
      automated.push(...chunk.filter((e) => e.traffic !== "human"));
      continue;
    }
    // Some event of the chunk is already stored (a retry, or a concurrent identical request):
    // commit one by one so each is stored exactly once.
    for (const ev of chunk) {
      if ((await addEvent(kv.atomic(), ev, arrival.ip).commit()).ok) {
        count++;
        if (ev.traffic !== "human") automated.push(ev);
      }
    }
  }
  return { stored: count, duplicates: events.length - count, automated };
}
