/** Opaque random tokens for links and sessions; only their SHA-256 is ever stored. */
import { sha256Hex } from "../keys/apikeys.ts";

/** 32 random bytes, base64url without padding (43 characters). */
export function newToken(): string {
  const buf = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...buf)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

export const tokenHash = (token: string) => sha256Hex(`people:${token}`);

/** A token as it may appear in a link or cookie: anything else is not looked up at all. */
export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
