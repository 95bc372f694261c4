/**
 * Which addresses the service may fetch from on someone else's say (an assistant's client metadata document, a
 * website's robots.txt and its redirects): public unicast only. The host is
 * resolved through deps.dns and every address it resolves to must be public, so a document URL cannot make
 * the service read its own network (private, loopback, link-local, carrier-grade NAT, documentation,
 * multicast, reserved, and the IPv6 forms that embed such an IPv4 address).
 */
import type { Dns } from "../dns.ts";
import { parseIp, RangeSet } from "./cidr.ts";
import { NOT_A_CRAWLER } from "./public_address.ts";

const LOOPBACK = new RangeSet(["127.0.0.0/8", "::1/128"]);

const NOT_PUBLIC = new RangeSet([
  ...NOT_A_CRAWLER.flatMap(([, cidrs]) => cidrs),
  "192.0.0.0/24",
  "192.0.2.0/24",
  "192.88.99.0/24",
  "198.18.0.0/15",
  "198.51.100.0/24",
  "203.0.113.0/24",
  "224.0.0.0/4",
  "240.0.0.0/4",
  "64:ff9b::/96", // NAT64: reaches any IPv4 address, private ones included
  "64:ff9b:1::/48",
  "100::/64",
  "2001::/32", // Teredo
  "2001:db8::/32",
  "2002::/16", // 6to4: embeds an IPv4 address
  "fec0::/10",
  "ff00::/8",
]);

export type AddressKind = "public" | "loopback" | "not_public";

export function addressKind(ip: string): AddressKind {
  const p = parseIp(ip);
  if (!p) return "not_public";
  if (LOOPBACK.has(p)) return "loopback";
  return NOT_PUBLIC.has(p) ? "not_public" : "public";
}

/**
 * Null when every address of the host may be fetched from, else why not. With `allowUnresolved`, a name that
 * resolves to nothing is left to the fetch (which then fails to connect) rather than refused here.
 */
export async function hostProblem(
  hostname: string,
  dns: Dns,
  allowLoopback: boolean,
  allowUnresolved = false,
): Promise<string | null> {
  const host = hostname.startsWith("[") ? hostname.slice(1, -1) : hostname;
  const lower = host.toLowerCase();
  let addresses: string[];
  if (parseIp(host)) addresses = [host];
  else if (lower === "localhost" || lower.endsWith(".localhost")) addresses = ["127.0.0.1"];
  else {
    try {
      addresses = await dns.forward(lower);
    } catch {
      return `${hostname} could not be resolved`;
    }
    if (addresses.length === 0) return allowUnresolved ? null : `${hostname} does not resolve to an address`;
  }
  for (const a of addresses) {
    const kind = addressKind(a);
    if (kind === "public" || (kind === "loopback" && allowLoopback)) continue;
    return `${hostname} resolves to a ${kind === "loopback" ? "loopback" : "private or reserved"} address`;
  }
  return null;
}
