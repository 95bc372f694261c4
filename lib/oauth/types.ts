/**
 * What the service keeps for assistants that connect interactively (OAuth 2.1 for MCP). Codes and tokens
 * are random strings shown once; KV holds only their SHA-256 hashes (lib/store/keys.ts).
 */
import type { EnvName } from "../store/records.ts";

/** The one scope: read the chosen organizations' analytics. Nothing an assistant can do writes. */
export const READ_SCOPE = "read";

export const ACCESS_TTL_MS = 60 * 60_000; // 1 hour
export const REFRESH_TTL_MS = 30 * 24 * 60 * 60_000; // 30 days from each rotation
export const CODE_TTL_MS = 2 * 60_000; // a code is exchanged right after the redirect
export const PENDING_TTL_MS = 15 * 60_000; // time to read the consent page and decide
/** A used code or refresh token is remembered this long, so a replay can revoke what it produced. */
export const USED_MEMORY_MS = 24 * 60 * 60_000;

export type TokenAuthMethod = "none" | "client_secret_basic" | "client_secret_post";

/** A client as the authorization server knows it, whichever way it identified itself. */
export interface OAuthClient {
  client_id: string;
  /** "metadata": client_id is the URL of its metadata document; "registered": dynamic registration. */
  kind: "metadata" | "registered";
  client_name: string;
  /** Only https or loopback URIs are kept (others are dropped at registration and never matched). */
  redirect_uris: string[];
  token_endpoint_auth_method: TokenAuthMethod;
  /** Registered clients with a secret: its SHA-256 hash. */
  secret_hash: string | null;
  client_uri: string | null;
  created_at: string;
}

/**
 * A checked authorization request waiting for the person's decision. It is bound to the first person who
 * opens its consent page (after signing in, if they must), and decided once.
 */
export interface PendingAuthorization {
  id: string;
  user: string | null;
  client_id: string;
  client_name: string;
  redirect_uri: string;
  state: string | null;
  code_challenge: string;
  resource: string;
  scope: string;
  issuer: string;
  created_at: number;
}

export interface CodeRecord {
  client_id: string;
  user: string;
  orgs: string[];
  env: EnvName;
  redirect_uri: string;
  code_challenge: string;
  resource: string;
  scope: string;
  client_name: string;
  expires_at: number;
  /** Set when exchanged: a second exchange is refused and revokes this grant. */
  used_grant: string | null;
}

/** One connection: a person let one client read some of their organizations. */
export interface Grant {
  id: string;
  user: string;
  client_id: string;
  client_name: string;
  redirect_host: string;
  orgs: string[];
  env: EnvName;
  scope: string;
  resource: string;
  created_at: number;
  disconnected_at: number | null;
  /** Why it ended: "disconnected", "refresh token reused", "code reused", "signed out everywhere", … */
  ended_because: string | null;
}

export interface AccessRecord {
  grant: string;
  client_id: string;
  resource: string;
  expires_at: number;
}

export interface RefreshRecord {
  grant: string;
  client_id: string;
  expires_at: number;
  /** Set when rotated: presenting it again is a replay and ends the grant. */
  used_at: number | null;
}
