/**
 * Domains an organization has proven it controls, by publishing a TXT record we give it. Feedback uses them
 * to tell the organization's own apps (a store listing whose developer site is on a verified domain) from
 * followed ones. Verification asks `deps.dns` again each time; a domain stays verified once shown.
 */
import type { Dns } from "../dns.ts";
import type { Clock } from "../clock.ts";
import { invalid, notFound } from "../errors.ts";
import { keys } from "../store/keys.ts";
import { hostMatches, normalizeHost } from "./domains.ts";
import { isPublicSuffix, publicSuffixMessage } from "../domain_suffix.ts";

export interface VerifiedDomain {
  org: string;
  domain: string;
  token: string; // not a secret: it is published in DNS
  created_at: string;
  verified_at: string | null;
}

const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/;

/** The record to publish: a TXT at `_svc-verification.<domain>` holding `svc-verification=<token>`. */
export const txtRecordOf = (d: VerifiedDomain) => ({
  name: `_svc-verification.${d.domain}`,
  value: `svc-verification=${d.token}`,
});

export async function addDomain(
  kv: Deno.Kv,
  clock: Clock,
  org: string,
  raw: string,
): Promise<VerifiedDomain> {
  const domain = normalizeHost(raw.replace(/^https?:\/\//i, "").replace(/\/.*$/, ""));
  if (!DOMAIN.test(domain)) throw invalid("domain: must be a domain name such as example.com");
  if (isPublicSuffix(domain)) throw invalid(`domain: ${publicSuffixMessage(domain)}`);
  const existing = (await kv.get<VerifiedDomain>(keys.verifiedDomain(org, domain))).value;
  if (existing) return existing;
  const d: VerifiedDomain = {
    org,
    domain,
    token: crypto.randomUUID().replaceAll("-", ""),
    created_at: new Date(clock.now()).toISOString(),
    verified_at: null,
  };
  await kv.set(keys.verifiedDomain(org, domain), d);
  return d;
}

export async function listDomains(kv: Deno.Kv, org: string): Promise<VerifiedDomain[]> {
  const out: VerifiedDomain[] = [];
  for await (const e of kv.list<VerifiedDomain>({ prefix: keys.verifiedDomains(org) })) out.push(e.value);
  return out;
}

export type VerifyOutcome = { verified: true; domain: VerifiedDomain } | { verified: false; reason: string };

/** Looks the TXT record up now. A resolver failure is reported as such, never as "not found". */
export async function verifyDomain(
  kv: Deno.Kv,
  dns: Dns,
  clock: Clock,
  org: string,
  domain: string,
): Promise<VerifyOutcome> {
  const d = (await kv.get<VerifiedDomain>(keys.verifiedDomain(org, domain))).value;
  if (!d) throw notFound(`no domain ${domain} in organization ${org}`);
  const { name, value } = txtRecordOf(d);
  let found: string[];
  try {
    found = await dns.txt(name);
  } catch {
    return { verified: false, reason: `DNS lookup of ${name} failed; try again in a minute` };
  }
  if (!found.some((r) => r.trim() === value)) {
    return {
      verified: false,
      reason: `no TXT record "${value}" at ${name} yet (DNS changes can take a while)`,
    };
  }
  const verified = { ...d, verified_at: d.verified_at ?? new Date(clock.now()).toISOString() };
  await kv.set(keys.verifiedDomain(org, domain), verified);
  return { verified: true, domain: verified };
}

export async function removeDomain(kv: Deno.Kv, org: string, domain: string): Promise<void> {
  await kv.delete(keys.verifiedDomain(org, domain));
}

/** Whether a host is on one of the organization's verified domains (the domain itself or a subdomain). */
export async function isOnVerifiedDomain(kv: Deno.Kv, org: string, host: string): Promise<boolean> {
  const h = normalizeHost(host);
  return (await listDomains(kv, org)).some((d) => d.verified_at !== null && hostMatches(h, d.domain));
}
