/**
 * Addresses that cannot be a crawler's: private, loopback, link-local, shared (CGNAT), unique local and
 * unspecified. A hit reported with one came through a proxy the sender did not look behind (the server SDK
 * without trustProxy, the service without TRUST_PROXY), so it says nothing about who the crawler is: it is
 * treated as a missing address (unverifiable, no DNS asked), never as a failed check. Documentation ranges
 * (192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24, 2001:db8::/32) are left alone: tests use them as crawlers.
 */
import { type ParsedIp, parseIp } from "./cidr.ts";

const V4: [base: string, bits: number, kind: string][] = [
  ["0.0.0.0", 8, "unspecified"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "shared (CGNAT)"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local"],
  ["172.16.0.0", 12, "private"],
  ["192.168.0.0", 16, "private"],
];
const V4_RANGES = V4.map(([base, bits, kind]) => {
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return { start: ((parseIp(base) as { n: number }).n & mask) >>> 0, mask, kind };
});

/** What kind of non-public address `ip` is, or null for a public (or documentation) one. */
export function nonPublicKind(ip: ParsedIp): string | null {
  if (ip.v === 4) {
    for (const r of V4_RANGES) if (((ip.n & r.mask) >>> 0) === r.start) return r.kind;
    return null;
  }
  const [w0, w1, w2, w3] = ip.words;
  if (w0 === 0 && w1 === 0 && w2 === 0 && (w3 === 0 || w3 === 1)) {
    return w3 === 0 ? "unspecified" : "loopback";
  }
  const top = w0 >>> 16;
  if ((top & 0xfe00) === 0xfc00) return "unique local";
  if ((top & 0xffc0) === 0xfe80) return "link-local";
  return null;
}

/** The unverifiable reason for a non-public address, or null when the address is public or not one. */
export function notPublicReason(ip: string | null): string | null {
  const parsed = ip ? parseIp(ip) : null;
  const kind = parsed ? nonPublicKind(parsed) : null;
  return kind ? `not a public address (${kind}): the sender reported its proxy's address` : null;
}
