/** What most behavior tools share: resolving touchpoint and period into an engine scope and an answer scope. */
import type { Engine, Filter, Scope as EngineScope } from "../lib/query/api.ts";
import type { ResolvedPeriod, Window } from "../lib/answers/period.ts";
import type { Scope } from "../lib/answers/schema.ts";
import type { Touchpoint } from "../lib/store/records.ts";
import type { ToolContext } from "./tool.ts";
import { invalid } from "../lib/errors.ts";
import { describeDefinition, toCohortExpr } from "../lib/saved/definition.ts";
import { addDays, localDateOf, startOfLocalDay } from "../lib/time/dates.ts";
import { urlPath } from "../lib/url_path.ts";

export interface Resolved {
  engine: Engine;
  touchpoint: Touchpoint;
  period: ResolvedPeriod;
  /** Engine scope of the period (human traffic unless changed). */
  scope: EngineScope;
  /** Engine scope of the previous window, or null when there is none to compare with. */
  previous: EngineScope | null;
  answerScope: Scope;
}

export interface ResolveOptions {
  touchpoint?: string;
  period?: string;
  defaultPeriod?: string;
  page?: string;
  filters?: Filter[];
  traffic?: string;
  /** A filter on an event property or a saved cohort: the small-group rule then applies to visitor counts. */
  filterLabel?: string | null;
  /** Crawler questions: only websites have crawler hits, so with touchpoint left out the one website is meant. */
  websitesOnly?: boolean;
}

export function resolve(ctx: ToolContext, o: ResolveOptions): Resolved {
  const cohort = ctx.cohort;
  // a question under a cohort is about the cohort's website or app unless it names one
  const websites = ctx.touchpoints.filter((t) => t.kind === "website");
  const onlyWebsite = o.websitesOnly && websites.length === 1 ? websites[0].id : undefined;
  const touchpoint = ctx.touchpoint(o.touchpoint ?? cohort?.touchpoint ?? onlyWebsite);
  if (cohort && cohort.touchpoint !== touchpoint.id) {
    const own = ctx.touchpoints.find((t) => t.id === cohort.touchpoint);
    throw invalid(
      `cohort "${cohort.name}" is defined on ${own ? `"${own.name}"` : "another website or app"}; ` +
        `ask about that one, or leave touchpoint out`,
    );
  }
  const period = ctx.period(o.period, o.defaultPeriod);
  const historyFrom = startOfLocalDay(
    addDays(localDateOf(ctx.now, ctx.org.timezone), -(ctx.limits.history_days - 1)),
    ctx.org.timezone,
  );
  const filters: Filter[] = [...(o.filters ?? [])];
  // as pages are stored: "/über-uns" and "/a b" name the pages stored "/%C3%BCber-uns" and "/a%20b"
  if (o.page) filters.push({ field: "page", op: "eq", value: urlPath(o.page) });
  const at = (w: Window): EngineScope => ({
    org: ctx.org.id,
    env: ctx.env,
    touchpoint: touchpoint.id,
    from: w.from,
    to: w.to,
    timezone: ctx.org.timezone,
    traffic: ["human"],
    filters,
    ...(cohort
      ? {
        cohort: toCohortExpr(cohort.definition, {
          from: w.from,
          to: w.to,
          now: ctx.now,
          timezone: ctx.org.timezone,
          historyFrom,
        }),
        guardCohort: true,
      }
      : {}),
  });
  return {
    engine: ctx.app.engine,
    touchpoint,
    period,
    scope: at(period),
    previous: period.previous ? at(period.previous) : null,
    answerScope: ctx.scope({
      period,
      touchpoint,
      traffic: o.traffic ?? "visitors (bots and AI agents left out)",
      filter: [
        cohort ? `saved cohort "${cohort.name}": ${describeDefinition(cohort.definition)}` : null,
        o.filterLabel,
      ]
        .filter(Boolean).join("; ") || null,
      page: o.page ?? null,
    }),
  };
}

export const round = (n: number | null | undefined, digits = 1): number | null => {
  if (n === null || n === undefined || !Number.isFinite(n)) return null;
  const f = 10 ** digits;
  return Math.round(n * f) / f;
};

/** A 0-1 rate as given in answers: a fraction rounded to 4 digits. */
export const rate = (n: number | null | undefined) => round(n, 4);

/** Rows of an engine answer keyed by one field, for joining current and previous windows. */
export function byKey<R extends { key: Record<string, unknown> }>(rows: R[], field: string): Map<string, R> {
  return new Map(rows.map((r) => [String(r.key[field]), r]));
}

export const LABEL_NONE = "(none)";
export const label = (v: unknown) => v === null || v === undefined || v === "" ? LABEL_NONE : String(v);
