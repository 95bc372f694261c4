/** Stored records for engine tests, with every field a test does not care about filled plainly. */
import type { StoredEvent, StoredHit } from "../../../lib/store/records.ts";
import { keys } from "../../../lib/store/keys.ts";

let n = 0;
export function ev(over: Partial<StoredEvent> & { received_at: number }): StoredEvent {
  n++;
  return {
    v: 1,
    id: over.id ?? `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
    org: "org1",
    touchpoint: "tp1",
    env: "production",
    device_time: new Date(over.received_at).toISOString(),
    anonymous_id: "a1",
    user_id: null,
    session_id: "s1",
    sequence_no: 0,
    gap_before: 0,
    platform: "web",
    event_type: "$pageview",
    screen: over.path ?? "/",
    path: "/",
    host: "acme.test",
    fingerprint: null,
    element: null,
    properties: {},
    context: {},
    geo: { country: "DE", city: "Berlin", asn: null, as_org: null },
    browser: "Chrome",
    os: "Linux",
    device_type: "desktop",
    referrer_host: null,
    source: "(direct)",
    channel: "Direct",
    utm: null,
    traffic: "human",
    crawler: null,
    ...over,
  };
}

export function hit(over: Partial<StoredHit> & { timestamp: number }): StoredHit {
  n++;
  return {
    v: 1,
    id: over.id ?? `10000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
    org: "org1",
    touchpoint: "tp1",
    env: "production",
    received_at: over.timestamp,
    host: "acme.test",
    path: "/",
    method: "GET",
    status: 200,
    user_agent: "GPTBot/1.0",
    referer_host: null,
    crawler: "GPTBot",
    vendor: "OpenAI",
    category: "ai_training",
    site_file: null,
    crawled: true,
    geo: { country: "US", city: null, asn: null, as_org: null },
    verification: "verified",
    via: "server",
    ...over,
  };
}

/** Writes records as the ingest pipeline would: raw keys, one per record. */
export async function store(kv: Deno.Kv, records: { events?: StoredEvent[]; hits?: StoredHit[] }) {
  for (const e of records.events ?? []) await kv.set(keys.rawEvent(e.org, e.env, e.received_at, e.id), e);
  for (const h of records.hits ?? []) await kv.set(keys.rawHit(h.org, h.env, h.received_at, h.id), h);
}
