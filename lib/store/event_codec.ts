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

export type PackedEvent = [typeof LAYOUT, ...unknown[]];

/*
 * packEvent and unpackEvent are written out from FIELDS once, when the module loads: reading and writing
 * properties by name in plain code is what V8 makes fast, a loop of e[name] over 30 names is not (measured,
 * best of 15 over 20,000 events: generated 0.07 µs an event to pack and 0.02 to unpack, the loop 1.8 and
 * 2.0, the former hand-written pair 0.09 and 0.05). A query unpacks every row of the raw tail.
 * Field names are identifiers, so the generated code is exactly the list.
 */
const packed = (f: (typeof FIELDS)[number]) =>
  f === "geo"
    ? `[${GEO_FIELDS.map((g) => `e.geo.${g}`)}]`
    : f === "utm"
    ? `e.utm ? [${UTM_FIELDS.map((u) => `e.utm.${u}`)}] : null`
    : `e.${f}`;
const unpacked = (f: (typeof FIELDS)[number], i: number) =>
  f === "geo"
    ? `geo: { ${GEO_FIELDS.map((g, j) => `${g}: a[${i}][${j}]`)} }`
    : f === "utm"
    ? `utm: a[${i}] ? { ${UTM_FIELDS.map((u, j) => `${u}: a[${i}][${j}]`)} } : null`
    : `${f}: a[${i}]`;
const pack = new Function("e", `return [${LAYOUT}, ${FIELDS.map(packed).join(", ")}];`) as (
  e: StoredEvent,
) => PackedEvent;
const unpack = new Function(
  "a",
  `return { v: 1, ${FIELDS.map((f, i) => unpacked(f, i + 1)).join(", ")} };`,
) as (
  a: unknown[],
) => StoredEvent;

export function packEvent(e: StoredEvent): PackedEvent {
  return pack(e);
}

/** The stored event from a KV value: the packed array, or the object form as it was. */
export function unpackEvent(value: unknown): StoredEvent {
  if (!Array.isArray(value)) return value as StoredEvent;
  if (value[0] !== LAYOUT) throw new Error(`raw event: unknown layout ${String(value[0])}`);
  return unpack(value);
}
