/**
 * Store API credentials, encrypted at rest with AES-256-GCM under CREDENTIALS_KEY (32 bytes, base64). The
 * key never sits in KV; without it, credentials can be neither stored nor used. Each value has its own
 * random 12-byte nonce; the app id is bound as additional data, so a value copied to another app fails.
 */
import { invalid } from "../errors.ts";
import { keys } from "../store/keys.ts";

export interface AppStoreConnectCredential {
  kind: "app_store_connect";
  issuer_id: string;
  key_id: string;
  /** The .p8 private key (PKCS#8 PEM, ES256). */
  private_key: string;
}

export interface GooglePlayCredential {
  kind: "google_play";
  client_email: string;
  /** The service account's private key (PKCS#8 PEM, RS256). */
  private_key: string;
  token_uri: string;
}

export type StoreCredential = AppStoreConnectCredential | GooglePlayCredential;

interface Sealed {
  v: 1;
  iv: string;
  data: string;
  kind: StoreCredential["kind"];
  saved_at: number;
}

const b64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const unb64 = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));

async function aesKey(keyB64: string): Promise<CryptoKey> {
  let raw: Uint8Array;
  try {
    raw = unb64(keyB64);
  } catch {
    raw = new Uint8Array();
  }
  if (raw.length !== 32) {
    throw invalid(
      "credentials: the service has no CREDENTIALS_KEY (32 random bytes, base64); ask its operator",
    );
  }
  return await crypto.subtle.importKey("raw", raw as Uint8Array<ArrayBuffer>, "AES-GCM", false, [
    "encrypt",
    "decrypt",
  ]);
}

export async function saveCredential(
  kv: Deno.Kv,
  keyB64: string,
  org: string,
  app: string,
  cred: StoreCredential,
  now: number,
): Promise<void> {
  const key = await aesKey(keyB64);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const data = new Uint8Array(
    await crypto.subtle.encrypt(
      { name: "AES-GCM", iv, additionalData: new TextEncoder().encode(`${org}/${app}`) },
      key,
      new TextEncoder().encode(JSON.stringify(cred)),
    ),
  );
  const sealed: Sealed = { v: 1, iv: b64(iv), data: b64(data), kind: cred.kind, saved_at: now };
  await kv.set(keys.feedbackCredential(org, app), sealed);
}

/** Which kind of credential an app has, without decrypting it (for listings). */
export async function credentialKind(kv: Deno.Kv, org: string, app: string): Promise<string | null> {
  return (await kv.get<Sealed>(keys.feedbackCredential(org, app))).value?.kind ?? null;
}

export async function loadCredential(
  kv: Deno.Kv,
  keyB64: string,
  org: string,
  app: string,
): Promise<StoreCredential | null> {
  const sealed = (await kv.get<Sealed>(keys.feedbackCredential(org, app))).value;
  if (!sealed) return null;
  const key = await aesKey(keyB64);
  const plain = await crypto.subtle.decrypt(
    { name: "AES-GCM", iv: unb64(sealed.iv), additionalData: new TextEncoder().encode(`${org}/${app}`) },
    key,
    unb64(sealed.data),
  );
  return JSON.parse(new TextDecoder().decode(plain)) as StoreCredential;
}

export async function deleteCredential(kv: Deno.Kv, org: string, app: string): Promise<void> {
  await kv.delete(keys.feedbackCredential(org, app));
}
