/**
 * What each plan allows on the read side. The spec leaves the values open; these defaults are ours and are
 * documented in docs/read-api.md. An operator can override any of them
 * (`PLAN_LIMITS`, read into Config.plans by lib/config.ts; applied by `resolvePlanLimits`).
 */
import type { PlanOverrides } from "../config.ts";
import type { AllowanceKind, Plan } from "../store/records.ts";

export interface PlanLimits {
  /** Read keys (the HTTP tool API and MCP with a key) exist only on plans with API access. */
  api_access: boolean;
  /** How far back answers may reach, in days counted back from today in the organization's timezone. */
  history_days: number;
  /** Monthly allowances; a month is a calendar month in the organization's timezone. */
  allowances: Record<AllowanceKind, number>;
}

export const DEFAULT_PLAN_LIMITS: Readonly<Record<Plan, PlanLimits>> = {
  free: {
    api_access: false,
    history_days: 30,
    allowances: { api_requests: 0, assistant_requests: 100, individual_items: 250 },
  },
  starter: {
    api_access: false,
    history_days: 90,
    allowances: { api_requests: 0, assistant_requests: 1_000, individual_items: 2_500 },
  },
  professional: {
    api_access: true,
    history_days: 400,
    allowances: { api_requests: 50_000, assistant_requests: 10_000, individual_items: 25_000 },
  },
  enterprise: {
    api_access: true,
    history_days: 1_100,
    allowances: { api_requests: 1_000_000, assistant_requests: 200_000, individual_items: 500_000 },
  },
};

/** The limits of one plan: the defaults with any override applied field by field. */
export function resolvePlanLimits(plan: Plan, overrides?: PlanOverrides): PlanLimits {
  const base = DEFAULT_PLAN_LIMITS[plan] ?? DEFAULT_PLAN_LIMITS.free;
  const o = overrides?.[plan];
  if (!o) return base;
  return {
    api_access: o.api_access ?? base.api_access,
    history_days: o.history_days ?? base.history_days,
    allowances: { ...base.allowances, ...o.allowances },
  };
}
