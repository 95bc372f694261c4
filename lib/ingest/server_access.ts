/**
 * Who may send crawler hits: a server key of a website environment that is on, from a server (no Origin).
 * Unknown keys are counted per sending address (hashed, never stored raw): UNKNOWN_KEY_LIMIT unknown or
 * malformed keys within 60 seconds block the address for one minute, with 429 and Retry-After.
 */
import type { IngestContext } from "./context.ts";
import { forbidden, rateLimited, unauthorized } from "../errors.ts";
import { PUBLIC_KEY_PATTERN, READ_KEY_PATTERN, SERVER_KEY_PATTERN, sha256Hex } from "../keys/apikeys.ts";
import { keys } from "../store/keys.ts";
import { deleteWhere } from "../store/delete_where.ts";
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

const addressId = (addr: string) => sha256Hex(`unknown-key-address:${addr}`).slice(0, 32);

type BlockContext = Pick<IngestContext, "deps" | "unknownKeys">;

/** 429 while the address is blocked for sending too many unknown keys. */
export async function refuseBlockedAddress(ctx: BlockContext, addr: string | null): Promise<void> {
  if (!addr) return;
  const now = ctx.deps.clock.now();
  const blockedUntil = await ctx.unknownKeys.blockedUntil(addressId(addr), now);
  if (blockedUntil > now) {
    throw rateLimited(
      (blockedUntil - now) / 1000,
      "this address sent too many unknown keys; it is blocked for a minute",
    );
  }
}

/**
 * Records an unknown-key attempt as its own key (a blind write: concurrent strikes never get lost), counts
 * the attempts of the last minute, and blocks the address for a minute from the one that reaches the limit.
 */
async function strike(ctx: BlockContext, addr: string | null): Promise<void> {
  if (!addr) return;
  const { kv, clock } = ctx.deps;
  const now = clock.now();
  const id = addressId(addr);
  await kv.set(keys.unknownKeyStrike(id, now, crypto.randomUUID()), 1, { expireIn: 2 * MINUTE_MS });
  let count = 0;
  const recent = kv.list({
    start: keys.unknownKeyStrikesSince(id, now - MINUTE_MS + 1),
    end: keys.unknownKeyStrikesSince(id, now + 1),
  });
  for await (const _ of recent) if (++count >= UNKNOWN_KEY_LIMIT) break;
  if (count >= UNKNOWN_KEY_LIMIT) {
    await kv.set(keys.unknownKeyBlock(id), now + MINUTE_MS, { expireIn: MINUTE_MS });
    ctx.unknownKeys.forget(id);
  }
}

/**
 * Deletes strikes and blocks that no longer count. They expire in KV too, but KV's expiry is not immediate and
 * they are named by a hashed address, which is kept no longer than it is used.
 */
export async function sweepUnknownKeyStrikes(kv: Deno.Kv, now: number): Promise<number> {
  const strikes = await deleteWhere(kv, { prefix: keys.allUnknownKeyStrikes() }, (e) => {
    const at = e.key[2];
    return typeof at !== "number" || at < now - 2 * MINUTE_MS;
  });
  const blocks = await deleteWhere<number>(kv, { prefix: keys.allUnknownKeyBlocks() }, (e) => {
    return typeof e.value !== "number" || e.value <= now;
  });
  return strikes + blocks;
}

/** Resolves the bearer server key, or throws the spec's 401 / 403. */
export async function authorizeServerWrite(
  ctx: Pick<IngestContext, "deps" | "directory" | "unknownKeys">,
  authorization: string | null,
  addr: string | null,
): Promise<ServerAccess> {
  const { deps, directory } = ctx;
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
  const resolved = await directory.resolveKey(raw);
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
  if (key.expires_at && Date.parse(key.expires_at) <= deps.clock.now()) {
    throw unauthorized("this key has expired");
  }
  const env = touchpoint.environments[key.environment];
  if (!env || !env.enabled) throw unauthorized(`the ${key.environment} environment is turned off`);
  return {
    keyId: key.id,
    org: org.id,
    touchpoint,
    env: key.environment,
    touchpoints: await directory.touchpoints(org.id),
  };
}
