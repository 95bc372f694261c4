/**
 * The message the next page of a session shows once (post, redirect, get). A newly created key travels in
 * it encrypted (AES-GCM) with a key derived from the session's cookie token, which the store never holds:
 * the secret is readable only by that browser's next request, and is deleted by reading it (a reload no
 * longer shows it). Flash records expire after FLASH_MS if no page reads them.
 */
import { keys } from "../store/keys.ts";

export const FLASH_MS = 10 * 60_000;

export interface Flash {
  notice?: string;
  error?: string;
  /** sealed: see sealSecret */
  secret?: { iv: string; data: string };
}

const enc = new TextEncoder();
const b64 = (b: ArrayBuffer | Uint8Array) => btoa(String.fromCharCode(...new Uint8Array(b)));
const unb64 = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));

async function aesKey(sessionToken: string): Promise<CryptoKey> {
  const raw = await crypto.subtle.digest("SHA-256", enc.encode(`flash-secret:${sessionToken}`));
  return await crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]);
}

export async function sealSecret(sessionToken: string, value: unknown): Promise<Flash["secret"]> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const data = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv },
    await aesKey(sessionToken),
    enc.encode(JSON.stringify(value)),
  );
  return { iv: b64(iv), data: b64(data) };
}

export async function openSecret<T>(
  sessionToken: string,
  sealed: NonNullable<Flash["secret"]>,
): Promise<T | null> {
  try {
    const plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: unb64(sealed.iv) },
      await aesKey(sessionToken),
      unb64(sealed.data),
    );
    return JSON.parse(new TextDecoder().decode(plain)) as T;
  } catch {
    return null;
  }
}

export async function setFlash(kv: Deno.Kv, sessionHash: string, flash: Flash): Promise<void> {
  await kv.set(keys.flash(sessionHash), flash, { expireIn: FLASH_MS });
}

/** Reads and deletes the flash; null when there is none (or another request took it first). */
export async function takeFlash(kv: Deno.Kv, sessionHash: string): Promise<Flash | null> {
  const entry = await kv.get<Flash>(keys.flash(sessionHash));
  if (!entry.value) return null;
  const res = await kv.atomic().check(entry).delete(keys.flash(sessionHash)).commit();
  return res.ok ? entry.value : null;
}
