/** Builds the context a tool runs with, for one authorized call. */
import type { AppContext } from "../lib/context.ts";
import { invalid } from "../lib/errors.ts";
import type { Touchpoint } from "../lib/store/records.ts";
import { resolvePeriod } from "../lib/answers/period.ts";
import type { Scope } from "../lib/answers/schema.ts";
import type { UsageMeter } from "../lib/usage/meter.ts";
import type { Face, ScopeParts, Tool, ToolContext } from "../toolkit/tool.ts";
import type { ReadAccess } from "./access.ts";

export const DEFAULT_PERIOD = "last_28_days";

/** The tools a call may name, and those a saved insight may ask; passed in by whoever starts the call. */
export interface Catalog {
  tools: readonly Tool[];
  insightTools: readonly Tool[];
}

export function describeChoices(tps: Touchpoint[], env: string): string {
  return tps.map((t) => {
    const domain = t.environments[env as "production"]?.domain;
    return `"${t.name}" (id ${t.id}, ${t.kind}${domain ? `, ${domain}` : ""})`;
  }).join(", ");
}

/**
 * The touchpoints `input` names: the one with that id, else those whose name or a domain is it (any case).
 * Names are not unique, and a name may be another's domain: one that fits several is asked again by id,
 * never answered for whichever came first.
 */
export function touchpointsNamed(tps: Touchpoint[], input: string): Touchpoint[] {
  const byId = tps.find((t) => t.id === input);
  if (byId) return [byId];
  const q = input.trim().toLowerCase();
  return tps.filter((t) =>
    t.name.toLowerCase() === q || Object.values(t.environments).some((e) => e?.domain?.toLowerCase() === q)
  );
}

export function pickTouchpoint(tps: Touchpoint[], env: string, input: string | undefined): Touchpoint {
  if (input === undefined || input === "") {
    if (tps.length === 1) return tps[0];
    if (tps.length === 0) throw invalid("this organization has no website or app yet; add one first");
    throw invalid(
      `name the touchpoint: this organization has ${tps.length} websites and apps: ${
        describeChoices(tps, env)
      }`,
    );
  }
  const found = touchpointsNamed(tps, input);
  if (!found.length) throw invalid(`no touchpoint "${input}"; choose one of ${describeChoices(tps, env)}`);
  if (found.length > 1) {
    throw invalid(
      `touchpoint "${input}" fits ${found.length} websites and apps: ${
        describeChoices(found, env)
      }; give its id`,
    );
  }
  return found[0];
}

export async function buildToolContext(
  app: AppContext,
  access: ReadAccess,
  face: Face,
  meter: UsageMeter,
  catalog: Catalog,
): Promise<ToolContext> {
  const now = app.deps.clock.now();
  const touchpoints = (await app.directory.touchpoints(access.org.id)).filter((t) => !t.archived)
    .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  const tz = access.org.timezone;
  const periodNotices: string[] = [];
  return {
    app,
    org: access.org,
    env: access.env,
    limits: access.limits,
    organizations: access.readable,
    now,
    face,
    insightTools: catalog.insightTools,
    touchpoints,
    touchpoint: (input) => pickTouchpoint(touchpoints, access.env, input),
    period: (input, fallback = DEFAULT_PERIOD) => {
      const period = resolvePeriod(input ?? fallback, now, tz, access.limits.history_days);
      for (const n of period.notices) if (!periodNotices.includes(n)) periodNotices.push(n);
      return period;
    },
    periodNotices,
    scope: (parts: ScopeParts): Scope => ({
      period: parts.period
        ? {
          name: parts.period.name,
          from: new Date(parts.period.from).toISOString(),
          to: new Date(parts.period.to).toISOString(),
          from_date: parts.period.from_date,
          to_date: parts.period.to_date,
          previous: parts.period.previous
            ? {
              from: new Date(parts.period.previous.from).toISOString(),
              to: new Date(parts.period.previous.to).toISOString(),
            }
            : null,
          cut_by_history: parts.period.cut_by_history,
        }
        : null,
      timezone: tz,
      environment: access.env,
      touchpoint: parts.touchpoint
        ? {
          id: parts.touchpoint.id,
          name: parts.touchpoint.name,
          kind: parts.touchpoint.kind,
          domain: parts.touchpoint.environments[access.env]?.domain ?? null,
        }
        : null,
      traffic: parts.traffic,
      filter: parts.filter ?? null,
      page: parts.page ?? null,
      history_limit_days: access.limits.history_days,
    }),
    usage: meter.before,
    takeItems: (n) => Promise.resolve(meter.takeItems(n)),
    cohort: null,
  };
}
