import { z } from "zod";
import { groupCount, groupParts, groupRate, groupSize } from "../lib/answers/group_counts.ts";
import { answerSchema, cohortInput, periodInput, touchpointInput } from "../lib/answers/schema.ts";
import { FEWER_THAN_5, isFew, SMALL_GROUP } from "../lib/answers/privacy.ts";
import { invalid } from "../lib/errors.ts";
import { bucketsBetween } from "../lib/query/api.ts";
import { rate, resolve } from "../toolkit/common.ts";
import { eventNameInput, toStepDef } from "../toolkit/steps.ts";
import { defineTool } from "../toolkit/tool.ts";

const INTERVALS = ["day", "week", "month"] as const;
type Interval = (typeof INTERVALS)[number];
const MAX_COHORTS = 25, DEFAULT_DAILY_UP_TO = 14;

const output = answerSchema({
  interval: z.enum(INTERVALS),
  cohort_by: z.string().describe(
    "what puts a visitor in a cohort: their first visit, or first time doing an event",
  ),
  returning: z.string().describe("what counts as coming back: any visit, or doing an event"),
  visitors: groupSize(z.union([z.number(), z.literal(FEWER_THAN_5)])).describe(
    "visitors who entered a cohort in the period: the cohorts' whole",
  ),
  // each visitor enters one cohort, so the cohorts split `visitors` (the period's visitors, or those who did
  // cohort_event, as behavior_overview and behavior_trends show): under a filter, small ones fold
  cohorts: groupParts(
    (a) => ({ visitors: a.visitors }),
    z.array(z.object({
      cohort: z.string().describe(
        'the day, week (its Monday) or month visitors entered; "(other)" gathers folded cohorts',
      ),
      visitors: groupSize(z.union([z.number(), z.literal(FEWER_THAN_5)])).describe(
        "visitors who entered then",
      ),
      returned: groupCount("visitors", z.array(z.number().nullable())).nullable().describe(
        "visitors of the cohort who came back 0, 1, 2 … intervals later (0: its own interval, from entering on); " +
          "null under 5 visitors; under a saved cohort a count is null where 1 to 4 of the cohort did not come back",
      ),
      rates: groupRate(["returned"], z.array(z.number().nullable()).nullable()).describe(
        "returned / visitors, 0-1; null under 5 visitors, and beside a withheld count",
      ),
    })),
    undefined,
    "cohort",
  ).describe(
    "oldest first: a triangle, each cohort followed to the end of the period; under a saved cohort, cohorts " +
      'of 1 to 4 visitors (and where needed the smallest beside them) are folded into "(other)", last',
  ),
  cohorts_total: z.number(),
  average_curve: z.array(z.number().nullable()).describe(
    "return rate 0, 1, 2 … intervals after entering over the cohorts of 5+ visitors that reached that far, " +
      "each weighted by its visitors; under a saved cohort null where a cohort's return count reads " +
      '"fewer than 5"',
  ),
});

export default defineTool({
  name: "behavior_retention",
  description:
    "Whether visitors come back, by day, week or month: visitors are grouped into cohorts by the interval " +
    "of their first visit in the period (or, with cohort_event, the first time they did that event, e.g. " +
    "sign_up), and each cohort shows how many came back 1, 2, 3 … intervals later (any visit, or with " +
    "return_event only doing that event, e.g. purchase), as counts and rates, plus the average curve over all " +
    `cohorts. At most ${MAX_COHORTS} cohorts: interval defaults to day up to ${DEFAULT_DAILY_UP_TO} days, ` +
    'else week, else month. Cohorts of fewer than 5 visitors read "fewer than 5" with no rates. Use ' +
    "behavior_trends for visitors over time and behavior_funnel for conversion within a visit or a few days.",
  input: z.object({
    touchpoint: touchpointInput.optional(),
    cohort: cohortInput.optional(),
    period: periodInput.optional(),
    interval: z.enum(INTERVALS).optional().describe(
      `cohort size; default day up to ${DEFAULT_DAILY_UP_TO} days, week up to ${MAX_COHORTS} weeks, else month`,
    ),
    cohort_event: eventNameInput.optional().describe("cohorts by the first time visitors did this event"),
    return_event: eventNameInput.optional().describe("only this event counts as coming back"),
  }).strict(),
  output,
  async run(ctx, input) {
    const r = resolve(ctx, input);
    const count = (i: Interval) => bucketsBetween(r.period.from, r.period.to, i, ctx.org.timezone).length;
    const interval: Interval = input.interval ??
      (count("day") <= DEFAULT_DAILY_UP_TO ? "day" : count("week") <= MAX_COHORTS ? "week" : "month");
    const n = count(interval);
    if (n > MAX_COHORTS) {
      throw invalid(
        `${r.period.name} holds ${n} ${interval}s; retention shows at most ${MAX_COHORTS} cohorts: ` +
          `use a longer interval (${interval === "day" ? "week" : "month"}) or a shorter period`,
      );
    }
    const res = await r.engine.retention(r.scope, {
      period: interval,
      ...(input.cohort_event ? { cohort: toStepDef({ event: input.cohort_event }) } : {}),
      ...(input.return_event ? { returning: toStepDef({ event: input.return_event }) } : {}),
    });
    // Under a saved cohort a return count of 1-4 reads "fewer than 5"; a curve point it went into would give
    // it back (multiplied by the visitors behind the point, less the counts shown), so that point is withheld.
    // So is a count where 1 to 4 of the cohort did not come back: the cohort's visitors less it would tell them.
    const guarded = ctx.cohort !== null;
    const fewLeft = (visitors: number, x: number) => {
      const left = visitors - x;
      return guarded && isFew(left);
    };
    const curve: (number | null)[] = [];
    for (let d = 0; d < res.cohorts.length; d++) {
      let returned = 0, visitors = 0, hidden = false;
      for (const c of res.cohorts) {
        if (c.visitors < SMALL_GROUP || c.counts.length <= d) continue;
        const x = c.counts[d];
        if ((guarded && isFew(x)) || fewLeft(c.visitors, x)) hidden = true;
        returned += x;
        visitors += c.visitors;
      }
      curve.push(visitors > 0 && !hidden ? rate(returned / visitors) : null);
    }
    const notices: string[] = [];
    if (res.cohorts.some((c) => isFew(c.visitors))) {
      notices.push(
        'cohorts of fewer than 5 visitors read "fewer than 5", without rates or a place in the average',
      );
    }
    if (r.period.to > ctx.now) {
      notices.push(`the last ${interval} is not over yet: returns in it are still coming in`);
    }
    return {
      scope: r.answerScope,
      interval,
      cohort_by: input.cohort_event
        ? `first time doing ${input.cohort_event} in the period`
        : "first visit in the period",
      returning: input.return_event ? `doing ${input.return_event}` : "any visit",
      visitors: res.cohorts.reduce((n, c) => n + c.visitors, 0),
      cohorts: res.cohorts.map((c) => {
        const shown = c.visitors === 0 || c.visitors >= SMALL_GROUP;
        return {
          cohort: c.cohort,
          visitors: shown ? c.visitors : FEWER_THAN_5,
          returned: shown && c.visitors > 0 ? c.counts.map((x) => fewLeft(c.visitors, x) ? null : x) : null,
          rates: shown && c.visitors > 0
            ? c.counts.map((x) => fewLeft(c.visitors, x) ? null : rate(x / c.visitors)!)
            : null,
        };
      }),
      cohorts_total: res.cohorts.length,
      average_curve: curve,
      notices,
    };
  },
});
