/** Turns a validated event into its stored form with everything derived at arrival. */
import type { EnvName, GeoInfo, Org, StoredEvent, Touchpoint } from "../store/records.ts";
import type { BehaviorEventInput } from "../schemas/events.ts";
import { parseAgent } from "../enrich/ua.ts";
import { classifyAgent } from "../crawl/classify.ts";
import { attribute, attributionInputOf } from "../enrich/attribution.ts";
import { elementName, storedFingerprint, withFormElement, withPlainElement } from "../enrich/element.ts";
import { truncate } from "../text.ts";
import { urlPath } from "../url_path.ts";

/** Where a web event goes: the write key's organization, touchpoint and environment. */
export interface WebTarget {
  org: Org;
  touchpoint: Touchpoint;
  env: EnvName;
  /** how long a stored event's dedupe key lives; WEB_DEDUPE_MS unless the history import says otherwise */
  dedupeMs?: number;
}

/** What the request adds to each of its events. */
export interface Arrival {
  receivedAt: number;
  ip: string | null; // canonical form (lib/enrich/client_address.ts)
  userAgent: string | null;
}

const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

/** A DNS name has at most 253 characters: a longer host in `properties.url` names no host. */
export const MAX_HOST = 253;

/**
 * A page path is a URL path in one stored form (lib/url_path.ts, shared with crawler hits): through the URL
 * parser, as a browser's `location.pathname` gives it, so a path sent by anyone holding the public key cannot
 * carry a line break or a sentence into an answer or a report mail; escapes in upper case. A longer one than
 * 1,024 characters is cut to 1,023 and "…", and the event is kept: refusing it would be a 422 for the whole
 * batch, which the SDK drops; the value as sent stays in `properties.path` (docs/events.md). An app's screen
 * (its route or name) likewise; a 2,048-character screen can encode to 6 times that.
 */
const pathOf = (ev: BehaviorEventInput): string => urlPath(str(ev.properties.path) ?? ev.screen);

function hostOf(url: string | null): string | null {
  if (!url) return null;
  try {
    const host = new URL(url).hostname.toLowerCase();
    return host.length <= MAX_HOST ? host : null;
  } catch {
    return null;
  }
}

/**
 * The properties with `referrer` cut to its origin (scheme and host): the full URL a browser gives holds the
 * previous page's query (reset tokens, e-mail addresses, search terms) the page's own `url` leaves out. Its
 * host, source and channel are taken from it first (`attribute`); a referrer that is no URL is dropped.
 */
function referrerCut(properties: Record<string, unknown>): Record<string, unknown> {
  if (!("referrer" in properties)) return properties;
  const { referrer, ...rest } = properties;
  let origin: string | null = null;
  try {
    const u = typeof referrer === "string" ? new URL(referrer) : null;
    if (u && u.origin !== "null") origin = u.origin;
  } catch {
    origin = null;
  }
  return origin === null ? rest : { ...rest, referrer: origin };
}

export function enrichEvent(
  ev: BehaviorEventInput,
  target: WebTarget,
  arrival: Arrival,
  geo: GeoInfo,
  gapBefore: number,
): StoredEvent {
  const context = ev.context ?? {};
  const url = str(ev.properties.url);
  const ua = truncate(str(context.user_agent) ?? arrival.userAgent ?? "", 512);
  // lib/crawl/classify.ts decides person or automation (one place for it); ua-parser names browser, OS, device.
  // A human client (and an event without any agent) stays "human" traffic.
  const agent = ua ? classifyAgent(ua).agent : null;
  const parsed = parseAgent(ua);
  const origin = attribute(attributionInputOf(ev));
  return {
    v: 1,
    id: ev.event_id, // lowercased by the schema (lib/schemas/events.ts)
    org: target.org.id,
    touchpoint: target.touchpoint.id,
    env: target.env,
    received_at: arrival.receivedAt,
    device_time: ev.device_time,
    anonymous_id: ev.anonymous_id,
    user_id: ev.user_id ?? null,
    session_id: ev.session_id,
    sequence_no: ev.sequence_no,
    gap_before: gapBefore,
    platform: ev.platform,
    event_type: ev.event_type,
    screen: ev.screen,
    path: pathOf(ev),
    host: hostOf(url),
    fingerprint: storedFingerprint(ev.fingerprint ?? null),
    element: elementName(ev.fingerprint ?? null),
    properties: withPlainElement(
      ev.event_type,
      ev.fingerprint ?? null,
      withFormElement(ev.event_type, referrerCut(ev.properties)),
    ),
    context,
    geo,
    browser: parsed.browser,
    os: parsed.os,
    device_type: agent ? "bot" : parsed.device_type === "bot" ? "other" : parsed.device_type,
    referrer_host: origin.referrer_host,
    source: origin.source,
    channel: origin.channel,
    utm: origin.utm,
    traffic: agent?.traffic ?? "human",
    crawler: agent?.token ?? null,
  };
}
