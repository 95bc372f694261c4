/** Builds the CrawlEvent the service expects from what an adapter saw of one request and its response. */

/** Read access to request headers; `Headers` satisfies it, Node adapters wrap their header object. */
export interface HeaderReader {
  get(name: string): string | null;
}

/** One finished request as an adapter saw it. */
export interface SeenRequest {
  method: string;
  /** Absolute URL, or the request target ("/path?query") when the server gives only that. */
  url: string;
  headers: HeaderReader;
  /** The peer address of the socket, when the runtime exposes it. */
  socketIp?: string | null;
}

/** The response that was sent for it. */
export interface SeenResponse {
  status: number | null;
  contentType: string | null;
}

/** The wire shape of one hit (CrawlEvent in the spec). */
export interface CrawlHit {
  event_type: "$crawl";
  event_id: string;
  timestamp: string;
  host: string;
  path: string;
  method: string;
  status: number | null;
  user_agent: string;
  ip: string | null;
  referer_host: string | null;
}

/** `true`: one proxy you control; a number: that many proxies in a chain; `false`: none (the socket peer). */
export type TrustProxy = boolean | number;

export interface HitSettings {
  trustProxy: TrustProxy;
  /** The one single-value header the edge sets to the client address ("cf-connecting-ip"); none when unset. */
  ipHeader?: string | null;
  queryAllowlist: readonly string[];
}

const MAX_HOST = 255;
const MAX_PATH = 1024;
const MAX_USER_AGENT = 512;

/** The parsed request target: path without query, and the query. */
export function parseTarget(url: string): URL {
  // Concatenate rather than resolve, so a target such as "//x/y" stays a path instead of becoming a host.
  return url.startsWith("/") ? new URL(`http://unknown.invalid${url}`) : new URL(url);
}

export function buildHit(
  req: SeenRequest,
  res: SeenResponse,
  receivedAt: number,
  settings: HitSettings,
): CrawlHit {
  const target = parseTarget(req.url);
  return {
    event_type: "$crawl",
    event_id: crypto.randomUUID(),
    timestamp: new Date(receivedAt).toISOString(),
    host: requestHost(req, target, settings.trustProxy),
    path: pathWithAllowedQuery(target, settings.queryAllowlist),
    method: req.method.toUpperCase(),
    status: res.status,
    user_agent: (req.headers.get("user-agent") ?? "").slice(0, MAX_USER_AGENT),
    ip: clientIp(req, settings.trustProxy, settings.ipHeader),
    referer_host: refererHost(req.headers.get("referer")),
  };
}

/** The host the client asked for, without port, lowercased. */
function requestHost(
  req: SeenRequest,
  target: URL,
  trustProxy: TrustProxy,
): string {
  // Like the address: the value the nearest proxy appended, not one a client wrote before it.
  const forwarded = proxyHops(trustProxy) > 0 ? lastValue(req.headers.get("x-forwarded-host")) : null;
  const fromUrl = target.hostname === "unknown.invalid" ? "" : target.host;
  const raw = forwarded || req.headers.get("host") || fromUrl;
  return stripPort(raw.trim().toLowerCase()).slice(0, MAX_HOST);
}

function stripPort(host: string): string {
  if (host.startsWith("[")) {
    const end = host.indexOf("]");
    return end > 0 ? host.slice(0, end + 1) : host;
  }
  const colon = host.indexOf(":");
  return colon >= 0 && host.indexOf(":", colon + 1) < 0 ? host.slice(0, colon) : host;
}

/** The path, plus only the query parameters the site owner allowed (others may carry personal data). */
function pathWithAllowedQuery(
  target: URL,
  allowlist: readonly string[],
): string {
  const kept = new URLSearchParams();
  for (const [name, value] of target.searchParams) {
    if (allowlist.includes(name)) kept.append(name, value);
  }
  const query = kept.toString();
  return (query ? `${target.pathname}?${query}` : target.pathname).slice(
    0,
    MAX_PATH,
  );
}

/**
 * The socket peer, or behind trusted proxies the client they report. Proxies append the peer they saw to the
 * end of X-Forwarded-For / Forwarded; everything left of it is whatever the client sent, so it is never taken.
 * - `ipHeader` (behind a trusted proxy only): the single-value header the site owner says the edge sets
 *   (CF-Connecting-IP, True-Client-IP, Fly-Client-IP, X-Real-IP, ...). No such header is read unless named:
 *   a proxy that does not set one passes a client's own through (a fake Googlebot's CF-Connecting-IP behind
 *   nginx or a load balancer).
 * - `true` (one proxy you control): else the last X-Forwarded-For hop, else the last Forwarded `for=`.
 * - a number n (n proxies in a chain): the n-th hop from the end of X-Forwarded-For (else Forwarded), as
 *   Express's `trust proxy` counts.
 */
export function clientIp(
  req: SeenRequest,
  trustProxy: TrustProxy,
  ipHeader?: string | null,
): string | null {
  const hops = proxyHops(trustProxy);
  if (hops > 0) {
    const fromHeaders = (ipHeader ? singleValue(req.headers.get(ipHeader)) : null) ??
      hopFromEnd(listValues(req.headers.get("x-forwarded-for")), hops) ??
      hopFromEnd(forwardedFor(req.headers.get("forwarded")), hops);
    if (fromHeaders) return cleanIp(fromHeaders);
  }
  return req.socketIp ? cleanIp(req.socketIp) : null;
}

/** How many proxies in front of the server are trusted: `true` is one, `false` or a bad number none. */
export function proxyHops(trustProxy: TrustProxy): number {
  if (typeof trustProxy === "number") {
    return Number.isInteger(trustProxy) && trustProxy > 0 ? trustProxy : 0;
  }
  return trustProxy ? 1 : 0;
}

/** The named edge header's one address; a missing, empty or listed value means none. */
function singleValue(header: string | null): string | null {
  const value = header?.trim();
  return value && !value.includes(",") ? value : null;
}

/** The hop `hops` places from the end; with fewer hops than trusted proxies, the first one. */
function hopFromEnd(values: string[], hops: number): string | null {
  if (values.length === 0) return null;
  return values[Math.max(0, values.length - hops)] || null;
}

/** RFC 7239: `Forwarded: for=192.0.2.1;proto=https, for="[2001:db8::1]:4711"`: each element's `for`. */
function forwardedFor(header: string | null): string[] {
  if (!header) return [];
  return header.split(",").map((element) => {
    const match = /(?:^|[;\s])for=("[^"]*"|[^;\s]*)/i.exec(element);
    const value = match ? match[1].replace(/^"|"$/g, "").trim() : "";
    // "unknown" and obfuscated "_name" identifiers stand for an address that is not given.
    return value.toLowerCase() === "unknown" || value.startsWith("_") ? "" : value;
  });
}

function listValues(header: string | null): string[] {
  return header ? header.split(",").map((v) => v.trim()) : [];
}

function lastValue(header: string | null): string | null {
  const values = listValues(header);
  return values[values.length - 1] || null;
}

/** Drops brackets, ports and the IPv4-mapped IPv6 prefix: "[::ffff:1.2.3.4]:80" → "1.2.3.4". */
function cleanIp(raw: string): string {
  let ip = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(ip);
  if (bracketed) ip = bracketed[1];
  else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(ip)) {
    ip = ip.slice(0, ip.indexOf(":"));
  }
  if (/^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(ip)) ip = ip.slice(7);
  return ip;
}

/** Only the host of the Referer, never its path or query. */
function refererHost(referer: string | null): string | null {
  if (!referer) return null;
  try {
    const host = new URL(referer).hostname.toLowerCase();
    return host ? host.slice(0, MAX_HOST) : null;
  } catch {
    return null;
  }
}
