/**
 * OAuth clients: a metadata-document client (client_id is an https URL, fetched on use) or a client that
 * registered itself (RFC 7591). Registration keeps only acceptable redirect URIs (https, or http on a
 * loopback host) and says which it kept; it fails only when none is left.
 */
import { z } from "zod";
import type { OAuthContext } from "./state.ts";
import { keys } from "../store/keys.ts";
import { safeEqual, sha256Hex } from "../keys/apikeys.ts";
import { describeZodError } from "../schemas/zod_errors.ts";
import { invalidClient, OAuthError } from "./errors.ts";
import { isMetadataDocumentUrl } from "./metadata_document.ts";
import { redirectUriProblem } from "./urls.ts";
import { randomSecret } from "./secrets.ts";
import { type OAuthClient, READ_SCOPE } from "./types.ts";

const invalidMetadata = (msg: string) => new OAuthError("invalid_client_metadata", msg);

export const registrationSchema = z.object({
  redirect_uris: z.array(z.string().max(2000)).min(1).max(20),
  client_name: z.string().max(200).optional(),
  token_endpoint_auth_method: z.enum(["none", "client_secret_basic", "client_secret_post"]).optional(),
  grant_types: z.array(z.string()).optional(),
  response_types: z.array(z.string()).optional(),
  scope: z.string().max(1000).optional(),
  client_uri: z.string().max(500).optional(),
}).passthrough();

export type RegistrationRequest = z.infer<typeof registrationSchema>;

/** Registers a client; the answer is the RFC 7591 registration response (the secret shown this once). */
export async function registerClient(ctx: OAuthContext, body: unknown): Promise<Record<string, unknown>> {
  const parsed = registrationSchema.safeParse(body);
  if (!parsed.success) {
    const method = (body as Record<string, unknown> | null)?.token_endpoint_auth_method;
    if (parsed.error.issues.some((i) => i.path[0] === "token_endpoint_auth_method")) {
      throw invalidMetadata(
        `token_endpoint_auth_method "${String(method)}" is not supported; use none, ` +
          "client_secret_basic or client_secret_post",
      );
    }
    throw invalidMetadata(describeZodError(parsed.error));
  }
  const req = parsed.data;
  const kept = req.redirect_uris.filter((u) => redirectUriProblem(u) === null);
  if (kept.length === 0) {
    throw new OAuthError("invalid_redirect_uri", redirectUriProblem(req.redirect_uris[0])!);
  }
  if (req.grant_types && !req.grant_types.includes("authorization_code")) {
    throw invalidMetadata(
      "grant_types must include authorization_code (the only flow offered, with refresh_token)",
    );
  }
  if (req.response_types && !req.response_types.includes("code")) {
    throw invalidMetadata('response_types must include "code"');
  }
  const now = ctx.deps.clock.now();
  const method = req.token_endpoint_auth_method ?? "none";
  const secret = method === "none" ? null : randomSecret("svc_cs_");
  const client: OAuthClient = {
    client_id: randomSecret("oc_", 18),
    kind: "registered",
    client_name: req.client_name?.trim() || "Unnamed assistant",
    redirect_uris: kept,
    token_endpoint_auth_method: method,
    secret_hash: secret ? sha256Hex(secret) : null,
    client_uri: req.client_uri?.startsWith("https://") ? req.client_uri : null,
    created_at: new Date(now).toISOString(),
  };
  await ctx.deps.kv.set(keys.oauthClient(client.client_id), client);
  return {
    client_id: client.client_id,
    client_id_issued_at: Math.floor(now / 1000),
    ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
    client_name: client.client_name,
    redirect_uris: client.redirect_uris,
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: method,
    scope: READ_SCOPE,
    ...(client.client_uri ? { client_uri: client.client_uri } : {}),
  };
}

/** The client behind a client_id: its metadata document, or its registration. 401 invalid_client if neither. */
export async function findClient(ctx: OAuthContext, clientId: string): Promise<OAuthClient> {
  if (isMetadataDocumentUrl(clientId)) return await ctx.oauth.documents.resolve(clientId);
  if (!/^oc_[A-Za-z0-9_-]{8,64}$/.test(clientId)) {
    throw invalidClient(
      `unknown client_id "${clientId.slice(0, 100)}": register first or use a metadata document URL`,
    );
  }
  const rec = await ctx.deps.kv.get<OAuthClient>(keys.oauthClient(clientId));
  if (!rec.value) throw invalidClient(`unknown client_id "${clientId}"`);
  return rec.value;
}

/**
 * Authenticates the client of a token or revocation request: HTTP Basic or form credentials for clients
 * registered with a secret; public clients (metadata documents, "none") identify themselves by client_id.
 */
export async function authenticateClient(
  ctx: OAuthContext,
  authorization: string | undefined,
  form: URLSearchParams,
): Promise<OAuthClient> {
  let id = form.get("client_id");
  let secret = form.get("client_secret");
  const basic = authorization?.match(/^Basic\s+([A-Za-z0-9+/=]+)\s*$/i);
  if (basic) {
    const [basicId, basicSecret] = decodeBasic(basic[1]);
    if (id && id !== basicId) throw invalidClient("client_id differs between the body and Basic credentials");
    id = basicId;
    secret = basicSecret;
  }
  if (!id) throw invalidClient("client_id is required", !!basic);
  const client = await findClient(ctx, id);
  if (client.token_endpoint_auth_method === "none") return client;
  if (!secret || !client.secret_hash || !safeEqual(sha256Hex(secret), client.secret_hash)) {
    throw invalidClient(
      "client authentication failed",
      client.token_endpoint_auth_method === "client_secret_basic",
    );
  }
  return client;
}

/**
 * Basic credentials (RFC 6749 2.3.1: form-encoded id and secret, base64 together). A value that is not base64,
 * has no colon or carries a broken %-escape is a failed client authentication (401 invalid_client), not a 500.
 */
function decodeBasic(value: string): [string, string] {
  const form = (s: string) => decodeURIComponent(s.replaceAll("+", " "));
  try {
    const decoded = atob(value);
    const colon = decoded.indexOf(":");
    if (colon >= 0) return [form(decoded.slice(0, colon)), form(decoded.slice(colon + 1))];
  } catch {
    // atob's InvalidCharacterError or decodeURIComponent's URIError: answered below like a missing colon
  }
  throw invalidClient("malformed Basic credentials", true);
}
