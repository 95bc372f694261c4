/**
 * Monthly allowance counting in KV (`keys.usage`). A month is the calendar month in the organization's
 * timezone; counters are blind `sum` writes, so concurrent calls never conflict. Reads are of the read side's
 * own counters only: read keys never write anything else.
 */
import { keys } from "../store/keys.ts";
import { ALLOWANCE_KINDS, type AllowanceKind, type Org } from "../store/records.ts";
import type { PlanLimits } from "../tenancy/plans.ts";
import { addMonths, formatDate, localDateOf } from "../time/dates.ts";

export const NEAR_ALLOWANCE = 0.8;

/** This month's count of each allowance. */
export type MonthUsage = Record<AllowanceKind, number>;

export function usageMonth(now: number, tz: string): string {
  const d = localDateOf(now, tz);
  return `${d.y}-${String(d.m).padStart(2, "0")}`;
}

/** The first day of next month in the organization's timezone: when allowances start again. */
export function resetDate(now: number, tz: string): string {
  return formatDate(addMonths(localDateOf(now, tz), 1));
}

/** Every counter of this month, in one read. */
export async function readUsage(kv: Deno.Kv, org: Org, now: number): Promise<MonthUsage> {
  const month = usageMonth(now, org.timezone);
  const got = await kv.getMany<Deno.KvU64[]>(ALLOWANCE_KINDS.map((k) => keys.usage(org.id, month, k)));
  return Object.fromEntries(
    ALLOWANCE_KINDS.map((k, i) => [k, got[i].value ? Number(got[i].value.value) : 0]),
  ) as MonthUsage;
}

/** Adds to this month's counters in one commit; zero counts are skipped. */
export async function recordUsage(
  kv: Deno.Kv,
  org: Org,
  counts: Partial<MonthUsage>,
  now: number,
): Promise<void> {
  const month = usageMonth(now, org.timezone);
  const op = kv.atomic();
  let any = false;
  for (const k of ALLOWANCE_KINDS) {
    const n = counts[k] ?? 0;
    if (n <= 0) continue;
    op.sum(keys.usage(org.id, month, k), BigInt(n));
    any = true;
  }
  if (any) await op.commit();
}

const LABEL: Record<AllowanceKind, string> = {
  api_requests: "API requests",
  assistant_requests: "assistant requests",
  individual_items: "individual items",
};

// Plans are set by the service's operator (the app has no plan page): say who, and with what.
export const HOW_TO_RAISE =
  "to raise it, ask the service's operator to move the organization to a larger plan (admin API: " +
  'PATCH /admin/v1/orgs/{org} with "plan") or to raise this plan\'s allowance (PLAN_LIMITS)';

export function exhaustedMessage(kind: AllowanceKind, limits: PlanLimits, now: number, tz: string): string {
  return `this month's ${LABEL[kind]} are used (${
    limits.allowances[kind]
  } on this plan); the allowance resets on ` +
    `${resetDate(now, tz)}; ${HOW_TO_RAISE}`;
}

/** The notice an answer carries at 80% of an allowance and over; null below that. */
export function allowanceNotice(
  kind: AllowanceKind,
  used: number,
  limits: PlanLimits,
  now: number,
  tz: string,
): string | null {
  const allowance = limits.allowances[kind];
  if (allowance <= 0 || used < allowance * NEAR_ALLOWANCE) return null;
  const pct = Math.min(100, Math.floor((used / allowance) * 100));
  return `${pct}% of this month's ${LABEL[kind]} used (${used} of ${allowance}); resets on ${
    resetDate(now, tz)
  }; ${HOW_TO_RAISE}`;
}
