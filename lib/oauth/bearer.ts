/**
 * /mcp's side of OAuth: an access token in, the connection it belongs to out, or a 401 whose challenge
 * points the client at the resource metadata (RFC 9728 §5.1), so it can sign in again by itself.
 */
import type { Directory } from "../tenancy/directory.ts";
import type { OAuthContext } from "./state.ts";
import { failure, type HttpError } from "../errors.ts";
import type { Org } from "../store/records.ts";
import { bearerChallenge } from "./metadata.ts";
import { markUsed } from "./grants.ts";
import { ACCESS_PREFIX, checkAccessToken } from "./tokens.ts";
import { endpoints } from "./urls.ts";
import type { Grant } from "./types.ts";

export const isAccessToken = (token: string) => token.startsWith(ACCESS_PREFIX);

/** A 401 for /mcp with the discovery challenge; `error` only when a token was sent (RFC 6750 §3.1). */
export function mcpUnauthorized(
  ctx: OAuthContext & { directory: Directory },
  requestUrl: string,
  message: string,
  hadToken: boolean,
): HttpError {
  const ep = endpoints(ctx.deps.config, requestUrl);
  const challenge = bearerChallenge(
    ep,
    hadToken ? { code: "invalid_token", description: message } : undefined,
  );
  return failure("unauthorized", message, { "WWW-Authenticate": challenge });
}

export interface Connected {
  grant: Grant;
  /** The organizations the connection reads now, in the grant's order. */
  orgs: Org[];
}

/** The connection behind an access token, checked now (cached seconds); 401 with the challenge otherwise. */
export async function authenticateAccessToken(
  ctx: OAuthContext & { directory: Directory },
  token: string,
  requestUrl: string,
): Promise<Connected> {
  const check = await checkAccessToken(ctx, token, endpoints(ctx.deps.config, requestUrl));
  if (!check.ok || !check.grant) throw mcpUnauthorized(ctx, requestUrl, check.reason, true);
  const orgs: Org[] = [];
  for (const id of check.grant.orgs) {
    const org = await ctx.directory.org(id);
    if (org) orgs.push(org);
  }
  if (orgs.length === 0) {
    throw mcpUnauthorized(ctx, requestUrl, "none of this connection's organizations exists any more", true);
  }
  await markUsed(ctx, check.grant.id);
  return { grant: check.grant, orgs };
}
