/**
 * Who may send crawler hits: a server key of a website environment that is on, from a server (no Origin).
 * Unknown keys are counted per sending address (hashed, never stored raw): UNKNOWN_KEY_LIMIT unknown or
 * malformed keys within one clock minute block the address until the end of the following minute
 * (60 to 120 seconds), with 429 and Retry-After.
 */
import type { AppContext } from "../context.ts";
import { forbidden, rateLimited, unauthorized } from "../errors.ts";
import { PUBLIC_KEY_PATTERN, READ_KEY_PATTERN, SERVER_KEY_PATTERN, sha256Hex } from "../keys/apikeys.ts";
import { keys } from "../store/keys.ts";
import type { EnvName, Touchpoint } from "../store/records.ts";

export const UNKNOWN_KEY_LIMIT = 20;
const MINUTE_MS = 60_000;

export interface ServerAccess {
  keyId: string;
  org: string;
  touchpoint: Touchpoint;
  env: EnvName;
  touchpoints: Touchpoint[];
}

const addressId = async (addr: string) => (await sha256Hex(`unknown-key-address:${addr}`)).slice(0, 32);

// What this instance last read about an address: strikes of other instances show within RECHECK_MS.
const RECHECK_MS = 1_000;
const knownByStore = new WeakMap<Deno.Kv, Map<string, { readAt: number; blockedUntil: number }>>();
function knownOf(kv: Deno.Kv) {
  let m = knownByStore.get(kv);
  if (!m) knownByStore.set(kv, m = new Map());
  return m;
}

async function blockedUntilOf(ctx: AppContext, id: string, now: number): Promise<number> {
  const known = knownOf(ctx.deps.kv);
  const seen = known.get(id);
  if (seen && now - seen.readAt < RECHECK_MS) return seen.blockedUntil;
  const minute = Math.floor(now / MINUTE_MS);
  const [cur, prev] = await ctx.deps.kv.getMany<[number, number]>([
    keys.unknownKeyStrikes(id, minute),
    keys.unknownKeyStrikes(id, minute - 1),
  ]);
  const blockedUntil = (cur.value ?? 0) >= UNKNOWN_KEY_LIMIT
    ? (minute + 2) * MINUTE_MS
    : (prev.value ?? 0) >= UNKNOWN_KEY_LIMIT
    ? (minute + 1) * MINUTE_MS
    : 0;
  if (known.size > 50_000) known.clear();
  known.set(id, { readAt: now, blockedUntil });
  return blockedUntil;
}

/** 429 while the address is blocked for sending too many unknown keys. */
export async function refuseBlockedAddress(ctx: AppContext, addr: string | null): Promise<void> {
  if (!addr) return;
  const now = ctx.deps.clock.now();
  const blockedUntil = await blockedUntilOf(ctx, await addressId(addr), now);
  if (blockedUntil > now) {
    throw rateLimited(
      (blockedUntil - now) / 1000,
      "this address sent too many unknown keys; it is blocked for a minute",
    );
  }
}

async function strike(ctx: AppContext, addr: string | null): Promise<void> {
  if (!addr) return;
  const minute = Math.floor(ctx.deps.clock.now() / MINUTE_MS);
  const id = await addressId(addr);
  const k = keys.unknownKeyStrikes(id, minute);
  for (let attempt = 0; attempt < 5; attempt++) {
    const cur = await ctx.deps.kv.get<number>(k);
    const ok = await ctx.deps.kv.atomic().check(cur).set(k, (cur.value ?? 0) + 1, { expireIn: 3 * MINUTE_MS })
      .commit();
    if (ok.ok) {
      knownOf(ctx.deps.kv).delete(id); // this instance sees its own strikes at once
      return;
    }
  }
}

/** Resolves the bearer server key, or throws the spec's 401 / 403. */
export async function authorizeServerWrite(
  ctx: AppContext,
  authorization: string | null,
  addr: string | null,
): Promise<ServerAccess> {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
  if (!m) throw unauthorized("send the server key as 'Authorization: Bearer svc_sk_…'");
  const raw = m[1];
  if (PUBLIC_KEY_PATTERN.test(raw)) {
    throw unauthorized("a public write key cannot send crawler hits; use the environment's server key");
  }
  if (READ_KEY_PATTERN.test(raw)) throw unauthorized("a read key cannot send crawler hits; use a server key");
  if (!SERVER_KEY_PATTERN.test(raw)) {
    await strike(ctx, addr);
    throw unauthorized("malformed server key");
  }
  const resolved = await ctx.directory.resolveKey(raw);
  if (!resolved) {
    await strike(ctx, addr);
    throw unauthorized("unknown server key");
  }
  const { key, org, touchpoint } = resolved;
  if (key.kind !== "server") throw unauthorized("not a server key");
  if (key.revoked_at) throw forbidden("this server key was revoked");
  if (!org.active) throw forbidden("the organization is not active");
  if (!touchpoint || touchpoint.archived) throw forbidden("the key's touchpoint is archived");
  if (touchpoint.kind !== "website") throw forbidden("crawler hits are only accepted for websites");
  if (key.expires_at && Date.parse(key.expires_at) <= ctx.deps.clock.now()) {
    throw unauthorized("this key has expired");
  }
  const env = touchpoint.environments[key.environment];
  if (!env || !env.enabled) throw unauthorized(`the ${key.environment} environment is turned off`);
  return {
    keyId: key.id,
    org: org.id,
    touchpoint,
    env: key.environment,
    touchpoints: await ctx.directory.touchpoints(org.id),
  };
}
