/** What finding detectors share: how they ask the tools, and how they write numbers. */
import type { Touchpoint } from "../../store/records.ts";
import type { ReportPeriod } from "../periods.ts";
import type { Finding, Reproduce } from "../types.ts";

// deno-lint-ignore no-explicit-any
export type Json = Record<string, any>;

/**
 * Runs one read tool as the organization would (tools/pipeline), returning its answer. Reports reach the
 * tools only through this, so every finding rests on an answer an assistant would get for the same call.
 */
export type Ask = (tool: string, input: Record<string, unknown>) => Promise<Json>;

export interface FindingContext {
  touchpoint: Touchpoint;
  period: ReportPeriod;
  ask: Ask;
}

export type Detector = (c: FindingContext) => Promise<Finding[]>;

export const call = (tool: string, input: Record<string, unknown>): Reproduce => ({ tool, input });

export const num = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: 2 });

/** +0.5 → "+50%"; −0.333 → "−33%". */
export function pct(change: number): string {
  const p = Math.round(change * 100);
  return `${p > 0 ? "+" : p < 0 ? "−" : "±"}${Math.abs(p)}%`;
}

export const relative = (now: number, before: number): number | null =>
  before > 0 ? Math.round(((now - before) / before) * 1000) / 1000 : null;

/** "up from 598 (+101%)", "down from 40 (−50%)", "from none". */
export function movement(now: number, before: number): string {
  if (before === 0) return "from none the period before";
  const ch = relative(now, before)!;
  return `${now >= before ? "up" : "down"} from ${num(before)} (${pct(ch)})`;
}
