/**
 * The authorization request (RFC 6749 §4.1.1 with PKCE, RFC 8707 and RFC 9207): checked before anything is
 * shown. A bad client or redirect URI is told to the person on the page, never sent to an unverified
 * redirect URI; every other problem goes back to the client as an error redirect carrying state and iss.
 */
import type { OAuthContext } from "./state.ts";
import { findClient } from "./clients.ts";
import { OAuthError } from "./errors.ts";
import { CHALLENGE_PATTERN } from "./secrets.ts";
import { type Endpoints, redirectMatches } from "./urls.ts";
import { type OAuthClient, READ_SCOPE } from "./types.ts";

export interface AuthorizationRequest {
  client: OAuthClient;
  redirect_uri: string;
  state: string | null;
  code_challenge: string;
  resource: string;
  scope: string;
}

export type Checked =
  | { kind: "ok"; request: AuthorizationRequest }
  /** Shown to the person: the client cannot be trusted with a redirect. */
  | { kind: "page"; status: 400; message: string }
  /** Sent back to the client. */
  | { kind: "redirect"; location: string };

/** The redirect back to the client with these parameters, plus state and iss (RFC 9207). */
export function redirectBack(
  redirectUri: string,
  params: Record<string, string>,
  state: string | null,
  issuer: string,
): string {
  const u = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  if (state !== null) u.searchParams.set("state", state);
  u.searchParams.set("iss", issuer);
  return u.toString();
}

const SINGLE = [
  "client_id",
  "redirect_uri",
  "response_type",
  "state",
  "code_challenge",
  "code_challenge_method",
  "resource",
  "scope",
];
/** Scopes a client may ask for; offline_access is accepted and means nothing more (refresh is always given). */
const KNOWN_SCOPES = new Set([READ_SCOPE, "offline_access"]);

export async function checkAuthorizationRequest(
  ctx: OAuthContext,
  q: URLSearchParams,
  ep: Endpoints,
): Promise<Checked> {
  const clientId = q.get("client_id");
  if (!clientId) return { kind: "page", status: 400, message: "The request names no client (client_id)." };
  let client: OAuthClient;
  try {
    client = await findClient(ctx, clientId);
  } catch (err) {
    if (!(err instanceof OAuthError)) throw err;
    return { kind: "page", status: 400, message: `This assistant cannot connect: ${err.message}.` };
  }
  const redirectUri = q.get("redirect_uri");
  if (!redirectUri) return { kind: "page", status: 400, message: "The request names no redirect_uri." };
  if (q.getAll("redirect_uri").length > 1 || !redirectMatches(client.redirect_uris, redirectUri)) {
    return {
      kind: "page",
      status: 400,
      message:
        `The redirect URI ${redirectUri.slice(0, 200)} is not one that ${client.client_name} registered, ` +
        "so the connection was not started.",
    };
  }
  const state = q.get("state");
  const fail = (error: string, description: string): Checked => ({
    kind: "redirect",
    location: redirectBack(redirectUri, { error, error_description: description }, state, ep.issuer),
  });
  const repeated = SINGLE.find((p) => q.getAll(p).length > 1);
  if (repeated) return fail("invalid_request", `${repeated} was given more than once`);
  if (q.get("response_type") !== "code") {
    return fail("unsupported_response_type", 'response_type must be "code"');
  }
  const challenge = q.get("code_challenge");
  if (!challenge) return fail("invalid_request", "code_challenge is required (PKCE with S256)");
  if (q.get("code_challenge_method") !== "S256") {
    return fail("invalid_request", 'code_challenge_method must be "S256"');
  }
  if (!CHALLENGE_PATTERN.test(challenge)) {
    return fail(
      "invalid_request",
      "code_challenge must be the base64url SHA-256 of the verifier (43 characters)",
    );
  }
  const resource = q.get("resource");
  if (resource !== ep.resource) {
    return fail(
      "invalid_target",
      resource
        ? `resource must be ${ep.resource}, not ${resource.slice(0, 200)}`
        : `resource is required: ${ep.resource}`,
    );
  }
  const asked = (q.get("scope") ?? READ_SCOPE).split(" ").filter(Boolean);
  const unknown = asked.find((s) => !KNOWN_SCOPES.has(s));
  if (unknown) {
    return fail("invalid_scope", `unknown scope "${unknown.slice(0, 100)}"; this service offers "read"`);
  }
  if (state !== null && state.length > 2000) {
    return fail("invalid_request", "state is longer than 2000 characters");
  }
  return {
    kind: "ok",
    request: {
      client,
      redirect_uri: redirectUri,
      state,
      code_challenge: challenge,
      resource,
      scope: READ_SCOPE,
    },
  };
}
