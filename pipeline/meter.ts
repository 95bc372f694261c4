/**
 * Metering a read call. A caller's call (read API, MCP) takes a token from the caller's per-minute rate (429
 * with Retry-After), then reads this month's counters once (402 when its face's allowance is used up), and
 * records what it used at its end: the HTTP API counts against API requests, MCP against assistant
 * requests. The app's own pages and the service's reports are not metered: never refused for usage, nothing
 * recorded (docs/saved.md).
 */
import type { AppContext } from "../lib/context.ts";
import { rateLimited } from "../lib/errors.ts";
import type { AllowanceKind } from "../lib/store/records.ts";
import { UsageMeter } from "../lib/usage/meter.ts";
import type { CallerFace } from "../toolkit/tool.ts";
import type { Caller, ReadAccess } from "./access.ts";

/** Who pays for a call. */
export type Metering =
  /** A read key or an assistant's connection: its rate, then its face's allowance; the call is recorded. */
  | { kind: "caller"; caller: Caller; face: CallerFace }
  /** The app's own questions and the service's reports, for an organization whose access is settled. */
  | { kind: "none"; access: ReadAccess };

export const allowanceOfFace = (face: CallerFace): AllowanceKind =>
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

/** This month's usage as the call sees it: refused (402) when a caller's allowance is used up. */
export function openMeter(app: AppContext, metering: Metering, access: ReadAccess): Promise<UsageMeter> {
  const now = app.deps.clock.now();
  if (metering.kind === "none") return UsageMeter.unmetered(app.deps.kv, access.org, access.limits, now);
  return UsageMeter.open(app.deps.kv, access.org, access.limits, allowanceOfFace(metering.face), now);
}
