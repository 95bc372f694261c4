/**
 * Discovery documents: Protected Resource Metadata (RFC 9728) for /mcp, Authorization Server Metadata
 * (RFC 8414, also served where OpenID clients look), and the 401 challenge that points at them.
 */
import type { Endpoints } from "./urls.ts";
import { READ_SCOPE } from "./types.ts";

export function protectedResourceMetadata(ep: Endpoints): Record<string, unknown> {
  return {
    resource: ep.resource,
    authorization_servers: [ep.issuer],
    scopes_supported: [READ_SCOPE],
    bearer_methods_supported: ["header"],
    resource_name: "Behavior analytics (read-only)",
  };
}

export function authorizationServerMetadata(ep: Endpoints): Record<string, unknown> {
  return {
    issuer: ep.issuer,
    authorization_endpoint: ep.authorization,
    token_endpoint: ep.token,
    registration_endpoint: ep.registration,
    revocation_endpoint: ep.revocation,
    scopes_supported: [READ_SCOPE],
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    token_endpoint_auth_methods_supported: ["none", "client_secret_basic", "client_secret_post"],
    revocation_endpoint_auth_methods_supported: ["none", "client_secret_basic", "client_secret_post"],
    code_challenge_methods_supported: ["S256"],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
  };
}

const quoted = (s: string) => s.replaceAll("\\", "").replaceAll('"', "'");

/** The WWW-Authenticate value of a 401 from /mcp (RFC 6750 §3 with RFC 9728's resource_metadata). */
export function bearerChallenge(ep: Endpoints, error?: { code: string; description: string }): string {
  const parts = [`resource_metadata="${ep.resourceMetadata}"`, `scope="${READ_SCOPE}"`];
  if (error) parts.push(`error="${error.code}"`, `error_description="${quoted(error.description)}"`);
  return `Bearer ${parts.join(", ")}`;
}
