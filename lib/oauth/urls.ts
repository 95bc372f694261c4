/**
 * Where things are: the issuer and the MCP resource are the service's public origin (PUBLIC_URL, else the
 * request's own origin) and that origin's /mcp. Also the redirect URI rules: https, or http on a loopback
 * host; matched exactly, except that a loopback redirect may use any port (RFC 8252 §7.3: native apps listen
 * on a port the system gives them at that moment).
 */
import type { Config } from "../config.ts";

export const AUTHORIZE_PATH = "/oauth/authorize";
export const TOKEN_PATH = "/oauth/token";
export const REGISTER_PATH = "/oauth/register";
export const REVOKE_PATH = "/oauth/revoke";
export const MCP_PATH = "/mcp";
export const PRM_PATH = "/.well-known/oauth-protected-resource";

export interface Endpoints {
  issuer: string;
  resource: string;
  resourceMetadata: string;
  authorization: string;
  token: string;
  registration: string;
  revocation: string;
}

export function endpoints(config: Pick<Config, "publicUrl">, requestUrl: string): Endpoints {
  const base = config.publicUrl || new URL(requestUrl).origin;
  return {
    issuer: base,
    resource: base + MCP_PATH,
    resourceMetadata: base + PRM_PATH + MCP_PATH,
    authorization: base + AUTHORIZE_PATH,
    token: base + TOKEN_PATH,
    registration: base + REGISTER_PATH,
    revocation: base + REVOKE_PATH,
  };
}

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

export const isLoopbackHost = (hostname: string) => LOOPBACK_HOSTS.has(hostname.toLowerCase());

/** Why a redirect URI is not acceptable, or null when it is. */
export function redirectUriProblem(raw: unknown): string | null {
  if (typeof raw !== "string" || raw.length === 0) return "a redirect URI must be a non-empty string";
  if (raw.length > 2000) return "a redirect URI may have at most 2000 characters";
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return `"${raw.slice(0, 200)}" is not an absolute URL`;
  }
  if (u.hash || raw.includes("#")) return `"${raw.slice(0, 200)}" has a fragment; redirect URIs may not`;
  if (u.username || u.password) return `"${raw.slice(0, 200)}" carries credentials`;
  if (u.protocol === "https:") return null;
  if (u.protocol === "http:" && isLoopbackHost(u.hostname)) return null;
  return `"${raw.slice(0, 200)}" is neither https nor http on a loopback host (localhost, 127.0.0.1, [::1])`;
}

/** The redirect URI as requested, if one registered URI matches it (exactly, or loopback with any port). */
export function redirectMatches(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  let want: URL;
  try {
    want = new URL(requested);
  } catch {
    return false;
  }
  if (want.protocol !== "http:" || !isLoopbackHost(want.hostname)) return false;
  return registered.some((r) => {
    try {
      const u = new URL(r);
      return u.protocol === "http:" && u.hostname === want.hostname && u.pathname === want.pathname &&
        u.search === want.search && redirectUriProblem(requested) === null;
    } catch {
      return false;
    }
  });
}

/** The host a person sees on the consent page and in the list of connections. */
export function redirectHost(uri: string): string {
  try {
    return new URL(uri).host;
  } catch {
    return uri.slice(0, 100);
  }
}
