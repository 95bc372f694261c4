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

export function hostOfOrigin(origin: string): string | null {
  try {
    return normalizeHost(new URL(origin).host);
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
