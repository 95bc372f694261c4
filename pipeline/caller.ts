/**
 * Who is calling, and what one call may read.
 *
 * `authenticate` turns the bearer token into a Caller before any tool is looked at (so /mcp can answer 401
 * or 403 at the HTTP level). `authorize` then decides, per call, which organization and environment the call
 * reads and under which plan limits: a read key always reads the one environment it was made for; a person's
 * connection (an assistant signed in as them, pipeline/person.ts) reads the organization the call names
 * among those the person allowed and is still a member of. The rest of the pipeline is the same.
 *
 * 401: no key, unknown, revoked or expired (or not a read key). 403: plan not active or without API access.
 */
import type { AppContext } from "../lib/context.ts";
import { forbidden, unauthorized } from "../lib/errors.ts";
import { READ_KEY_PATTERN } from "../lib/keys/apikeys.ts";
import type { Org } from "../lib/store/records.ts";
import type { PlanOverrides } from "../lib/config.ts";
import { type PlanLimits, resolvePlanLimits } from "../lib/tenancy/plans.ts";
import type { Tool } from "../toolkit/tool.ts";
import { authorizePerson } from "./person.ts";
import type { Authorized, Caller } from "./access.ts";

export function bearerToken(authorization: string | null | undefined): string | null {
  if (!authorization) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return m ? m[1] : null;
}

/** The plan limits of an organization that may be read; 403 when its plan is inactive or has no API. */
export function readableLimits(org: Org, plans: PlanOverrides | undefined): PlanLimits {
  if (!org.active) throw forbidden("the organization's plan is not active; reactivate it to read data");
  const limits = resolvePlanLimits(org.plan, plans);
  if (!limits.api_access) {
    throw forbidden(
      `the ${org.plan} plan has no API access; read keys work on the professional and enterprise plans`,
    );
  }
  return limits;
}

export async function authenticate(
  app: AppContext,
  authorization: string | null | undefined,
): Promise<Caller> {
  const token = bearerToken(authorization);
  if (!token) throw unauthorized("a read key is required: send Authorization: Bearer <READ_KEY>");
  if (!READ_KEY_PATTERN.test(token)) {
    throw unauthorized("this is not a read key (read keys start with svc_rk_)");
  }
  const resolved = await app.directory.resolveKey(token);
  if (!resolved || resolved.key.kind !== "read") throw unauthorized("unknown read key");
  const { key, org } = resolved;
  const now = app.deps.clock.now();
  if (key.revoked_at && Date.parse(key.revoked_at) <= now) throw unauthorized("this read key was revoked");
  if (key.expires_at && Date.parse(key.expires_at) <= now) throw unauthorized("this read key has expired");
  const limits = readableLimits(org, app.deps.config.plans);
  return {
    kind: "read_key",
    id: key.id,
    key,
    access: { org, env: key.environment, limits, readable: [org] },
  };
}

/**
 * A read key reads what it was made for, and the tool gets the whole input; a person's connection takes
 * `organization` off the input and reads that organization (pipeline/person.ts).
 */
export function authorize(
  caller: Caller,
  rawInput: unknown,
  tool: Tool,
  plans: PlanOverrides | undefined,
): Authorized {
  if (caller.kind === "person") return authorizePerson(caller, rawInput, tool, plans);
  return { access: caller.access, input: rawInput };
}
