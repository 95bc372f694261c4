/**
 * What each plan allows on the read side. The spec leaves the values open; these defaults are ours and are
 * documented in docs/read-api.md. An operator can override any of them (see `resolvePlanLimits`).
 */
import type { Plan } from "./store/records.ts";

export interface PlanLimits {
  /** Read keys (the HTTP tool API and MCP with a key) exist only on plans with API access. */
  api_access: boolean;
  /** How far back answers may reach, in days counted back from today in the organization's timezone. */
  history_days: number;
  /** Monthly allowances; a month is a calendar month in the organization's timezone. */
  allowances: {
    api_requests: number;
    assistant_requests: number;
    individual_items: number;
  };
}

export type AllowanceKind = keyof PlanLimits["allowances"];
export const ALLOWANCE_KINDS: readonly AllowanceKind[] = [
  "api_requests",
  "assistant_requests",
  "individual_items",
];

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

/** Partial per-plan overrides, e.g. from a `PLAN_LIMITS` JSON environment variable read by main.ts. */
export type PlanOverrides = Partial<
  Record<Plan, Partial<Omit<PlanLimits, "allowances">> & { allowances?: Partial<PlanLimits["allowances"]> }>
>;

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

/** Parses and checks the `PLAN_LIMITS` JSON; a bad value throws with a message naming the field. */
export function parsePlanOverrides(json: string): PlanOverrides {
  const raw = JSON.parse(json) as Record<string, unknown>;
  const out: PlanOverrides = {};
  for (const [plan, v] of Object.entries(raw)) {
    if (!(plan in DEFAULT_PLAN_LIMITS)) throw new Error(`PLAN_LIMITS: unknown plan "${plan}"`);
    const entry = v as Record<string, unknown>;
    const nonNeg = (name: string, x: unknown) => {
      if (x !== undefined && (!Number.isInteger(x) || (x as number) < 0)) {
        throw new Error(`PLAN_LIMITS.${plan}.${name} must be an integer >= 0`);
      }
    };
    nonNeg("history_days", entry.history_days);
    for (const k of ALLOWANCE_KINDS) {
      nonNeg(`allowances.${k}`, (entry.allowances as Record<string, unknown>)?.[k]);
    }
    if (entry.api_access !== undefined && typeof entry.api_access !== "boolean") {
      throw new Error(`PLAN_LIMITS.${plan}.api_access must be true or false`);
    }
    out[plan as Plan] = entry as PlanOverrides[Plan];
  }
  return out;
}
