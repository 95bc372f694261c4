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
  // The URL parser drops leading and trailing spaces and control characters and removes tabs and newlines:
  // such a URI would be kept as one string and followed as another.
  if (CONTROL_OR_SPACE.test(raw)) {
    return `${JSON.stringify(raw.slice(0, 200))} holds a space or control character; send the URI alone`;
  }
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

// deno-lint-ignore no-control-regex
const CONTROL_OR_SPACE = /[\u0000-\u0020\u007f-\u009f]/;

/**
 * Whether the requested redirect URI is one registered, compared as strings: exactly, or for a loopback
 * registration the same string with only the port changed. Spellings the URL parser would turn into a
 * registered URI (`HTTP://…`, `http://127.1:…`, a leading space or NUL) are different strings and refused.
 */
export function redirectMatches(registered: readonly string[], requested: string): boolean {
  if (CONTROL_OR_SPACE.test(requested)) return false;
  if (registered.includes(requested)) return true;
  let want: URL;
  try {
    want = new URL(requested);
  } catch {
    return false;
  }
  if (want.href !== requested || want.protocol !== "http:" || !isLoopbackHost(want.hostname)) return false;
  return registered.some((r) => {
    try {
      const u = new URL(r);
      if (u.href !== r || u.protocol !== "http:" || !isLoopbackHost(u.hostname)) return false;
      u.port = want.port;
      return u.href === requested;
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

/**
 * The issuer policy of a start (README, Configuration): PUBLIC_URL when set. Without it a development
 * start follows the request (loopback only), and so does Deno Deploy, whose edge routes only the project's
 * own domains; a self-hosted production start pins the issuer to the address it listens on and says so,
 * so a forged Host header can never name the issuer or the endpoints.
 */
export function issuerPolicy(
  config: Pick<Config, "publicUrl" | "dev">,
  env: Record<string, string | undefined>,
  listeningPort: number,
): { publicUrl: string | null; warning: string | null } {
  if (config.publicUrl || config.dev || env.DENO_DEPLOYMENT_ID) {
    return { publicUrl: config.publicUrl, warning: null };
  }
  const pinned = `http://127.0.0.1:${listeningPort}`;
  return {
    publicUrl: pinned,
    warning: `PUBLIC_URL is not set: the OAuth issuer and MCP resource are pinned to ${pinned}; ` +
      "set PUBLIC_URL to the service's public origin (https://analytics.example.com) for assistants to connect",
  };
}
