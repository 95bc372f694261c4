/**
 * From consent to code: the request the person saw (kept minutes, bound to them, used once) and the
 * authorization code the client exchanges (CODE_TTL_MS, once; a replay ends the grant it produced).
 */
import type { OAuthContext } from "./state.ts";
import { sha256Hex } from "../keys/apikeys.ts";
import type { EnvName } from "../store/records.ts";
import { keys } from "../store/keys.ts";
import type { AuthorizationRequest } from "./authorization.ts";
import { randomSecret } from "./secrets.ts";
import {
  CODE_TTL_MS,
  type CodeRecord,
  PENDING_TTL_MS,
  type PendingAuthorization,
  USED_MEMORY_MS,
} from "./types.ts";

export async function savePending(
  ctx: OAuthContext,
  req: AuthorizationRequest,
  issuer: string,
): Promise<PendingAuthorization> {
  const pending: PendingAuthorization = {
    id: randomSecret("pa_", 24),
    user: null,
    client_id: req.client.client_id,
    client_name: req.client.client_name,
    redirect_uri: req.redirect_uri,
    state: req.state,
    code_challenge: req.code_challenge,
    resource: req.resource,
    scope: req.scope,
    issuer,
    created_at: ctx.deps.clock.now(),
  };
  await ctx.deps.kv.set(keys.oauthPending(pending.id), pending, { expireIn: PENDING_TTL_MS });
  return pending;
}

/**
 * The pending request for this person: bound to them if nobody opened it yet; null when it is unknown,
 * expired, already decided, or was opened by someone else.
 */
export async function pendingFor(
  ctx: OAuthContext,
  id: string,
  user: string,
): Promise<Deno.KvEntry<PendingAuthorization> | null> {
  if (!/^pa_[A-Za-z0-9_-]{20,64}$/.test(id)) return null;
  const entry = await ctx.deps.kv.get<PendingAuthorization>(keys.oauthPending(id));
  const p = entry.value;
  const now = ctx.deps.clock.now();
  if (!p || now - p.created_at > PENDING_TTL_MS) return null;
  if (p.user === user) return entry as Deno.KvEntry<PendingAuthorization>;
  if (p.user !== null) return null;
  const bound = { ...p, user };
  const left = Math.max(1, PENDING_TTL_MS - (now - p.created_at));
  const res = await ctx.deps.kv.atomic().check(entry).set(entry.key, bound, { expireIn: left }).commit();
  return res.ok ? { ...entry, value: bound, versionstamp: res.versionstamp } : null;
}

/** Removes the pending request as it is decided; false when another decision came first. */
export async function settlePending(
  ctx: OAuthContext,
  entry: Deno.KvEntry<PendingAuthorization>,
): Promise<boolean> {
  return (await ctx.deps.kv.atomic().check(entry).delete(entry.key).commit()).ok;
}

/** Issues the code for an approved request; the code itself is returned once and stored hashed. */
export async function issueCode(
  ctx: OAuthContext,
  p: PendingAuthorization & { user: string },
  orgs: string[],
  env: EnvName,
): Promise<string> {
  const code = randomSecret("svc_ac_");
  const rec: CodeRecord = {
    client_id: p.client_id,
    user: p.user,
    orgs,
    env,
    redirect_uri: p.redirect_uri,
    code_challenge: p.code_challenge,
    resource: p.resource,
    scope: p.scope,
    client_name: p.client_name,
    expires_at: ctx.deps.clock.now() + CODE_TTL_MS,
    used_grant: null,
  };
  await ctx.deps.kv.set(keys.oauthCode(sha256Hex(code)), rec, { expireIn: USED_MEMORY_MS });
  return code;
}
