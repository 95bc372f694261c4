/**
 * Password hashing with scrypt from node:crypto (memory-hard). Parameters: N = 2^15, r = 8, p = 3, a 16-byte
 * random salt, a 32-byte key: one of OWASP's recommended scrypt settings (32 MiB of memory per hash, about
 * 0.3-0.7 s on our 2-core machines). The parameters are stored in the hash, so raising them later keeps old
 * hashes verifiable (and `needsRehash` tells sign-in to upgrade them).
 *
 * The cost is log2 N (`cost` below, Config.passwordCost): 15 unless a caller passes another. PASSWORD_COST
 * may only raise it (lib/config.ts); tests pass a lower one (MIN_PASSWORD_COST at least, through their
 * Config) so that their many accounts do not each cost half a second of CPU.
 */
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import { MAX_PASSWORD_COST, MIN_PASSWORD_COST, PASSWORD_COST } from "../config.ts";

/**
 * PASSWORD_COST (15): production's cost, the default everywhere; MIN_PASSWORD_COST (10, N = 1024: 1 MiB and a
 * few ms a hash): the least, for tests only; MAX_PASSWORD_COST (20: 1 GiB of memory a hash). Kept in
 * lib/config.ts, which may not import this folder.
 */
export { MAX_PASSWORD_COST, MIN_PASSWORD_COST, PASSWORD_COST };
export const PASSWORD_PARAMS = { N: 2 ** PASSWORD_COST, r: 8, p: 3, keyLength: 32, saltLength: 16 } as const;
export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 200;

interface Params {
  N: number;
  r: number;
  p: number;
}

function derive(
  password: string,
  salt: Uint8Array,
  { N, r, p }: Params,
  keyLength: number,
): Promise<Uint8Array> {
  return new Promise((resolve, reject) =>
    scrypt(
      password.normalize("NFKC"),
      salt,
      keyLength,
      { N, r, p, maxmem: 256 * N * r },
      (err, key) => err ? reject(err) : resolve(key),
    )
  );
}

const b64 = (b: Uint8Array) => btoa(String.fromCharCode(...b));
const unb64 = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));

function costN(cost: number): number {
  if (!Number.isInteger(cost) || cost < MIN_PASSWORD_COST || cost > MAX_PASSWORD_COST) {
    throw new RangeError(
      `password cost must be an integer from ${MIN_PASSWORD_COST} to ${MAX_PASSWORD_COST}`,
    );
  }
  return 2 ** cost;
}

export async function hashPassword(password: string, cost = PASSWORD_COST): Promise<string> {
  const N = costN(cost);
  const { r, p, keyLength, saltLength } = PASSWORD_PARAMS;
  const salt = new Uint8Array(randomBytes(saltLength));
  const key = await derive(password, salt, { N, r, p }, keyLength);
  return `scrypt$${N}$${r}$${p}$${b64(salt)}$${b64(key)}`;
}

/** Constant-time comparison of the derived key; a malformed stored hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return false;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  if (![N, r, p].every((n) => Number.isInteger(n) && n > 0)) return false;
  const expected = unb64(parts[5]);
  const key = await derive(password, unb64(parts[4]), { N, r, p }, expected.length);
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** A hash weaker than `cost` asks to be made again; a stronger one is kept (never lowered). */
export function needsRehash(stored: string, cost = PASSWORD_COST): boolean {
  if (stored === "") return false;
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return true;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  return !(N >= costN(cost) && r >= PASSWORD_PARAMS.r && p >= PASSWORD_PARAMS.p);
}

/** Used for unknown addresses so a wrong email costs the same time as a wrong password (at that cost). */
const dummies = new Map<number, Promise<string>>();
export function dummyHash(cost = PASSWORD_COST): Promise<string> {
  let dummy = dummies.get(cost);
  if (!dummy) dummies.set(cost, dummy = hashPassword("not a password of anyone", cost));
  return dummy;
}

/** What a new password must be: a length, nothing else (long passphrases welcome). */
export function passwordProblem(password: string): string | null {
  if (password.length < MIN_PASSWORD_LENGTH) return `must be at least ${MIN_PASSWORD_LENGTH} characters`;
  if (password.length > MAX_PASSWORD_LENGTH) return `must be at most ${MAX_PASSWORD_LENGTH} characters`;
  return null;
}
