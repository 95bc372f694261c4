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

export interface HitSettings {
  trustProxy: boolean;
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
    ip: clientIp(req, settings.trustProxy),
    referer_host: refererHost(req.headers.get("referer")),
  };
}

/** The host the client asked for, without port, lowercased. */
function requestHost(
  req: SeenRequest,
  target: URL,
  trustProxy: boolean,
): string {
  const forwarded = trustProxy ? firstValue(req.headers.get("x-forwarded-host")) : null;
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

/** The socket peer, or with a trusted proxy the client it reports (Forwarded, X-Forwarded-For, X-Real-IP...). */
export function clientIp(req: SeenRequest, trustProxy: boolean): string | null {
  if (trustProxy) {
    const fromHeaders = forwardedFor(req.headers.get("forwarded")) ??
      firstValue(req.headers.get("x-forwarded-for")) ??
      firstValue(req.headers.get("cf-connecting-ip")) ??
      firstValue(req.headers.get("true-client-ip")) ??
      firstValue(req.headers.get("x-real-ip")) ??
      firstValue(req.headers.get("fly-client-ip"));
    if (fromHeaders) return cleanIp(fromHeaders);
  }
  return req.socketIp ? cleanIp(req.socketIp) : null;
}

/** RFC 7239: `Forwarded: for=192.0.2.1;proto=https, for="[2001:db8::1]:4711"`; the first element is the client. */
function forwardedFor(header: string | null): string | null {
  if (!header) return null;
  const match = /(?:^|[;,\s])for=("[^"]*"|[^;,\s]*)/i.exec(header);
  if (!match) return null;
  const value = match[1].replace(/^"|"$/g, "");
  return value === "" || value.toLowerCase() === "unknown" ||
      value.startsWith("_")
    ? null
    : value;
}

function firstValue(header: string | null): string | null {
  const first = header?.split(",")[0]?.trim();
  return first ? first : null;
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
