/**
 * Answer rule 3: an app is the organization's own when its store listing's developer website is a site of
 * the organization that sends events, or is on one of its verified domains. Only own apps are ever quoted;
 * everything else (followed apps, and apps whose listing is missing or names another site) gets themes and
 * counts only. Decided at every answer from the current listing, sites and domains.
 */
import type { Deps } from "../deps.ts";
import type { Directory } from "../tenancy/directory.ts";
import { hostMatches, normalizeHost } from "../tenancy/domains.ts";
import { listDomains } from "../tenancy/verified_domains.ts";
import type { Engine } from "../query/api.ts";
import type { StoreListing } from "./types.ts";

export interface Ownership {
  own: boolean;
  reason: string;
}

const bare = (host: string) => normalizeHost(host).replace(/^www\./, "");

function hostOfWebsite(url: string): string | null {
  try {
    return bare(new URL(/^https?:\/\//i.test(url) ? url : `https://${url}`).hostname);
  } catch {
    return null;
  }
}

/** The rule itself, on plain data: sending sites' domains and verified domains. */
export function decideOwnership(
  listing: StoreListing | null,
  sendingSites: string[],
  verifiedDomains: string[],
): Ownership {
  if (!listing) return { own: false, reason: "no store listing fetched yet" };
  if (!listing.developer_website) {
    return { own: false, reason: "the store listing names no developer website" };
  }
  const host = hostOfWebsite(listing.developer_website);
  if (!host) return { own: false, reason: "the listing's developer website is not a URL" };
  const site = sendingSites.find((d) => hostMatches(host, bare(d)));
  if (site) return { own: true, reason: `developer website ${host} is the organization's site ${site}` };
  const domain = verifiedDomains.find((d) => hostMatches(host, bare(d)));
  if (domain) return { own: true, reason: `developer website ${host} is on the verified domain ${domain}` };
  return {
    own: false,
    reason:
      `developer website ${host} is neither a site of the organization that sends events nor a verified domain`,
  };
}

/** The organization's verified domains (people's records); a domain still waiting for its TXT check does not count. */
export async function verifiedDomainsOf(kv: Deno.Kv, org: string): Promise<string[]> {
  return (await listDomains(kv, org)).filter((d) => d.verified_at !== null).map((d) => d.domain);
}

const SENDING_WINDOW_MS = 90 * 86_400_000;

/** Production domains of the organization's websites that received events in the last 90 days. */
export async function sitesSendingEvents(
  app: { deps: Deps; directory: Directory; engine: Engine },
  org: string,
  now: number,
): Promise<string[]> {
  const sites = (await app.directory.touchpoints(org)).filter((t) => t.kind === "website" && !t.archived);
  const { engine } = app;
  const out: string[] = [];
  for (const tp of sites) {
    const domain = tp.environments.production?.domain;
    if (!domain) continue;
    const r = await engine.aggregate({
      org,
      env: "production",
      touchpoint: tp.id,
      from: now - SENDING_WINDOW_MS,
      to: now + 60_000,
      timezone: "UTC",
      traffic: ["human", "bot", "ai_agent"],
    }, { metrics: ["events"] });
    if ((r.totals.events ?? 0) > 0) out.push(domain);
  }
  return out;
}
