/**
 * Answer rule 3: an app is the organization's own when its store listing's developer website is a site of
 * the organization that sends events, or is on one of its verified domains. Only own apps are ever quoted;
 * everything else (followed apps, and apps whose listing is missing or names another site) gets themes and
 * counts only. Decided at every answer from the current listing and domains.
 *
 * "A site of the organization" is read as a site whose domain the organization has proven, by the TXT record
 * of a verified domain (lib/tenancy/verified_domains.ts). A website touchpoint and the events it receives
 * prove nothing: any admin can name any domain as a website, and any server can send that domain's Origin
 * header, so "sends events" alone let an organization quote another company's reviews. An app whose website
 * is one of the organization's websites but not verified is followed, and the reason says what to verify.
 */
import { hostMatches, normalizeHost } from "../tenancy/domains.ts";
import { listDomains } from "../tenancy/verified_domains.ts";
import { isPublicSuffix } from "../domain_suffix.ts";
import type { Touchpoint } from "../store/records.ts";
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

/** The rule itself, on plain data: the organization's website domains (a hint only) and verified domains. */
export function decideOwnership(
  listing: StoreListing | null,
  websiteDomains: string[],
  verifiedDomains: string[],
): Ownership {
  if (!listing) return { own: false, reason: "no store listing fetched yet" };
  if (!listing.developer_website) {
    return { own: false, reason: "the store listing names no developer website" };
  }
  const host = hostOfWebsite(listing.developer_website);
  if (!host) return { own: false, reason: "the listing's developer website is not a URL" };
  const domain = verifiedDomains.map(bare).find((d) => !isPublicSuffix(d) && hostMatches(host, d));
  if (domain) return { own: true, reason: `developer website ${host} is on the verified domain ${domain}` };
  const site = websiteDomains.map(bare).find((d) => !isPublicSuffix(d) && hostMatches(host, d));
  if (site) {
    return {
      own: false,
      reason:
        `developer website ${host} is the organization's website ${site}, but ${site} is not verified: ` +
        `verify it under Settings, Verified domains (a TXT record) to have its reviews quoted`,
    };
  }
  return {
    own: false,
    reason: `developer website ${host} is neither a site of the organization nor on a verified domain`,
  };
}

/** The organization's verified domains (people's records); a domain still waiting for its TXT check does not count. */
export async function verifiedDomainsOf(kv: Deno.Kv, org: string): Promise<string[]> {
  return (await listDomains(kv, org)).filter((d) => d.verified_at !== null).map((d) => d.domain);
}

/** Production domains of the organization's websites that are not archived (only to say what to verify). */
export const websiteDomainsOf = (touchpoints: Touchpoint[]): string[] =>
  touchpoints.flatMap((t) =>
    t.kind === "website" && !t.archived && t.environments.production?.domain
      ? [t.environments.production.domain]
      : []
  );
