/** Random secrets (codes, tokens, ids): 32 random bytes as base64url unless asked otherwise. */
export function randomSecret(prefix: string, bytes = 32): string {
  const buf = crypto.getRandomValues(new Uint8Array(bytes));
  return prefix +
    btoa(String.fromCharCode(...buf)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** PKCE S256 (RFC 7636 §4.6): base64url(SHA-256(verifier)) without padding. */
export async function s256(verifier: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  return btoa(String.fromCharCode(...digest)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
export const VERIFIER_PATTERN = /^[A-Za-z0-9\-._~]{43,128}$/;
/** A challenge is the base64url SHA-256 of a verifier: 43 characters. */
export const CHALLENGE_PATTERN = /^[A-Za-z0-9_-]{43}$/;
