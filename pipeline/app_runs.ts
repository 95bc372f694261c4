/**
 * Questions the app's own pages ask for a signed-in member (a dashboard's figures, a cohort's preview): the
 * one pipeline of the read API (pipeline/run.ts), in the organization's production environment, as the
 * "app" face and not metered: the app is not an API client, so its questions never spend (or hit the end of)
 * the API allowance or a read key's rate (docs/saved.md).
 */
import type { AppContext } from "../lib/context.ts";
import type { Org } from "../lib/store/records.ts";
import { resolvePlanLimits } from "../lib/tenancy/plans.ts";
import { UsageMeter } from "../lib/usage/meter.ts";
import { definitionSchema } from "../lib/saved/definition.ts";
import type { SavedCohort } from "../lib/saved/records.ts";
import { invalid } from "../lib/errors.ts";
import { describeZodError } from "../lib/schemas/zod_errors.ts";
import type { ReadAccess } from "./access.ts";
import { buildToolContext } from "./context.ts";
import { CATALOG, runCall } from "./run.ts";
import { resolve } from "../toolkit/common.ts";

function appAccess(app: AppContext, org: Org): ReadAccess {
  return {
    org,
    env: "production",
    limits: resolvePlanLimits(org.plan, app.deps.config.plans),
    readable: [org],
  };
}

/** A tool's answer as the read API gives it (cohort input, rule 5 and the answer rules applied). */
export async function runForApp(
  app: AppContext,
  org: Org,
  name: string,
  rawInput: unknown,
): Promise<Record<string, unknown>> {
  const call = {
    face: "app" as const,
    metering: { kind: "none" as const, access: appAccess(app, org) },
    catalog: CATALOG,
  };
  return (await runCall(app, call, name, rawInput)).answer;
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
  const access = appAccess(app, org);
  const meter = await UsageMeter.unmetered(app.deps.kv, org, access.limits, app.deps.clock.now());
  const ctx = await buildToolContext(app, access, "app", meter, CATALOG);
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
