/**
 * How a raw web event is kept in KV: a positional array, not the StoredEvent object. Field names are ~40% of
 * an enriched event's bytes, and a KV row over ~1 KB spills into SQLite overflow pages; at ~1.0 KB as an
 * object the event store ran at half the speed it does at ~0.6 KB (bench/ingest.ts). Every read of a raw
 * event goes through `unpackEvent`, which also accepts the object form (records written before this codec).
 */
import type { GeoInfo, StoredEvent, Utm } from "./records.ts";

/** The array's first element: the layout below. A new layout gets a new number and its own branch. */
const LAYOUT = 2;

type Packed = [
  typeof LAYOUT,
  string, // id
  string, // org
  string, // touchpoint
  StoredEvent["env"],
  number, // received_at
  string, // device_time
  string, // anonymous_id
  string | null, // user_id
  string, // session_id
  number, // sequence_no
  number, // gap_before
  StoredEvent["platform"],
  string, // event_type
  string, // screen
  string, // path
  string | null, // host
  Record<string, unknown> | null, // fingerprint
  string | null, // element
  Record<string, unknown>, // properties
  Record<string, unknown>, // context
  [string | null, string | null, number | null, string | null], // geo: country, city, asn, as_org
  string | null, // browser
  string | null, // os
  StoredEvent["device_type"],
  string | null, // referrer_host
  string, // source
  StoredEvent["channel"],
  [string | null, string | null, string | null, string | null, string | null] | null, // utm
  StoredEvent["traffic"],
  string | null, // crawler
];

export function packEvent(e: StoredEvent): Packed {
  const u = e.utm;
  return [
    LAYOUT,
    e.id,
    e.org,
    e.touchpoint,
    e.env,
    e.received_at,
    e.device_time,
    e.anonymous_id,
    e.user_id,
    e.session_id,
    e.sequence_no,
    e.gap_before,
    e.platform,
    e.event_type,
    e.screen,
    e.path,
    e.host,
    e.fingerprint,
    e.element,
    e.properties,
    e.context,
    [e.geo.country, e.geo.city, e.geo.asn, e.geo.as_org],
    e.browser,
    e.os,
    e.device_type,
    e.referrer_host,
    e.source,
    e.channel,
    u ? [u.source, u.medium, u.campaign, u.term, u.content] : null,
    e.traffic,
    e.crawler,
  ];
}

/** The stored event from a KV value: the packed array, or the object form as it was. */
export function unpackEvent(value: unknown): StoredEvent {
  if (!Array.isArray(value)) return value as StoredEvent;
  if (value[0] !== LAYOUT) throw new Error(`raw event: unknown layout ${String(value[0])}`);
  const [
    ,
    id,
    org,
    touchpoint,
    env,
    received_at,
    device_time,
    anonymous_id,
    user_id,
    session_id,
    sequence_no,
    gap_before,
    platform,
    event_type,
    screen,
    path,
    host,
    fingerprint,
    element,
    properties,
    context,
    g,
    browser,
    os,
    device_type,
    referrer_host,
    source,
    channel,
    u,
    traffic,
    crawler,
  ] = value as Packed;
  const geo: GeoInfo = { country: g[0], city: g[1], asn: g[2], as_org: g[3] };
  const utm: Utm | null = u
    ? { source: u[0], medium: u[1], campaign: u[2], term: u[3], content: u[4] }
    : null;
  return {
    v: 1,
    id,
    org,
    touchpoint,
    env,
    received_at,
    device_time,
    anonymous_id,
    user_id,
    session_id,
    sequence_no,
    gap_before,
    platform,
    event_type,
    screen,
    path,
    host,
    fingerprint,
    element,
    properties,
    context,
    geo,
    browser,
    os,
    device_type,
    referrer_host,
    source,
    channel,
    utm,
    traffic,
    crawler,
  };
}
