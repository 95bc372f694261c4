/** The client's address: the socket peer, or the first X-Forwarded-For hop when TRUST_PROXY is set. */
export interface ConnInfo {
  remoteAddr?: { hostname?: string };
}

export function clientAddress(req: Request, info: ConnInfo | undefined, trustProxy: boolean): string | null {
  if (trustProxy) {
    const fwd = req.headers.get("x-forwarded-for");
    const first = fwd?.split(",")[0]?.trim();
    if (first) return first;
  }
  return info?.remoteAddr?.hostname ?? null;
}
