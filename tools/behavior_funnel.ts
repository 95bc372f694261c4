import { z } from "zod";
import { groupParts, groupRate, groupRest, groupSize } from "../lib/answers/group_counts.ts";
import { answerSchema, cohortInput, periodInput, touchpointInput } from "../lib/answers/schema.ts";
import { FEWER_THAN_5, guardedTime, isFew } from "../lib/answers/privacy.ts";
import { invalid } from "../lib/errors.ts";
import type { EventField, FunnelStep } from "../lib/query/api.ts";
import { label, rate, resolve } from "../toolkit/common.ts";
import { stepInput, stepName, toStepDef } from "../toolkit/steps.ts";
import { defineTool } from "../toolkit/tool.ts";

const MIN_STEPS = 2, MAX_STEPS = 8, TOP_SPLITS = 10;
const HOUR = 3_600_000, DAY = 24 * HOUR;
const UNIT_MS = { m: 60_000, h: HOUR, d: DAY } as const;
const SPLITS = ["channel", "source", "country", "device", "browser"] as const;
const SPLIT_FIELD: Record<(typeof SPLITS)[number], EventField> = {
  channel: "channel",
  source: "source",
  country: "country",
  device: "device_type",
  browser: "browser",
};
const stepCount = `a funnel has ${MIN_STEPS} to ${MAX_STEPS} steps`;

const count = z.union([z.number(), z.literal(FEWER_THAN_5)]);
const step = z.object({
  step: z.number().describe("1-based position"),
  name: z.string().describe('the step as asked: "/pricing", "/docs/*", "sign_up where plan = pro"'),
  visitors: groupSize(count).describe("visitors who reached this step after the ones before it, in order"),
  conversion_from_first: groupRate([], z.number().nullable()).describe("visitors / visitors of step 1, 0-1"),
  // 1 less the drop-off rate: worked out from dropped_off as much as from visitors
  conversion_from_previous: groupRate(["dropped_off"], z.number().nullable()).describe(
    "visitors / visitors of the step before, 0-1",
  ),
  // the step before's visitors less this one's: under a filter, a drop-off of 1 to 4 withholds this step's
  // visitors (lib/answers/fold_rests.ts)
  dropped_off: groupRest("visitors", z.number().nullable()).describe(
    "visitors of the step before who did not reach this one",
  ),
  drop_off_rate: groupRate(["dropped_off"], z.number().nullable()).describe(
    "dropped_off / visitors of the step before, 0-1",
  ),
  time_from_previous_median_s: z.number().nullable().describe(
    "median seconds from the step before to this one; null for step 1 and under 5 visitors",
  ),
});

const output = answerSchema({
  unit: z.literal("visitors"),
  conversion_window: z.string().describe("the whole funnel completes within this time of step 1"),
  steps: z.array(step),
  steps_total: z.number(),
  // the funnel's group is step 1, in the list: the tool withholds this itself where a step is 1 to 4
  overall_conversion: groupRate([], z.number().nullable()).describe("last step's visitors / step 1's, 0-1"),
  split_by: z.enum(SPLITS).nullable(),
  // a visitor's split is its value at step 1: each step's visitors split one way each
  splits: groupParts(
    (a) => {
      const steps = a.steps as Record<string, unknown>[];
      return { visitors: steps[0]?.visitors, steps };
    },
    z.array(z.object({
      name: z.string().describe(
        'the value at the visitor\'s step 1; "(other)" gathers the values after the top 10',
      ),
      visitors: groupSize(count).describe("visitors at step 1"),
      overall_conversion: groupRate([], z.number().nullable()),
      steps: z.array(step),
    })),
  ).describe("the whole funnel per value, top 10 by visitors at step 1, then the rest as (other)"),
  splits_total: z.number().describe("distinct values among visitors who reached step 1"),
});

/** "30m", "2h", "1d", "7d" → ms. */
function windowMs(w: string): number {
  const m = /^(\d{1,4})([mhd])$/.exec(w)!;
  return Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
}

const windowText = (ms: number) =>
  ms % DAY === 0 ? `${ms / DAY}d` : ms % HOUR === 0 ? `${ms / HOUR}h` : `${Math.round(ms / 60_000)}m`;

export default defineTool({
  name: "behavior_funnel",
  description:
    "Conversion through 2 to 8 ordered steps, e.g. / → /pricing → sign_up → purchase: how many visitors " +
    "reached each step after the ones before it (in that order, across their visits, within a conversion " +
    "window from step 1: default 1 day, up to the period), conversion from step 1 and from the step before, " +
    "how many dropped off and the drop-off rate, and the median time from the step before (never for fewer " +
    'than 5 visitors). A step is a page ({"page": "/pricing"}, or a section: {"page": "/docs/*"}) or an ' +
    'event ({"event": "sign_up"}), optionally with one property condition ({"event": "purchase", ' +
    '"property": "plan", "value": "pro"}; then groups of 1 to 4 visitors read "fewer than 5"). Optionally ' +
    "split the whole funnel by channel, source, country, device or browser (top 10 values at step 1, the " +
    "rest as one group). Find exact event names with behavior_events; see where visitors go instead with " +
    "behavior_paths; see whether they come back with behavior_retention.",
  input: z.object({
    touchpoint: touchpointInput.optional(),
    cohort: cohortInput.optional(),
    period: periodInput.optional(),
    steps: z.array(stepInput)
      .min(MIN_STEPS, { error: (iss) => `${stepCount}, not ${(iss.input as unknown[]).length}` })
      .max(MAX_STEPS, { error: (iss) => `${stepCount}, not ${(iss.input as unknown[]).length}` })
      .describe(`${MIN_STEPS} to ${MAX_STEPS} steps in order`),
    conversion_window: z.string().regex(/^\d{1,4}[mhd]$/, "use minutes, hours or days: 30m, 2h, 1d, 7d")
      .optional().describe(
        "time from step 1 to the last step: 30m, 2h, 1d, 7d; default 1d, at most the period",
      ),
    split_by: z.enum(SPLITS).optional(),
  }).strict(),
  output,
  async run(ctx, input) {
    const conditioned = input.steps.filter((s) => s.property !== undefined).map(stepName);
    // a property condition or a saved cohort: groups of 1 to 4 are guarded (rule 5)
    const guarded = conditioned.length > 0 || ctx.cohort !== null;
    const r = resolve(ctx, {
      ...input,
      filterLabel: conditioned.length ? `steps with a property condition: ${conditioned.join("; ")}` : null,
    });
    // the period's local calendar days: a 7-day window fits last_7_days, which ends now
    const days = Math.round((Date.parse(r.period.to_date) - Date.parse(r.period.from_date)) / DAY) + 1;
    let window = DAY; // a period is at least one day: the default always fits
    if (input.conversion_window !== undefined) {
      window = windowMs(input.conversion_window);
      if (window === 0) throw invalid("conversion_window must be longer than 0: e.g. 30m, 1d");
      if (window > days * DAY) {
        throw invalid(
          `conversion_window ${input.conversion_window} is longer than the period (${days} ` +
            `day${days === 1 ? "" : "s"}): use at most ${days}d, or a longer period`,
        );
      }
    }
    const res = await r.engine.funnel(r.scope, {
      steps: input.steps.map(toStepDef),
      by: "visitor",
      window_ms: window,
      ...(input.split_by ? { split: { field: SPLIT_FIELD[input.split_by], top: TOP_SPLITS } } : {}),
    });
    const names = input.steps.map(stepName);
    const small = (n: number) => guarded && isFew(n);
    const show = (steps: FunnelStep[]) =>
      steps.map((s, i) => {
        // under a property condition, a group of 1-4 is not told, nor anything it could be worked out from
        const hidden = small(s.count), prevHidden = i > 0 && small(steps[i - 1].count);
        const prev = i > 0 ? steps[i - 1].count : 0;
        return {
          step: s.index,
          name: names[i],
          visitors: hidden ? FEWER_THAN_5 : s.count,
          conversion_from_first: hidden ? null : rate(s.conversion_from_start),
          conversion_from_previous: hidden || prevHidden ? null : rate(s.conversion_from_previous),
          dropped_off: i === 0 ? 0 : hidden || prevHidden ? null : s.dropped,
          drop_off_rate: i === 0 || hidden || prevHidden || prev === 0 ? null : rate(s.dropped / prev),
          time_from_previous_median_s: s.median_ms_from_previous === null
            ? null
            : guardedTime(s.median_ms_from_previous / 1000, s.count),
        };
      });
    const overall = (steps: FunnelStep[]) => {
      const last = steps[steps.length - 1];
      return small(last.count) || small(steps[0].count) ? null : rate(last.conversion_from_start);
    };
    const notices: string[] = [];
    if (conditioned.length) {
      notices.push('a step has a property condition: groups of 1 to 4 visitors read "fewer than 5"');
    } else if (guarded) notices.push('under a saved cohort: groups of 1 to 4 visitors read "fewer than 5"');
    return {
      scope: r.answerScope,
      unit: "visitors" as const,
      conversion_window: windowText(window),
      steps: show(res.steps),
      steps_total: res.steps.length,
      overall_conversion: overall(res.steps),
      split_by: input.split_by ?? null,
      splits: (res.splits ?? []).map((x) => ({
        name: x.other ? "(other)" : label(x.value),
        visitors: small(x.steps[0].count) ? FEWER_THAN_5 : x.steps[0].count,
        overall_conversion: overall(x.steps),
        steps: show(x.steps),
      })),
      splits_total: res.split_values ?? 0,
      notices,
    };
  },
});
