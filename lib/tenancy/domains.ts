/** Which touchpoint environment a host or origin belongs to; the most specific domain decides. */
import type { EnvName, Touchpoint } from "../store/records.ts";

/** Lower-cases and strips a port and a trailing dot: "Shop.Acme.test:8443" → "shop.acme.test". */
export function normalizeHost(raw: string): string {
  let h = raw.trim().toLowerCase();
  if (h.startsWith("[")) {
    const end = h.indexOf("]");
    return end > 0 ? h.slice(1, end) : h;
  }
  const colon = h.indexOf(":");
  if (colon >= 0 && h.indexOf(":", colon + 1) < 0) h = h.slice(0, colon);
  return h.replace(/\.$/, "");
}

/**
 * Whether raw is a host as a request names one: labels of letters, digits and hyphens, 1 to 63 characters
 * each, none empty ("a..acme.test", "*.acme.test" are not), at most 253 in all, an optional final dot and an
 * optional port of 1 to 65535; or an IPv6 address in brackets. Anything else is malformed, not a subdomain.
 */
export function isWellFormedHost(raw: string): boolean {
  const h = raw.trim();
  const v6 = /^\[[0-9a-f:.]+\](?::(\d{1,5}))?$/i.exec(h);
  const m = v6 ?? /^([^:]+)(?::(\d{1,5}))?$/.exec(h);
  if (!m) return false;
  const port = v6 ? m[1] : m[2];
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) return false;
  if (v6) return true;
  const name = m[1].replace(/\.$/, "");
  return name.length > 0 && name.length <= 253 &&
    name.split(".").every((l) => /^[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?$/u.test(l));
}

/** The host of an Origin header (scheme://host[:port], nothing else), or null when it is no such origin. */
export function hostOfOrigin(origin: string): string | null {
  try {
    const u = new URL(origin);
    if (u.username || u.password || u.pathname !== "/" || u.search || u.hash) return null;
    if (/\/\/[^/]*\//.test(origin) || !isWellFormedHost(u.host)) return null; // (no path, even "/")
    return normalizeHost(u.host);
  } catch {
    return null;
  }
}

export const isLocalHost = (host: string) => host === "localhost" || host === "127.0.0.1" || host === "::1";

/** True when host is the domain itself or one of its subdomains. */
export function hostMatches(host: string, domain: string): boolean {
  const d = normalizeHost(domain);
  return host === d || host.endsWith("." + d);
}

export interface HostOwner {
  touchpoint: string;
  env: EnvName;
  domain: string;
}

/** The environment whose domain is the longest match for host, over all of an organization's touchpoints. */
export function ownerOfHost(touchpoints: Touchpoint[], host: string): HostOwner | null {
  let best: HostOwner | null = null;
  for (const tp of touchpoints) {
    if (tp.kind !== "website") continue;
    for (const [env, e] of Object.entries(tp.environments) as [EnvName, { domain: string | null }][]) {
      if (!e?.domain || !hostMatches(host, e.domain)) continue;
      if (!best || normalizeHost(e.domain).length > best.domain.length) {
        best = { touchpoint: tp.id, env, domain: normalizeHost(e.domain) };
      }
    }
  }
  return best;
}

/**
 * Whether a host may write into (touchpoint, env): it belongs to that environment by the most specific
 * domain, or the environment is development and the host is localhost / 127.0.0.1 (any port).
 */
export function hostAllowedFor(touchpoints: Touchpoint[], host: string, tp: string, env: EnvName): boolean {
  if (env === "development" && isLocalHost(host)) return true;
  const owner = ownerOfHost(touchpoints, host);
  return owner !== null && owner.touchpoint === tp && owner.env === env;
}
