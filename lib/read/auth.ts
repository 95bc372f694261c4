/**
 * Read-key authentication for both faces. A read key belongs to an organization and reads one environment.
 * 401: no key, unknown, revoked or expired (or not a read key). 403: plan not active or without API access.
 */
import type { AppContext } from "../context.ts";
import { forbidden, unauthorized } from "../errors.ts";
import { READ_KEY_PATTERN } from "../keys/apikeys.ts";
import type { ApiKey, EnvName, Org } from "../store/records.ts";
import { type PlanLimits, resolvePlanLimits } from "../tenancy/plans.ts";

export interface ReadPrincipal {
  key: ApiKey;
  org: Org;
  env: EnvName;
  limits: PlanLimits;
}

export function bearerToken(authorization: string | null | undefined): string | null {
  if (!authorization) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return m ? m[1] : null;
}

export async function authenticateRead(
  ctx: AppContext,
  authorization: string | null | undefined,
): Promise<ReadPrincipal> {
  const token = bearerToken(authorization);
  if (!token) throw unauthorized("a read key is required: send Authorization: Bearer <READ_KEY>");
  if (!READ_KEY_PATTERN.test(token)) {
    throw unauthorized("this is not a read key (read keys start with svc_rk_)");
  }
  const resolved = await ctx.directory.resolveKey(token);
  if (!resolved || resolved.key.kind !== "read") throw unauthorized("unknown read key");
  const { key, org } = resolved;
  const now = ctx.deps.clock.now();
  if (key.revoked_at && Date.parse(key.revoked_at) <= now) throw unauthorized("this read key was revoked");
  if (key.expires_at && Date.parse(key.expires_at) <= now) throw unauthorized("this read key has expired");
  if (!org.active) throw forbidden("the organization's plan is not active; reactivate it to read data");
  const limits = resolvePlanLimits(org.plan, ctx.deps.config.plans);
  if (!limits.api_access) {
    throw forbidden(
      `the ${org.plan} plan has no API access; read keys work on the professional and enterprise plans`,
    );
  }
  return { key, org, env: key.environment, limits };
}
