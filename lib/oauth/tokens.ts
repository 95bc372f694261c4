/**
 * The token endpoint's work and access-token checks. Access tokens live ACCESS_TTL_MS and are bound to the
 * resource and to a grant; refresh tokens rotate on every use, and presenting a used one ends the grant
 * (OAuth 2.1 §4.3.1: the thief or the client, one of them holds a stolen token). A replayed code ends the
 * grant it produced. Tokens are random and stored only as SHA-256 hashes.
 */
import type { OAuthContext } from "./state.ts";
import { sha256Hex } from "../keys/apikeys.ts";
import { keys } from "../store/keys.ts";
import { invalidGrant, invalidRequest, invalidTarget, OAuthError } from "./errors.ts";
import { checkGrant, endGrant, writeNewGrant } from "./grants.ts";
import { randomSecret, s256, VERIFIER_PATTERN } from "./secrets.ts";
import { type Endpoints, redirectHost } from "./urls.ts";
import {
  ACCESS_TTL_MS,
  type AccessRecord,
  type CodeRecord,
  type Grant,
  type OAuthClient,
  REFRESH_TTL_MS,
  type RefreshRecord,
  USED_MEMORY_MS,
} from "./types.ts";

export const ACCESS_PREFIX = "svc_at_";
export const REFRESH_PREFIX = "svc_rt_";

export interface TokenAnswer {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/** Adds a fresh access and refresh token for a grant to an atomic operation. */
function writeTokens(op: Deno.AtomicOperation, grant: Grant, client: string, now: number): TokenAnswer {
  const access = randomSecret(ACCESS_PREFIX);
  const refresh = randomSecret(REFRESH_PREFIX);
  const a: AccessRecord = {
    grant: grant.id,
    client_id: client,
    resource: grant.resource,
    expires_at: now + ACCESS_TTL_MS,
  };
  const r: RefreshRecord = {
    grant: grant.id,
    client_id: client,
    expires_at: now + REFRESH_TTL_MS,
    used_at: null,
  };
  op.set(keys.oauthAccess(sha256Hex(access)), a, { expireIn: ACCESS_TTL_MS });
  op.set(keys.oauthRefresh(sha256Hex(refresh)), r, { expireIn: REFRESH_TTL_MS });
  return {
    access_token: access,
    token_type: "Bearer",
    expires_in: ACCESS_TTL_MS / 1000,
    refresh_token: refresh,
    scope: grant.scope,
  };
}

function checkResource(form: URLSearchParams, expected: string): void {
  const asked = form.getAll("resource");
  if (asked.length > 1) throw invalidTarget("one resource only");
  if (asked.length === 1 && asked[0] !== expected) {
    throw invalidTarget(`this grant is for ${expected}, not ${asked[0].slice(0, 200)}`);
  }
}

/** grant_type=authorization_code: checks the code, PKCE and redirect URI, then creates the grant. */
export async function exchangeCode(
  ctx: OAuthContext,
  client: OAuthClient,
  form: URLSearchParams,
): Promise<TokenAnswer> {
  const code = form.get("code");
  if (!code) throw invalidRequest("code is required");
  const entry = await ctx.deps.kv.get<CodeRecord>(keys.oauthCode(sha256Hex(code)));
  const rec = entry.value;
  const now = ctx.deps.clock.now();
  if (!rec) throw invalidGrant("unknown or expired authorization code");
  if (rec.client_id !== client.client_id) throw invalidGrant("this code was issued to another client");
  if (rec.used_grant) {
    await endGrant(ctx, rec.used_grant, "authorization code reused");
    throw invalidGrant("this code was already used; the connection it made is revoked");
  }
  if (now > rec.expires_at) throw invalidGrant("the authorization code expired; start again");
  const redirect = form.get("redirect_uri");
  if (redirect !== null && redirect !== rec.redirect_uri) {
    throw invalidGrant("redirect_uri differs from the one in the authorization request");
  }
  const verifier = form.get("code_verifier");
  if (!verifier) throw invalidRequest("code_verifier is required (PKCE)");
  if (!VERIFIER_PATTERN.test(verifier) || await s256(verifier) !== rec.code_challenge) {
    throw invalidGrant("code_verifier does not match the code_challenge (PKCE)");
  }
  checkResource(form, rec.resource);
  const grant: Grant = {
    id: randomSecret("gr_", 15),
    user: rec.user,
    client_id: rec.client_id,
    client_name: rec.client_name,
    redirect_host: redirectHost(rec.redirect_uri),
    orgs: rec.orgs,
    env: rec.env,
    scope: rec.scope,
    resource: rec.resource,
    created_at: now,
    disconnected_at: null,
    ended_because: null,
  };
  const op = ctx.deps.kv.atomic().check(entry)
    .set(entry.key, { ...rec, used_grant: grant.id }, { expireIn: USED_MEMORY_MS });
  writeNewGrant(op, grant);
  const answer = writeTokens(op, grant, client.client_id, now);
  if (!(await op.commit()).ok) throw invalidGrant("this code was already used");
  ctx.deps.log.info("assistant connected", { grant: grant.id, client: client.kind, orgs: grant.orgs.length });
  return answer;
}

/** grant_type=refresh_token: rotates; a used refresh token ends the grant. */
export async function refreshTokens(
  ctx: OAuthContext,
  client: OAuthClient,
  form: URLSearchParams,
): Promise<TokenAnswer> {
  const token = form.get("refresh_token");
  if (!token) throw invalidRequest("refresh_token is required");
  const entry = await ctx.deps.kv.get<RefreshRecord>(keys.oauthRefresh(sha256Hex(token)));
  const rec = entry.value;
  const now = ctx.deps.clock.now();
  if (!rec || now > rec.expires_at) throw invalidGrant("unknown or expired refresh token; sign in again");
  if (rec.client_id !== client.client_id) {
    throw invalidGrant("this refresh token was issued to another client");
  }
  const reused = async () => {
    await endGrant(ctx, rec.grant, "refresh token reused");
    return invalidGrant("this refresh token was already used; the connection is revoked, sign in again");
  };
  if (rec.used_at !== null) throw await reused();
  ctx.oauth.grantChecks.delete(rec.grant); // a refresh always checks the grant afresh
  const check = await checkGrant(ctx, rec.grant);
  if (!check.ok || !check.grant) throw invalidGrant(check.reason);
  checkResource(form, check.grant.resource);
  const op = ctx.deps.kv.atomic().check(entry).set(entry.key, { ...rec, used_at: now }, {
    expireIn: Math.max(1, rec.expires_at - now),
  });
  const answer = writeTokens(op, check.grant, client.client_id, now);
  if (!(await op.commit()).ok) throw await reused();
  return answer;
}

/** RFC 7009: a refresh token ends its grant; an access token stops at once. Unknown tokens are fine. */
export async function revokeToken(
  ctx: OAuthContext,
  client: OAuthClient,
  form: URLSearchParams,
): Promise<void> {
  const token = form.get("token");
  if (!token) throw invalidRequest("token is required");
  const hash = sha256Hex(token);
  const [refresh, access] = await ctx.deps.kv.getMany<[RefreshRecord, AccessRecord]>([
    keys.oauthRefresh(hash),
    keys.oauthAccess(hash),
  ]);
  const rec = refresh.value ?? access.value;
  if (!rec) return;
  if (rec.client_id !== client.client_id) {
    throw new OAuthError("unauthorized_client", "this token was not issued to this client");
  }
  if (refresh.value) await endGrant(ctx, rec.grant, "revoked by the assistant");
  else {
    await ctx.deps.kv.delete(keys.oauthAccess(hash));
    ctx.oauth.accessTokens.delete(hash);
  }
}

export interface AccessCheck {
  ok: boolean;
  grant: Grant | null;
  reason: string;
}

/** Checks a bearer access token for this resource: known, unexpired, for this resource, grant still good. */
export async function checkAccessToken(
  ctx: OAuthContext,
  token: string,
  ep: Endpoints,
): Promise<AccessCheck> {
  const hash = sha256Hex(token);
  const now = ctx.deps.clock.now();
  let rec = ctx.oauth.accessTokens.get(hash, now);
  if (rec === undefined) {
    rec = (await ctx.deps.kv.get<AccessRecord>(keys.oauthAccess(hash))).value;
    ctx.oauth.accessTokens.set(hash, rec, now);
  }
  if (!rec || now >= rec.expires_at) {
    return { ok: false, grant: null, reason: "the access token is unknown or expired" };
  }
  if (rec.resource !== ep.resource) {
    return {
      ok: false,
      grant: null,
      reason: `this token was issued for ${rec.resource}, not ${ep.resource}`,
    };
  }
  const check = await checkGrant(ctx, rec.grant);
  return { ok: check.ok, grant: check.grant, reason: check.reason };
}
