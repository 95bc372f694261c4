/**
 * The usage of one read call: this month's counters are read once when the call starts (refusing it when its
 * allowance is used up), individual items are taken from that reading, and everything the call used is
 * written in one commit at its end.
 */
import { exhausted } from "../errors.ts";
import type { AllowanceKind, Org } from "../store/records.ts";
import type { PlanLimits } from "../tenancy/plans.ts";
import { allowanceNotice, exhaustedMessage, type MonthUsage, readUsage, recordUsage } from "./allowance.ts";

export class UsageMeter {
  #itemsAsked = false;
  #itemsTaken = 0;

  private constructor(
    private readonly kv: Deno.Kv,
    private readonly org: Org,
    private readonly limits: PlanLimits,
    /** The allowance the call itself counts against (API or assistant requests). */
    readonly kind: AllowanceKind,
    /** This month's counters as they stood before this call. */
    readonly before: Readonly<MonthUsage>,
    private readonly now: number,
  ) {}

  /** Reads this month's counters; 402 when the call's own allowance is used up. */
  static async open(
    kv: Deno.Kv,
    org: Org,
    limits: PlanLimits,
    kind: AllowanceKind,
    now: number,
  ): Promise<UsageMeter> {
    const before = await readUsage(kv, org, now);
    if (before[kind] >= limits.allowances[kind]) {
      throw exhausted(exhaustedMessage(kind, limits, now, org.timezone));
    }
    return new UsageMeter(kv, org, limits, kind, before, now);
  }

  /** The service's own calls (scheduled reports): never refused, and nothing is recorded for them. */
  static async unmetered(kv: Deno.Kv, org: Org, limits: PlanLimits, now: number): Promise<UsageMeter> {
    return new UsageMeter(kv, org, limits, "api_requests", await readUsage(kv, org, now), now);
  }

  /** Takes up to n individual items from what is left this month; returns how many may be shown. */
  takeItems(n: number): number {
    this.#itemsAsked = true;
    const left = this.limits.allowances.individual_items - this.before.individual_items - this.#itemsTaken;
    const allowed = Math.max(0, Math.min(n, left));
    this.#itemsTaken += allowed;
    return allowed;
  }

  /** Near-allowance notices as the counters will stand once this call is recorded. */
  notices(): string[] {
    const tz = this.org.timezone;
    const out: string[] = [];
    const calls = allowanceNotice(this.kind, this.before[this.kind] + 1, this.limits, this.now, tz);
    if (calls) out.push(calls);
    if (this.#itemsAsked) {
      const used = this.before.individual_items + this.#itemsTaken;
      const items = allowanceNotice("individual_items", used, this.limits, this.now, tz);
      if (items) out.push(items);
    }
    return out;
  }

  /** Counts the call and the items it showed, in one commit. */
  record(): Promise<void> {
    return recordUsage(this.kv, this.org, { [this.kind]: 1, individual_items: this.#itemsTaken }, this.now);
  }
}
