/**
 * A first-party proxy (the customer's own server forwarding the web SDK's requests from the site's domain)
 * names the visitor's address, and proves it may: `X-Forwarded-Key` holds the server key of the same
 * touchpoint and environment as the batch's api_key, `X-Visitor-Address` the visitor's IP. Trust is per
 * request, not per service (TRUST_PROXY stays the service's own front proxy): a browser cannot send these
 * headers cross-origin (the preflight allows Content-Type only), and a client without the secret key cannot
 * write its own address. An unknown key counts as a strike against the sending address, as on crawler hits.
 */
import { forbidden, HttpError, invalid, unauthorized } from "../errors.ts";
import { PUBLIC_KEY_PATTERN, READ_KEY_PATTERN } from "../keys/apikeys.ts";
import { canonicalIp } from "../ip.ts";
import type { IngestContext } from "./context.ts";
import { authorizeServerWrite, refuseBlockedAddress } from "./server_access.ts";
import type { WebAccess } from "./web_access.ts";

export const FORWARDED_KEY_HEADER = "x-forwarded-key";
export const VISITOR_ADDRESS_HEADER = "x-visitor-address";

/**
 * The visitor's address a proxy vouches for with its server key; `sender` (the socket peer or the service's
 * own proxy's hop) when the request has no X-Forwarded-Key. A key that does not open, or belongs elsewhere,
 * is refused (401/403), and a missing or unreadable address with a good key is a 422: a proxy set up wrong
 * says so, rather than placing every visitor at its own address.
 */
export async function visitorAddress(
  ctx: Pick<IngestContext, "deps" | "directory" | "unknownKeys">,
  headers: Headers,
  web: WebAccess,
  sender: string | null,
): Promise<string | null> {
  const key = headers.get(FORWARDED_KEY_HEADER);
  if (key === null) return sender;
  await refuseBlockedAddress(ctx, sender); // an address guessing keys is held off here as on crawler hits
  // said for this header: the crawler endpoint's words ("cannot send crawler hits") would mislead here
  if (PUBLIC_KEY_PATTERN.test(key.trim()) || READ_KEY_PATTERN.test(key.trim())) {
    throw unauthorized(
      "X-Forwarded-Key: only the environment's server key (svc_sk_…) may name a visitor's address, not a public or read key",
    );
  }
  let proxy;
  try {
    proxy = await authorizeServerWrite(ctx, `Bearer ${key.trim()}`, sender);
  } catch (e) {
    if (e instanceof HttpError) {
      throw new HttpError(e.status, e.code, `X-Forwarded-Key: ${e.message}`, e.headers);
    }
    throw e;
  }
  if (proxy.org !== web.org.id || proxy.touchpoint.id !== web.touchpoint.id || proxy.env !== web.env) {
    throw forbidden(
      "X-Forwarded-Key: the server key of the api_key's own touchpoint and environment is required",
    );
  }
  const visitor = canonicalIp(headers.get(VISITOR_ADDRESS_HEADER));
  if (!visitor) {
    throw invalid(
      "X-Visitor-Address: with X-Forwarded-Key, send the visitor's IP address (e.g. nginx $remote_addr)",
    );
  }
  return visitor;
}
