/** What a read tool is, and what it gets to answer with. One definition serves the HTTP API and MCP. */
import type { z } from "zod";
import type { AppContext } from "../lib/context.ts";
import type { EnvName, Org, Touchpoint } from "../lib/store/records.ts";
import type { PlanLimits } from "../lib/tenancy/plans.ts";
import type { ResolvedPeriod } from "../lib/answers/period.ts";
import type { Scope } from "../lib/answers/schema.ts";
import type { MonthUsage } from "../lib/usage/allowance.ts";
import type { SavedCohort } from "../lib/saved/records.ts";

/** The faces a caller reaches the tools through: the HTTP read API or MCP (each with its own allowance). */
export type CallerFace = "api" | "mcp";
/** Which face a question came through: a caller's, the app's own pages, or the service (reports). */
export type Face = CallerFace | "app" | "service";

export interface ScopeParts {
  period: ResolvedPeriod | null;
  touchpoint: Touchpoint | null;
  traffic: string;
  filter?: string | null;
  /** The page path the answer is limited to, when any. */
  page?: string | null;
}

export interface ToolContext {
  app: AppContext;
  org: Org;
  env: EnvName;
  limits: PlanLimits;
  /** Every organization this caller may read (a read key: its own one). */
  organizations: Org[];
  now: number;
  face: Face;
  /** The tools a saved insight may ask (tools/registry.ts declares them; the pipeline passes them in). */
  insightTools: readonly Tool[];
  /** The organization's websites and apps that are not archived. */
  touchpoints: Touchpoint[];
  /** The named touchpoint; omitted with exactly one, that one; otherwise a 422 listing the choices. */
  touchpoint(input: string | undefined): Touchpoint;
  /** A period resolved in the org's timezone and cut to the plan's history (422 when unanswerable). */
  period(input: string | undefined, fallback?: string): ResolvedPeriod;
  /** Notices of the periods resolved so far (cut to the history limit, no comparison); added to the answer. */
  periodNotices: string[];
  scope(parts: ScopeParts): Scope;
  /** This month's allowance counters as they stood before this call. */
  usage: Readonly<MonthUsage>;
  /** Takes up to n individual items from this month's allowance; returns how many may be shown. */
  takeItems(n: number): Promise<number>;
  /**
   * The saved cohort the question names (input `cohort`), looked up before the tool runs; `resolve`
   * (common.ts) restricts every engine scope to it, and the pipeline applies rule 5 to the whole answer.
   */
  cohort: SavedCohort | null;
}

export interface Answer {
  scope: Scope;
  notices: string[];
  [field: string]: unknown;
}

// deno-lint-ignore no-explicit-any
export interface Tool<I extends z.ZodType = any, O extends z.ZodType = any> {
  name: string;
  /** One paragraph an assistant can act on: what it answers, when to use it, what to pass. */
  description: string;
  input: I;
  output: O;
  /**
   * The tool describes the account: a caller reading several organizations who names none gets the first
   * (by name) instead of a 422, and the answer lists them all (account_overview).
   */
  describesAccount?: boolean;
  /**
   * The texts the tool searches are stored masked (reviews): "[email]" in its inputs finds them as written, so
   * the masked-name rule (toolkit/masked_inputs.ts) leaves its inputs alone.
   */
  storedMasked?: boolean;
  /**
   * The tool counts app-store reviews, which no SDK sends: notices about the SDKs' events (the web SDK's
   * sampling, pipeline/notices.ts) never apply to its answers.
   */
  readsReviews?: boolean;
  run(ctx: ToolContext, input: z.infer<I>): Promise<z.infer<O> & Answer>;
}

export function defineTool<I extends z.ZodType, O extends z.ZodType>(tool: Tool<I, O>): Tool<I, O> {
  return tool;
}
