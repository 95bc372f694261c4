/**
 * Questions the app's own pages ask for a signed-in member (a dashboard's figures, a cohort's preview): the
 * same tools and rules as the read API, in the organization's production environment, without spending the
 * API allowance (the app is not an API client) or a read key's rate.
 */
import type { AppContext } from "../lib/context.ts";
import type { Org } from "../lib/store/records.ts";
import { resolvePlanLimits } from "../lib/tenancy/plans.ts";
import { UsageMeter } from "../lib/usage/meter.ts";
import { finalizeAnswer } from "../lib/answers/rules.ts";
import { guardSmallGroups } from "../lib/answers/small_groups.ts";
import { definitionSchema } from "../lib/saved/definition.ts";
import type { SavedCohort } from "../lib/saved/records.ts";
import { invalid } from "../lib/errors.ts";
import { describeZodError } from "../lib/schemas/zod_errors.ts";
import { buildToolContext } from "./pipeline/context.ts";
import { namedCohort, SMALL_GROUP_NOTICE } from "./pipeline/cohort.ts";
import { findTool, validateInput } from "./pipeline/run.ts";
import { resolve } from "./common.ts";
import type { ToolContext } from "./tool.ts";

async function appContext(app: AppContext, org: Org): Promise<ToolContext> {
  const limits = resolvePlanLimits(org.plan, app.deps.config.plans);
  const access = { org, env: "production" as const, limits, readable: [org] };
  const meter = await UsageMeter.open(app.deps.kv, org, limits, "api_requests", app.deps.clock.now());
  return buildToolContext(app, access, "api", meter);
}

/** A tool's answer as the read API gives it (cohort input, rule 5 and the answer rules applied). */
export async function runForApp(
  app: AppContext,
  org: Org,
  name: string,
  rawInput: unknown,
): Promise<Record<string, unknown>> {
  const tool = findTool(name);
  const input = validateInput(tool, rawInput);
  const ctx = await appContext(app, org);
  ctx.cohort = await namedCohort(app, org.id, input);
  const answer = await tool.run(ctx, input);
  if (ctx.cohort && guardSmallGroups(answer)) answer.notices.push(SMALL_GROUP_NOTICE);
  return finalizeAnswer(answer, ctx.periodNotices);
}

/** How many visitors of the last 30 days a definition (not saved yet) holds, exactly. */
export async function previewCohort(
  app: AppContext,
  org: Org,
  touchpoint: string,
  definition: unknown,
): Promise<number> {
  const parsed = definitionSchema.safeParse(definition);
  if (!parsed.success) throw invalid(describeZodError(parsed.error, "definition"));
  const ctx = await appContext(app, org);
  const now = new Date(app.deps.clock.now()).toISOString();
  const draft: SavedCohort = {
    kind: "cohort",
    id: "preview",
    org: org.id,
    touchpoint,
    name: "preview",
    description: "",
    author: "",
    created_at: now,
    updated_at: now,
    definition: parsed.data,
  };
  const r = resolve({ ...ctx, cohort: draft }, { period: "last_30_days" });
  return await r.engine.cohortSize(r.scope, r.scope.cohort!);
}
