/**
 * The notices the pipeline adds after a tool's own: periods cut to the history limit, allowances near their
 * end, a comparison with a window that starts before the first data (its changes withheld when less than half
 * of it holds data), events the web SDK sampled, and how fresh the data is.
 */
import type { AppContext } from "../lib/context.ts";
import { SAMPLE_RATE_FLOOR, sampledBetween, type SampledOf } from "../lib/ingest/sampled.ts";
import type { TouchpointKind } from "../lib/store/records.ts";
import { latestArrival } from "../lib/parts/arrivals.ts";
import { firstEventAt } from "../lib/parts/first_data.ts";
import { beforeFirstData, MIN_COMPARED_COVERAGE, withholdChanges } from "../lib/answers/before_data.ts";
import { closeNames, holdsFigures, pageVariants, unknownNameNotice } from "../lib/answers/unknown_names.ts";
import type { Scope as EngineScope } from "../lib/query/api.ts";
import { urlPath } from "../lib/url_path.ts";
import type { UsageMeter } from "../lib/usage/meter.ts";
import type { Answer, Tool, ToolContext } from "../toolkit/tool.ts";

function ago(ms: number): string {
  const min = Math.round(ms / 60_000);
  if (min < 1) return "less than a minute ago";
  if (min < 120) return `${min} minute${min === 1 ? "" : "s"} ago`;
  const h = Math.round(min / 60);
  if (h < 48) return `${h} hours ago`;
  return `${Math.round(h / 24)} days ago`;
}

/** When the newest event or hit of this environment arrived. */
export async function freshnessNotice(app: AppContext, ctx: ToolContext): Promise<string> {
  const at = await latestArrival(
    app.deps,
    ctx.org.id,
    ctx.env,
    (kind) => app.engine.newestPartArrival(ctx.org.id, ctx.env, kind),
  );
  if (at === null) return `no data received yet in ${ctx.env}; answers fill in once the SDKs send events`;
  // never a time after now (an arrival stored ahead of the clock reads as now)
  const fresh = Math.min(at, ctx.now);
  return `data fresh to ${new Date(fresh).toISOString()} (${ago(ctx.now - fresh)})`;
}

/**
 * When the answer's period (or the one it compares against) holds days whose web events the SDK sampled: the
 * counts are of the events sent, not scaled up (a guess would read as exact), and the notice gives the rate.
 * Only the answer's touchpoint's days count (every touchpoint's when the answer has none); answers about
 * app-store reviews (a tool that `readsReviews`) are never told. Days are UTC days, so a period in another
 * timezone may be told of a sampled day it only touches.
 */
export async function samplingNotice(
  app: AppContext,
  ctx: ToolContext,
  tool: Pick<Tool, "readsReviews">,
  answer: Answer,
): Promise<string[]> {
  const p = answer.scope?.period;
  if (!p || tool.readsReviews) return [];
  const tp = answer.scope.touchpoint;
  const of: SampledOf = tp ? { id: tp.id, kind: tp.kind as TouchpointKind } : "all";
  const windows = [p, ...(p.previous ? [p.previous] : [])].map((w) => ({
    from: Date.parse(w.from),
    to: Date.parse(w.to),
  }));
  const s = await sampledBetween(app.deps.kv, ctx.org.id, ctx.env, of, windows);
  if (!s) return [];
  // a rate at the floor stands for any rate below it (lib/ingest/sampled.ts)
  const pct = `${
    s.lowest >= 0.01 ? Math.round(s.lowest * 1000) / 10 : Number((s.lowest * 100).toPrecision(2))
  }%`;
  const rate = s.lowest <= SAMPLE_RATE_FLOOR
    ? `sampleRate ${SAMPLE_RATE_FLOOR} or lower, ${pct} or less`
    : `sampleRate as low as ${s.lowest}, ${pct}`;
  return [
    `web SDK sampling: on ${s.days} day${s.days === 1 ? "" : "s"} of this period${
      p.previous ? " or the one compared" : ""
    } the web SDK sent only a sample of visitors (${rate}); web figures count ` +
    "the events received and are not scaled up, so they understate the traffic of those days",
  ];
}

/**
 * When the window the answer compares against (`scope.period.previous`) starts before the environment's first
 * web event: a notice saying how much of it holds data, and, when less than half does, every change of the
 * answer withheld (set to null here, in the answer). Answers about app-store reviews (`readsReviews`) are never
 * told. A touchpoint added to an environment that already held another's data is measured by the
 * environment's first event, not its own (the part index does not say which touchpoint's rows it holds).
 */
export async function comparedBeforeDataNotice(
  app: AppContext,
  ctx: ToolContext,
  tool: Pick<Tool, "readsReviews">,
  answer: Answer,
): Promise<string[]> {
  const prev = answer.scope?.period?.previous;
  if (!prev || tool.readsReviews) return [];
  const first = await firstEventAt(app.deps.kv, ctx.org.id, ctx.env);
  const w = { from: Date.parse(prev.from), to: Date.parse(prev.to) };
  const c = beforeFirstData(w, first, answer.scope.timezone, ctx.env);
  if (!c) return [];
  if (c.covered < MIN_COMPARED_COVERAGE) withholdChanges(answer);
  // a dashboard says it of each insight it holds ("Top pages: the period compared …"): not again
  return answer.notices.some((n) => n.endsWith(c.notice)) ? [] : [c.notice];
}

/**
 * An answer about an event (its `event` field) or a page (`scope.page`) that holds no figure above 0: when
 * the period received no such event or page (any traffic, the answer's touchpoint), a notice says so and
 * names close ones ("did you mean "/pricing"?"). Only empty answers ask the engine: event names from one
 * aggregate by event type over the period, pages from one over the asked path's spellings (a trailing slash,
 * case), both answered from the rollups on a large site. A period that received nothing at all says nothing.
 */
export async function unknownNameNotices(
  app: AppContext,
  ctx: ToolContext,
  tool: Pick<Tool, "readsReviews">,
  answer: Answer,
): Promise<string[]> {
  const p = answer.scope?.period;
  const event = typeof answer.event === "string" ? answer.event : null;
  const page = answer.scope?.page ?? null;
  if (!p || tool.readsReviews || (!event && !page) || holdsFigures(answer)) return [];
  const scope: EngineScope = {
    org: ctx.org.id,
    env: ctx.env,
    touchpoint: answer.scope.touchpoint?.id ?? null,
    from: Date.parse(p.from),
    to: Date.parse(p.to),
    timezone: answer.scope.timezone,
    traffic: ["human", "bot", "ai_agent"],
  };
  const out: string[] = [];
  if (event) {
    const r = await app.engine.aggregate(scope, { metrics: ["events"], breakdown: ["event_type"] });
    const names = r.rows.map((x) => x.key.event_type).filter((n): n is string => typeof n === "string");
    if (names.length && !names.includes(event)) {
      out.push(unknownNameNotice("event", event, ctx.env, p, closeNames(event, names)));
    }
  }
  if (page) {
    const stored = urlPath(page);
    const variants = [...new Set([stored, ...pageVariants(stored)])];
    const r = await app.engine.aggregate(
      { ...scope, filters: [{ field: "page", op: "in", value: variants }] },
      { metrics: ["events"], breakdown: ["page"] },
    );
    const found = r.rows.map((x) => x.key.page).filter((n): n is string => typeof n === "string");
    if (!found.includes(stored)) {
      const any = await app.engine.aggregate(scope, { metrics: ["events"] });
      if ((any.totals.events ?? 0) > 0) {
        out.push(unknownNameNotice("page", page, ctx.env, p, closeNames(stored, found)));
      }
    }
  }
  return out;
}

export async function pipelineNotices(
  app: AppContext,
  ctx: ToolContext,
  /** The call's meter when it is metered (a caller's call); the app and the service see no usage notices. */
  meter: UsageMeter | null,
  tool: Pick<Tool, "readsReviews">,
  answer: Answer,
): Promise<string[]> {
  return [
    ...ctx.periodNotices.filter((n) => !answer.notices.includes(n)),
    ...(meter?.notices() ?? []),
    ...await unknownNameNotices(app, ctx, tool, answer),
    ...await comparedBeforeDataNotice(app, ctx, tool, answer),
    ...await samplingNotice(app, ctx, tool, answer),
    await freshnessNotice(app, ctx),
  ];
}
