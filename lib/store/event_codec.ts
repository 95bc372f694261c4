/**
 * How a raw web event is kept in KV: a positional array, not the StoredEvent object. Field names are ~40% of
 * an enriched event's bytes, and a KV row over ~1 KB spills into SQLite overflow pages; at ~1.0 KB as an
 * object the event store ran at half the speed it does at ~0.6 KB (bench/ingest.ts). Every read of a raw
 * event goes through `unpackEvent`, which also accepts the object form (records written before this codec).
 */
import type { GeoInfo, StoredEvent, Utm } from "./records.ts";

/** The array's first element: the layout below. A new layout gets a new number and its own branch. */
const LAYOUT = 2;

/**
 * The layout: the array holds these fields in this order after LAYOUT; `geo` and `utm` as arrays of their
 * own fields (utm null when absent). Append only: a field's place is its meaning in every stored event.
 */
const FIELDS = [
  "id",
  "org",
  "touchpoint",
  "env",
  "received_at",
  "device_time",
  "anonymous_id",
  "user_id",
  "session_id",
  "sequence_no",
  "gap_before",
  "platform",
  "event_type",
  "screen",
  "path",
  "host",
  "fingerprint",
  "element",
  "properties",
  "context",
  "geo",
  "browser",
  "os",
  "device_type",
  "referrer_host",
  "source",
  "channel",
  "utm",
  "traffic",
  "crawler",
] as const satisfies readonly Exclude<keyof StoredEvent, "v">[];
const GEO_FIELDS = ["country", "city", "asn", "as_org"] as const satisfies readonly (keyof GeoInfo)[];
const UTM_FIELDS = [
  "source",
  "medium",
  "campaign",
  "term",
  "content",
] as const satisfies readonly (keyof Utm)[];

// Every field of a StoredEvent but `v` is in FIELDS (a missing one fails type checking here).
type Missing = Exclude<keyof StoredEvent, "v" | (typeof FIELDS)[number]>;
const _complete: [Missing] extends [never] ? true : Missing = true;

const GEO_AT = FIELDS.indexOf("geo") + 1, UTM_AT = FIELDS.indexOf("utm") + 1;

export type PackedEvent = [typeof LAYOUT, ...unknown[]];

export function packEvent(e: StoredEvent): PackedEvent {
  const out: PackedEvent = [LAYOUT];
  for (const f of FIELDS) out.push(e[f]);
  const g = e.geo, u = e.utm;
  out[GEO_AT] = GEO_FIELDS.map((f) => g[f]);
  out[UTM_AT] = u ? UTM_FIELDS.map((f) => u[f]) : null;
  return out;
}

/** The stored event from a KV value: the packed array, or the object form as it was. */
export function unpackEvent(value: unknown): StoredEvent {
  if (!Array.isArray(value)) return value as StoredEvent;
  if (value[0] !== LAYOUT) throw new Error(`raw event: unknown layout ${String(value[0])}`);
  const e: Record<string, unknown> = { v: 1 };
  for (let i = 0; i < FIELDS.length; i++) e[FIELDS[i]] = value[i + 1];
  const g = value[GEO_AT] as unknown[], u = value[UTM_AT] as unknown[] | null;
  e.geo = Object.fromEntries(GEO_FIELDS.map((f, i) => [f, g[i]]));
  e.utm = u ? Object.fromEntries(UTM_FIELDS.map((f, i) => [f, u[i]])) : null;
  return e as unknown as StoredEvent;
}
