/** API key format, generation and hashing. Secrets are stored only as SHA-256 hashes. */
import { createHash } from "node:crypto";
import type { EnvName, KeyKind } from "../store/records.ts";

const ENV_TAG: Record<EnvName, string> = { production: "prod", staging: "stg", development: "dev" };

/** Key prefixes: `svc_pk_`, `svc_sk_<env>_`, `svc_rk_<env>_` (env: prod, stg, dev). */
export function keyPrefix(kind: KeyKind, env: EnvName): string {
  if (kind === "public") return "svc_pk_";
  return `svc_${kind === "server" ? "sk" : "rk"}_${ENV_TAG[env]}_`;
}

export const PUBLIC_KEY_PATTERN = /^svc_pk_[A-Za-z0-9_-]{8,120}$/;
export const SERVER_KEY_PATTERN = /^svc_sk_(prod|stg|dev)_[A-Za-z0-9_-]{16,120}$/;
export const READ_KEY_PATTERN = /^svc_rk_(prod|stg|dev)_[A-Za-z0-9_-]{16,120}$/;

function randomToken(bytes: number): string {
  const buf = crypto.getRandomValues(new Uint8Array(bytes));
  // base64url without padding: only [A-Za-z0-9_-]
  return btoa(String.fromCharCode(...buf)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

export function generateKey(kind: KeyKind, env: EnvName): string {
  return keyPrefix(kind, env) + randomToken(kind === "public" ? 18 : 30);
}

export function randomId(prefix: string): string {
  return prefix + randomToken(9).replaceAll("-", "x").replaceAll("_", "y");
}

/** Synchronous: WebCrypto's async digest cost ~0.7 ms of the ingest thread per request (profiled). */
export function sha256Hex(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** Constant-time comparison of two strings (for the admin token). */
export function safeEqual(a: string, b: string): boolean {
  const ea = new TextEncoder().encode(a);
  const eb = new TextEncoder().encode(b);
  let diff = ea.length ^ eb.length;
  for (let i = 0; i < Math.max(ea.length, eb.length); i++) diff |= (ea[i] ?? 0) ^ (eb[i] ?? 0);
  return diff === 0;
}

/** The part of a key safe to show in listings: its kind prefix and four characters. */
export const displayPrefix = (key: string, kind: KeyKind, env: EnvName) =>
  key.slice(0, keyPrefix(kind, env).length + 4);
