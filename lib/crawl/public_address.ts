/**
 * Addresses that cannot be a crawler's: private, loopback, link-local, shared (CGNAT), unique local and
 * unspecified. A hit reported with one came through a proxy the sender did not look behind (the server SDK
 * without trustProxy, the service without TRUST_PROXY), so it says nothing about who the crawler is: it is
 * treated as a missing address (unverifiable, no DNS asked), never as a failed check. Documentation ranges
 * (192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24, 2001:db8::/32) are left alone: tests use them as crawlers.
 */
import { type ParsedIp, parseIp, RangeSet } from "./cidr.ts";

/** The ranges no crawler's address is in, by kind (lib/crawl/address_guard.ts refuses these and more). */
export const NOT_A_CRAWLER: readonly (readonly [kind: string, cidrs: readonly string[]])[] = [
  ["unspecified", ["0.0.0.0/8", "::/128"]],
  ["private", ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"]],
  ["shared (CGNAT)", ["100.64.0.0/10"]],
  ["loopback", ["127.0.0.0/8", "::1/128"]],
  ["link-local", ["169.254.0.0/16", "fe80::/10"]],
  ["unique local", ["fc00::/7"]],
];
const KINDS = NOT_A_CRAWLER.map(([kind, cidrs]) => ({ kind, ranges: new RangeSet([...cidrs]) }));

/** What kind of non-public address `ip` is, or null for a public (or documentation) one. */
export function nonPublicKind(ip: ParsedIp): string | null {
  return KINDS.find((k) => k.ranges.has(ip))?.kind ?? null;
}

/** The unverifiable reason for a non-public address, or null when the address is public or not one. */
export function notPublicReason(ip: string | null): string | null {
  const parsed = ip ? parseIp(ip) : null;
  const kind = parsed ? nonPublicKind(parsed) : null;
  return kind ? `not a public address (${kind}): the sender reported its proxy's address` : null;
}
