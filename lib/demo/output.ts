/** Turning drafts into stored records (for writing straight to KV: raw_writer.ts) or into import NDJSON lines. */
import type { EnvName, StoredEvent, StoredHit } from "../store/records.ts";
import type { HitDraft } from "./crawl.ts";
import type { Draft } from "./model.ts";
import { plainElementName, withFormElement, withPlainElement } from "../enrich/element.ts";

export interface Target {
  org: string;
  touchpoint: string;
  env: EnvName;
  host: string;
}

const hostOf = (url: string | null) => (url ? new URL(url).host : null);

export function urlOf(d: Draft, host: string): string {
  const u = d.source.utm;
  if (!d.landing || !u) return `https://${host}${d.path}`;
  const q = new URLSearchParams({ utm_source: u.source, utm_medium: u.medium, utm_campaign: u.campaign });
  if (u.term) q.set("utm_term", u.term);
  if (u.content) q.set("utm_content", u.content);
  return `https://${host}${d.path}?${q}`;
}

/** The element's name without its text ingest derives (`element_plain`), once per fingerprint object. */
const plains = new WeakMap<object, string | null>();
export function plainOf(d: Draft): string | null {
  const fp = d.fingerprint;
  if (d.type !== "$autocapture" || !fp) return null;
  let got = plains.get(fp);
  if (got === undefined) plains.set(fp, got = plainElementName(fp));
  return got;
}

/** A draft's properties as ingest stores them: with the form's name and the element's plain name it derives. */
export function storedProperties(d: Draft, host: string): Record<string, unknown> {
  return withPlainElement(d.type, d.fingerprint, withFormElement(d.type, properties(d, host)));
}

export function properties(d: Draft, host: string): Record<string, unknown> {
  const p: Record<string, unknown> = { path: d.path, url: urlOf(d, host), ...d.props };
  if (d.landing && d.type === "$pageview" && d.source.referrer) p.referrer = d.source.referrer;
  return p;
}

function context(d: Draft) {
  const u = d.source.utm;
  const touch = {
    source: u?.source ?? null,
    medium: u?.medium ?? null,
    campaign: u?.campaign ?? null,
    term: u?.term ?? null,
    content: u?.content ?? null,
    referrer_host: hostOf(d.source.referrer),
    landing_path: null,
  };
  return {
    user_agent: d.automated?.ua ?? d.visitor.ua,
    language: d.visitor.country.lang,
    timezone: d.visitor.country.tz,
    screen_width: d.visitor.device.width,
    viewport_width: d.visitor.device.width,
    sdk_version: "1.0.0",
    last_touch: touch,
  };
}

/** What a session's events share (context, UTM, referrer host, geo), made once for a run of events of the
 * same visitor, source and agent: the model emits a session's events one after another, so each record of
 * the run holds the same objects, and the part builder serialises them once (lib/parts/event_batch.ts). */
export interface Shared {
  visitor: Draft["visitor"];
  source: Draft["source"];
  automated: Draft["automated"];
  context: ReturnType<typeof context>;
  utm: StoredEvent["utm"];
  referrer_host: string | null;
  geo: StoredEvent["geo"];
}
let last: Shared | null = null;

export function shared(d: Draft): Shared {
  if (last && last.visitor === d.visitor && last.source === d.source && last.automated === d.automated) {
    return last;
  }
  const u = d.source.utm;
  return last = {
    visitor: d.visitor,
    source: d.source,
    automated: d.automated,
    context: context(d),
    utm: u
      ? {
        source: u.source,
        medium: u.medium,
        campaign: u.campaign,
        term: u.term ?? null,
        content: u.content ?? null,
      }
      : null,
    referrer_host: hostOf(d.source.referrer),
    geo: { country: d.visitor.country.code, city: d.visitor.city, asn: null, as_org: null },
  };
}

/** The stored record of a draft; records of one session share their context, UTM and geo objects (read-only). */
export function storedEvent(d: Draft, t: Target): StoredEvent {
  const s = shared(d);
  return {
    v: 1,
    id: d.id,
    org: t.org,
    touchpoint: t.touchpoint,
    env: t.env,
    received_at: d.t,
    device_time: new Date(d.deviceTime).toISOString(),
    anonymous_id: d.anon,
    user_id: d.user,
    session_id: d.session,
    sequence_no: d.seq,
    gap_before: 0,
    platform: "web",
    event_type: d.type,
    screen: d.path,
    path: d.path,
    host: t.host,
    fingerprint: d.fingerprint,
    element: d.element,
    properties: storedProperties(d, t.host), // with what ingest derives from the fingerprints
    context: s.context,
    geo: s.geo,
    browser: d.automated ? null : d.visitor.browser,
    os: d.automated ? null : d.visitor.os,
    device_type: d.automated ? "bot" : d.visitor.device.device,
    referrer_host: s.referrer_host,
    source: d.source.source,
    channel: d.source.channel,
    utm: s.utm,
    traffic: d.automated?.traffic ?? "human",
    crawler: d.automated?.crawler ?? null,
  };
}

export function eventLine(d: Draft, t: Target): string {
  return JSON.stringify({
    kind: "event",
    // the SDK delivers in batches: events of one 10-second flush share their receive time
    received_at: new Date(Math.ceil((d.t + 1) / 10_000) * 10_000).toISOString(),
    ip: d.visitor.ip,
    user_agent: d.automated?.ua ?? d.visitor.ua,
    event_id: d.id,
    anonymous_id: d.anon,
    user_id: d.user,
    session_id: d.session,
    sequence_no: d.seq,
    platform: "web",
    event_type: d.type,
    screen: d.path,
    fingerprint: d.fingerprint,
    properties: properties(d, t.host),
    context: context(d),
    device_time: new Date(d.deviceTime).toISOString(),
  });
}

export function storedHit(h: HitDraft, t: Target): StoredHit {
  const ok = h.status === null || (h.status >= 200 && h.status < 300) || h.status === 304;
  return {
    v: 1,
    id: h.id,
    org: t.org,
    touchpoint: t.touchpoint,
    env: t.env,
    received_at: h.t + 500,
    timestamp: h.t,
    host: t.host,
    path: h.path,
    method: h.method,
    status: h.status,
    user_agent: h.crawler.ua,
    referer_host: null,
    crawler: h.crawler.token,
    vendor: h.crawler.vendor,
    category: h.crawler.category,
    site_file: h.siteFile,
    crawled: h.method === "GET" && ok,
    geo: { country: "US", city: null, asn: null, as_org: null },
    verification: h.spoofed ? "spoofed" : h.crawler.verifiable ? "verified" : "unverifiable",
    via: "server",
  };
}

export function hitLine(h: HitDraft, t: Target): string {
  return JSON.stringify({
    kind: "hit",
    event_type: "$crawl",
    event_id: h.id,
    timestamp: new Date(h.t).toISOString(),
    host: t.host,
    path: h.path,
    method: h.method,
    status: h.status,
    user_agent: h.crawler.ua,
    ip: h.ip,
    referer_host: null,
  });
}
