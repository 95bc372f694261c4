/**
 * The client's address in its canonical form: the socket peer, or, when TRUST_PROXY is set (one trusted
 * proxy in front of the service), the last X-Forwarded-For hop, which that proxy appended. Hops further left
 * are written by the client and never trusted. An unparseable value falls back to the socket peer.
 */
import { canonicalIp } from "../ip.ts";

export interface ConnInfo {
  remoteAddr?: { hostname?: string };
}

export function clientAddress(req: Request, info: ConnInfo | undefined, trustProxy: boolean): string | null {
  if (trustProxy) {
    const hops = req.headers.get("x-forwarded-for")?.split(",") ?? [];
    const last = canonicalIp(hops[hops.length - 1]);
    if (last) return last;
  }
  return canonicalIp(info?.remoteAddr?.hostname);
}
