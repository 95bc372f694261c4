import { z } from "zod";
import {
  answerSchema,
  limitInput,
  offsetInput,
  periodInput,
  type Scope,
  touchpointInput,
} from "../lib/answers/schema.ts";
import { formatDate, localDateOf } from "../lib/time/dates.ts";
import { beforeFirstData, MIN_COMPARED_COVERAGE, withholdChanges } from "../lib/answers/before_data.ts";
import { firstEventAt } from "../lib/parts/first_data.ts";
import { FEWER_THAN_5, guardedVisitors } from "../lib/answers/privacy.ts";
import { HttpError, invalid } from "../lib/errors.ts";
import { getMembership } from "../lib/people/members.ts";
import { conditionSchema, describeDefinition } from "../lib/saved/definition.ts";
import type {
  SavedCohort,
  SavedDashboard,
  SavedInsight,
  SavedItem,
  SavedKind,
} from "../lib/saved/records.ts";
import { findSaved, getSaved, listSaved } from "../lib/saved/store.ts";
import { resolve } from "../toolkit/common.ts";
import { namedCohort } from "../toolkit/cohort.ts";
import { chartSeries, headlineFigures, runInsight } from "../toolkit/insight_runs.ts";
import { toolTitle } from "../toolkit/titles.ts";
import { type Answer, defineTool, type ToolContext } from "../toolkit/tool.ts";

const KINDS = ["cohort", "insight", "dashboard"] as const;
const count = z.union([z.number(), z.literal(FEWER_THAN_5)]);
const figure = z.object({
  name: z.string(),
  value: count.nullable(),
  previous: count.nullable().optional(),
  change: z.number().nullable().optional(),
});

/**
 * A saved cohort's definition as published (lib/saved/definition.ts): a condition, or all / any / not of
 * definitions. The members of all / any / not are written as objects of the same shape, not spelled out
 * again level by level (four levels of the whole union would add 200 KB to the tool's listing).
 */
const member = z.record(z.string(), z.unknown()).describe("a definition of the same shape");
const definitionShape = z.union([
  conditionSchema,
  z.strictObject({ all: z.array(member) }).describe("every member holds"),
  z.strictObject({ any: z.array(member) }).describe("at least one member holds"),
  z.strictObject({ not: member }).describe("the member does not hold"),
]).describe("the saved definition: a condition on what visitors did, or all / any / not of definitions");

/**
 * The period an insight on a dashboard was answered over, in the words of its own answer's scope: each
 * insight keeps its saved period unless the question asks one, so the dashboard's scope cannot say it.
 */
const insightPeriod = z.object({
  name: z.string(),
  from_date: z.string(),
  to_date: z.string(),
  previous_from_date: z.string().nullable().describe("the window its changes compare against, when any"),
  previous_to_date: z.string().nullable(),
});

const output = answerSchema({
  action: z.enum(["list", "insight", "dashboard", "cohort"]),
  items: z.array(z.object({
    kind: z.enum(KINDS),
    id: z.string(),
    name: z.string(),
    description: z.string(),
    defines: z.string().describe(
      "what it defines, in words: a cohort's conditions, an insight's tool, a dashboard's insights",
    ),
    touchpoint: z.string().nullable(),
    author_role: z.string().describe(
      "the author's role in the organization (owner, admin, member, former member)",
    ),
    updated_at: z.string(),
  })).describe("with action list"),
  items_total: z.number(),
  offset: z.number(),
  insight: z.object({
    id: z.string(),
    name: z.string(),
    tool: z.string(),
    input: z.record(z.string(), z.unknown()),
    answer: z.record(z.string(), z.unknown()).describe(
      "the tool's answer, as the tool gives it (scope first)",
    ),
  }).nullable(),
  dashboard: z.object({
    id: z.string(),
    name: z.string(),
    insights: z.array(z.object({
      name: z.string(),
      tool: z.string().nullable(),
      period: insightPeriod.nullable().describe(
        "the period of this insight's figures: its own, or the one asked; null when it has none or failed",
      ),
      figures: z.array(figure),
      chart: z.object({
        field: z.string(),
        measure: z.string(),
        points: z.array(z.object({
          label: z.string(),
          value: z.number().nullable().describe('null where the group reads "fewer than 5" (withheld)'),
        })),
      }).nullable(),
      scope_filter: z.string().nullable(),
      error: z.string().nullable().describe(
        "why this insight could not be answered (it no longer validates)",
      ),
    })),
  }).nullable(),
  cohort: z.object({
    id: z.string(),
    name: z.string(),
    defines: z.string(),
    definition: definitionShape,
    visitors: count.describe('visitors of the period in the cohort, exactly; 1 to 4 read "fewer than 5"'),
  }).nullable(),
});

const input = z.object({
  action: z.enum(["list", "insight", "dashboard", "cohort"]).optional().describe(
    "list (default): saved cohorts, insights and dashboards; insight: run one; dashboard: each insight's " +
      "headline figures; cohort: a cohort's definition and size",
  ),
  kind: z.enum(KINDS).optional().describe("with list: only this kind"),
  name: z.string().min(1).max(200).optional().describe(
    "the saved item's name or id (insight, dashboard, cohort)",
  ),
  period: periodInput.optional().describe(
    "run over this period instead of the insight's own; a cohort's size is given for it (default last_30_days)",
  ),
  touchpoint: touchpointInput.optional().describe("with list: only items of this website or app"),
  limit: limitInput.optional(),
  offset: offsetInput.optional(),
}).strict();

type Out = z.infer<typeof output> & Answer;

/** An insight's period as its answer's scope states it (dates in the organization's timezone). */
function periodOf(scope: Scope): z.infer<typeof insightPeriod> | null {
  const p = scope.period;
  if (!p) return null;
  const day = (ms: number) => formatDate(localDateOf(ms, scope.timezone));
  return {
    name: p.name,
    from_date: p.from_date,
    to_date: p.to_date,
    previous_from_date: p.previous ? day(Date.parse(p.previous.from)) : null,
    // the window's end is exclusive: its last day is the one before
    previous_to_date: p.previous ? day(Date.parse(p.previous.to) - 1) : null,
  };
}

const roleOf = async (ctx: ToolContext, user: string) =>
  (await getMembership(ctx.app.deps.kv, ctx.org.id, user))?.role ?? "former member";

function defines(item: SavedItem, names: Map<string, string>): string {
  if (item.kind === "cohort") return describeDefinition(item.definition);
  if (item.kind === "insight") {
    // the tool in words, its name to call it by, and what the insight asks of it (nothing when it asks nothing)
    const asks = Object.entries(item.input).filter(([, v]) => v !== undefined && v !== null)
      .map(([k, v]) => `${k.replaceAll("_", " ")} ${typeof v === "string" ? v : JSON.stringify(v)}`);
    return `${toolTitle(item.tool)} (${item.tool})${asks.length ? `: ${asks.join(", ")}` : ""}`;
  }
  return item.insights.map((id) => names.get(id) ?? "(removed insight)").join(", ");
}

async function wanted<K extends SavedKind>(ctx: ToolContext, kind: K, name: string | undefined) {
  if (!name) throw invalid(`name: give the saved ${kind}'s name or id`);
  const item = await findSaved(ctx.app.deps.kv, ctx.org.id, name, kind);
  if (!item) {
    const names = (await listSaved(ctx.app.deps.kv, ctx.org.id, kind)).slice(0, 25).map((x) => `"${x.name}"`);
    throw invalid(`name: no saved ${kind} "${name}"${names.length ? `; saved: ${names.join(", ")}` : ""}`);
  }
  return item as Extract<SavedItem, { kind: K }>;
}

const empty = { items: [], items_total: 0, offset: 0, insight: null, dashboard: null, cohort: null };

export default defineTool({
  name: "behavior_saved",
  description:
    "Saved cohorts, insights and dashboards of the organization (people create them in the app). " +
    "action list: their names, what each defines, the author's role and when it changed (25 per page); " +
    "action insight: run a saved insight by name (its tool's answer today, or over `period`); action " +
    "dashboard: each insight's headline figures; action cohort: a cohort's definition and its exact size. " +
    "To count only a cohort's visitors in any behavior tool, pass its name as that tool's `cohort` input.",
  input,
  output,
  async run(ctx, inp): Promise<Out> {
    const action = inp.action ?? "list";
    const kv = ctx.app.deps.kv;
    if (action === "insight") {
      const insight = await wanted(ctx, "insight", inp.name) as SavedInsight;
      const answer = await runInsight(ctx, insight, inp.period);
      const { scope, notices, ...rest } = answer as Answer;
      return {
        scope,
        action,
        ...empty,
        insight: {
          id: insight.id,
          name: insight.name,
          tool: insight.tool,
          input: insight.input,
          answer: rest,
        },
        notices,
      };
    }
    if (action === "dashboard") {
      const d = await wanted(ctx, "dashboard", inp.name) as SavedDashboard;
      const tp = ctx.touchpoints.find((t) => t.id === d.touchpoint) ?? null;
      // each insight runs over its own saved period unless one is asked: the scope states a period only when
      // every insight answered over the same one (null otherwise), each insight says its own
      const periods: Scope["period"][] = [];
      let first: { at: number | null } | undefined;
      const insights: NonNullable<Out["dashboard"]>["insights"] = [];
      const notices: string[] = [];
      for (const id of d.insights.slice(0, 25)) {
        const insight = await getSaved(kv, ctx.org.id, "insight", id);
        if (!insight) {
          insights.push({
            name: "(removed insight)",
            tool: null,
            period: null,
            figures: [],
            chart: null,
            scope_filter: null,
            error: "this insight was deleted",
          });
          continue;
        }
        try {
          const a = await runInsight(ctx, insight, inp.period);
          // what an insight's own answer says (a small group withheld, data still coming) holds on the dashboard
          for (const n of a.notices as string[]) {
            const said = `${insight.name}: ${n}`;
            if (!notices.includes(said)) notices.push(said);
          }
          const scope = a.scope as Scope;
          if (scope.period) periods.push(scope.period);
          // a comparison with a window before the first data, said of this insight (pipeline/notices.ts says
          // it of an answer's own scope, which a dashboard's is not): its changes withheld under half covered
          const prev = scope.period?.previous;
          const reviews = ctx.insightTools.find((t) => t.name === insight.tool)?.readsReviews;
          if (prev && !reviews) {
            first ??= { at: await firstEventAt(kv, ctx.org.id, ctx.env) };
            const window = { from: Date.parse(prev.from), to: Date.parse(prev.to) };
            const c = beforeFirstData(window, first.at, scope.timezone, ctx.env);
            if (c && c.covered < MIN_COMPARED_COVERAGE) withholdChanges(a);
            if (c && !notices.includes(`${insight.name}: ${c.notice}`)) {
              notices.push(`${insight.name}: ${c.notice}`);
            }
          }
          insights.push({
            name: insight.name,
            tool: insight.tool,
            period: periodOf(scope),
            figures: headlineFigures(a),
            chart: chartSeries(a),
            scope_filter: (a.scope as { filter: string | null }).filter,
            error: null,
          });
        } catch (err) {
          if (!(err instanceof HttpError) || err.status >= 500) throw err;
          insights.push({
            name: insight.name,
            tool: insight.tool,
            period: null,
            figures: [],
            chart: null,
            scope_filter: null,
            error: err.message,
          });
        }
      }
      const same = periods.length > 0 &&
        periods.every((p) => JSON.stringify(p) === JSON.stringify(periods[0]));
      const scope = ctx.scope({
        period: null,
        touchpoint: tp,
        traffic: "visitors (bots and AI agents left out)",
      });
      return {
        scope: { ...scope, period: same ? periods[0] : null },
        action,
        ...empty,
        dashboard: { id: d.id, name: d.name, insights },
        notices,
      };
    }
    if (action === "cohort") {
      const c = await wanted(ctx, "cohort", inp.name) as SavedCohort;
      const checked = await namedCohort(ctx.app, ctx.org.id, { cohort: c.id });
      const r = resolve({ ...ctx, cohort: checked }, { period: inp.period, defaultPeriod: "last_30_days" });
      const size = await r.engine.cohortSize(r.scope, r.scope.cohort!);
      return {
        scope: r.answerScope,
        action,
        ...empty,
        cohort: {
          id: c.id,
          name: c.name,
          defines: describeDefinition(c.definition),
          definition: c.definition,
          visitors: guardedVisitors(size, true),
        },
        notices: [],
      };
    }
    // list
    const tp = inp.touchpoint ? ctx.touchpoint(inp.touchpoint) : null;
    const kinds = inp.kind ? [inp.kind] : KINDS;
    const all: SavedItem[] = [];
    for (const k of kinds) all.push(...await listSaved(kv, ctx.org.id, k));
    const insightNames = new Map(
      (inp.kind && inp.kind !== "dashboard" ? [] : await listSaved(kv, ctx.org.id, "insight")).map((
        i,
      ) => [i.id, i.name]),
    );
    const chosen = all.filter((x) => !tp || x.touchpoint === tp.id);
    const offset = inp.offset ?? 0;
    const page = chosen.slice(offset, offset + (inp.limit ?? 25));
    const items = [];
    for (const x of page) {
      items.push({
        kind: x.kind,
        id: x.id,
        name: x.name,
        description: x.description,
        defines: defines(x, insightNames),
        touchpoint: ctx.touchpoints.find((t) => t.id === x.touchpoint)?.name ?? null,
        author_role: await roleOf(ctx, x.author),
        updated_at: x.updated_at,
      });
    }
    return {
      scope: { ...ctx.scope({ period: null, touchpoint: tp, traffic: "saved items" }) },
      action,
      ...empty,
      items,
      items_total: chosen.length,
      offset,
      notices: chosen.length
        ? []
        : ["nothing saved yet: people create cohorts, insights and dashboards in the app"],
    };
  },
});
