/**
 * Metering a read call: a token from the caller's per-minute rate (429 with Retry-After), then this month's
 * counters, read once (402 when the call's allowance is used up). The HTTP API counts against API requests,
 * MCP against assistant requests.
 */
import type { AppContext } from "../../lib/context.ts";
import { rateLimited } from "../../lib/errors.ts";
import type { AllowanceKind } from "../../lib/store/records.ts";
import { UsageMeter } from "../../lib/usage/meter.ts";
import type { Face } from "../tool.ts";
import type { Caller, ReadAccess } from "./access.ts";

export const allowanceOfFace = (face: Face): AllowanceKind =>
  face === "api" ? "api_requests" : "assistant_requests";

/** Refuses the call when this caller used its per-minute calls (429 with Retry-After). */
export async function takeRate(app: AppContext, caller: Caller): Promise<void> {
  const perMinute = app.deps.config.readKeyRatePerMinute;
  const r = await app.rates.take("read", caller.id, perMinute);
  if (!r.ok) {
    throw rateLimited(
      r.retryAfterS,
      `more than ${perMinute} calls a minute with this ${
        caller.kind === "person" ? "connection" : "key"
      }; wait ${r.retryAfterS} s`,
    );
  }
}

export async function meterUsage(
  app: AppContext,
  caller: Caller,
  access: ReadAccess,
  face: Face,
  rate = true,
): Promise<UsageMeter> {
  if (rate) await takeRate(app, caller);
  return UsageMeter.open(app.deps.kv, access.org, access.limits, allowanceOfFace(face), app.deps.clock.now());
}
