/** behavior_explain_change: a metric's change between two periods, split by the segments that moved it. */
import { z } from "zod";
import { notACount } from "../lib/answers/group_counts.ts";
import { answerSchema, cohortInput, periodInput, touchpointInput } from "../lib/answers/schema.ts";
import { isFew, SMALL_GROUP } from "../lib/answers/privacy.ts";
import { invalid } from "../lib/errors.ts";
import {
  type AttributionResult,
  type AttributionRow,
  type Contribution,
  contributions,
  type EventField,
  metricOf,
  type Side,
  sumSides,
} from "../lib/query/api.ts";
import { label, rate, resolve, round } from "../toolkit/common.ts";
import { defineTool } from "../toolkit/tool.ts";
import {
  describeDriver,
  type Dimension,
  DIMENSIONS,
  isRate,
  type MetricName,
  METRICS,
  OTHER,
  summaryLine,
  UNIT,
} from "../toolkit/explain_change_words.ts";

const FIELD: Record<Dimension, EventField> = {
  channel: "channel",
  source: "source",
  page: "page",
  country: "country",
  device: "device_type",
  browser: "browser",
};
const DEFAULT_SEGMENTS = 5, MAX_SEGMENTS = 10, MAX_DRIVERS = 5;

const figures = z.object({
  value: z.number().nullable().describe("this period: a count, or a rate 0-1 (null without units)"),
  previous: z.number().nullable().describe("the period before, the same way"),
  difference: z.number().nullable().describe(
    "value - previous (for rates, in fractions: 0.012 = 1.2 points)",
  ),
  change: z.number().nullable().describe("relative change of the value, -0.25 means 25% down"),
});

const segment = figures.extend({
  name: z.string().describe(
    `the value (a page, a source…); "${OTHER}" gathers the values after the top ones`,
  ),
  units: z.object({ value: z.number(), previous: z.number() }).describe(
    "visitors or sessions placed in this segment (for rates, the denominator)",
  ),
  contribution: z.number().describe("its part of the total difference; a dimension's segments add up to it"),
  // parts of the change, not rates of a group: a segment of fewer than 5 units is only part of (other)
  contribution_share: notACount(z.number().nullable()).describe(
    "contribution / total difference (null when it is 0)",
  ),
  mix: z.number().nullable().describe("rates only: the part due to the segment's share of units moving"),
  rate: notACount(z.number().nullable()).describe(
    "rates only: the part due to the segment's own rate moving",
  ),
  effect: z.enum(["volume", "mix", "rate"]).describe(
    "volume: a count moved; mix: mostly its share of units moved; rate: mostly its own rate moved",
  ),
});

const output = answerSchema({
  metric: z.enum(METRICS),
  conversion_event: z.string().nullable(),
  attribution: z.string().describe("how units are placed into segments"),
  total: figures,
  summary: z.string().describe("one line: the total change and its main driver"),
  drivers: z.array(segment.extend({
    dimension: z.enum(DIMENSIONS),
    finding: z.string().describe("one line an assistant can quote"),
  })).describe(`the segments that moved the total most, across dimensions, at most ${MAX_DRIVERS}`),
  drivers_total: z.number().describe("named segments with a contribution other than 0, across dimensions"),
  dimensions: z.array(z.object({
    dimension: z.enum(DIMENSIONS),
    segments: z.array(segment).describe(`the top segments by size of contribution, then ${OTHER}`),
    segments_total: z.number().describe("distinct values seen in either period"),
  })),
  dimensions_total: z.number(),
});
type Segment = z.infer<typeof segment>;

const ATTRIBUTION: Record<"visitor" | "session" | "pageview", string> = {
  visitor: "each visitor counted once, under the values of their first event in the period (the page they " +
    "landed on, the channel and source they came from)",
  session:
    "each session counted once, under the values of its first event (its landing page, channel, source)",
  pageview:
    "each pageview under its own page and the channel, source, country, device and browser it came with",
};

function sideOf(metric: MetricName, row: AttributionRow | AttributionResult | undefined): Side {
  if (!row) return { units: 0, count: 0 };
  const count = metric === "pageviews"
    ? row.pageviews
    : metric === "conversion_rate"
    ? row.converted
    : metric === "bounce_rate"
    ? row.bounced
    : row.units;
  return { units: row.units, count };
}

/**
 * The visitors behind a segment's figures: those of the units placed in it, and for pageviews also those
 * whose pageviews it counts (a visitor's sessions or pageviews may fall under several values).
 */
const fewBehind = (metric: MetricName, row: AttributionRow) =>
  isFew(row.visitors) || (metric === "pageviews" && isFew(row.viewers));

/**
 * Where the visitors behind an (other) made of these values are 1 to 4 in a period, if anywhere. Visitors of
 * different values are added when each visitor has one value (unit visitor); sessions of one visitor may fall
 * under several values, so then only the largest value's visitors are sure to be distinct.
 */
function fewInOther(
  metric: MetricName,
  behind: Record<"now" | "before", number[]>[],
): { period: "now" | "before"; index: number } | null {
  const add = UNIT[metric] === "visitor"
    ? (a: number, b: number) => a + b
    : (a: number, b: number) => Math.max(a, b);
  for (const period of ["now", "before"] as const) {
    for (const index of metric === "pageviews" ? [0, 1] : [0]) {
      if (isFew(behind.reduce((n, b) => add(n, b[period][index]), 0))) return { period, index };
    }
  }
  return null;
}

/** Rule 5 under a cohort: a change among 1 to 4 visitors is not explained, whichever figures it would show. */
function refuseSmallCohort(name: string, now: number, before: number): void {
  const where = isFew(now) ? "in this period" : isFew(before) ? "in the period before" : null;
  if (!where) return;
  throw invalid(
    `cohort "${name}" has fewer than ${SMALL_GROUP} visitors ${where}: a change among so few people is not ` +
      "explained (small-group rule); ask over a longer period, or without the cohort",
  );
}

const digitsOf = (metric: MetricName) => (isRate(metric) ? 6 : 0);

export default defineTool({
  name: "behavior_explain_change",
  description:
    "What changed between the period and the one before it, and why: for one metric (visitors, sessions, " +
    "pageviews, conversion_rate to an event, bounce_rate) the total change, then per dimension (channel, " +
    "source, page, country, device, browser) the segments that moved it most, each with its before and after " +
    "and its contribution to the total difference (a dimension's contributions, with (other), add up to it), " +
    "and the top drivers across dimensions with a one-line finding each. Visitors and sessions are counted " +
    "once, under their first event's values (landing page, channel, source), so the parts add up. For rates, " +
    "mix (a segment grew in share) is told apart from rate (a segment's own rate moved). Pass " +
    "`conversion_event` with conversion_rate. Optional `cohort` explains the change among a saved cohort's " +
    "visitors. Use behavior_overview for the headline numbers and behavior_trends to see when within the " +
    "period a change happened.",
  input: z.object({
    touchpoint: touchpointInput.optional(),
    cohort: cohortInput.describe(
      "A saved cohort's name or id (behavior_saved lists them): explains the change among its visitors only, " +
        `exactly; segments of 1 to 4 of its visitors in either period are part of ${OTHER}, and a cohort of ` +
        "1 to 4 visitors in either period is not explained (422)",
    ).optional(),
    period: periodInput.optional(),
    metric: z.enum(METRICS).optional().describe("default visitors"),
    conversion_event: z.string().min(1).max(120).optional().describe(
      "the event a conversion is (metric conversion_rate), e.g. sign_up",
    ),
    dimensions: z.array(z.enum(DIMENSIONS)).min(1).max(DIMENSIONS.length).optional().describe(
      "which dimensions to explain by; default all",
    ),
    segments_per_dimension: z.number().int().min(1).max(MAX_SEGMENTS).optional().describe(
      `top segments shown per dimension before ${OTHER}, 1 to ${MAX_SEGMENTS} (default ${DEFAULT_SEGMENTS})`,
    ),
  }).strict(),
  output,
  async run(ctx, input) {
    const metric: MetricName = input.metric ?? "visitors";
    if (metric === "conversion_rate" && !input.conversion_event) {
      throw invalid("metric conversion_rate needs `conversion_event`: the event that counts as converting");
    }
    if (metric !== "conversion_rate" && input.conversion_event !== undefined) {
      throw invalid("conversion_event is used only with metric conversion_rate: drop it or set the metric");
    }
    const dims = [...new Set(input.dimensions ?? DIMENSIONS)];
    const top = input.segments_per_dimension ?? DEFAULT_SEGMENTS;
    const r = resolve(ctx, input);
    if (!r.previous) {
      throw invalid(
        "there is no previous period to compare with (it would reach before the plan's history limit): " +
          "use a shorter or later period",
      );
    }
    const cohort = ctx.cohort;
    const ask = {
      fields: dims.map((d) => FIELD[d]),
      unit: UNIT[metric],
      ...(input.conversion_event ? { goal: { event_type: input.conversion_event } } : {}),
      // under a cohort, rule 5 is about the visitors behind each figure
      ...(cohort ? { visitors: true } : {}),
    };
    const [now, before] = await Promise.all([
      r.engine.attribution(r.scope, ask),
      r.engine.attribution(r.previous, ask),
    ]);
    if (cohort) refuseSmallCohort(cohort.name, now.visitors ?? 0, before.visitors ?? 0);
    const kind = isRate(metric) ? "rate" : "count";
    const digits = digitsOf(metric);
    const totalSides = { now: sideOf(metric, now), before: sideOf(metric, before) };
    // under a cohort a rate's count or its rest of 1 to 4 (converted or not, bounced or not) is not told:
    // with `units` beside it, the rate would tell it (rule 5)
    const rateTells = (sd: Side) =>
      cohort !== null && kind === "rate" && (isFew(sd.count) || isFew(sd.units - sd.count));
    // the whole rate would tell them: its change among so few is not explained, as for a small cohort
    const tells = rateTells(totalSides.now)
      ? "in this period"
      : rateTells(totalSides.before)
      ? "in the period before"
      : null;
    if (cohort && tells) {
      throw invalid(
        `under cohort "${cohort.name}", 1 to ${SMALL_GROUP - 1} of the ${UNIT[metric]}s ${tells} ` +
          `${
            metric === "bounce_rate" ? "bounced or did not" : "converted or did not"
          }: the rate would tell so few ` +
          "(small-group rule); ask over a longer period, or without the cohort",
      );
    }
    const totalValue = metricOf(kind, totalSides.now), totalPrev = metricOf(kind, totalSides.before);
    const totalDiff = totalValue === null || totalPrev === null ? null : totalValue - totalPrev;
    const notices: string[] = [];
    const show = (c: Contribution, name: string): Segment => {
      const value = round(c.value, digits), previous = round(c.previous, digits);
      const difference = value === null || previous === null ? null : round(value - previous, digits);
      const mixBig = c.mix !== null && c.rate !== null && Math.abs(c.mix) > Math.abs(c.rate);
      return {
        name,
        value,
        previous,
        difference,
        change: c.value === null || c.previous === null || c.previous === 0
          ? null
          : rate((c.value - c.previous) / c.previous),
        units: { value: c.now.units, previous: c.before.units },
        contribution: round(c.contribution, digits) ?? 0,
        contribution_share: totalDiff ? rate(c.contribution / totalDiff) : null,
        mix: c.mix === null ? null : round(c.mix, digits),
        rate: c.rate === null ? null : round(c.rate, digits),
        effect: kind === "count" ? "volume" : mixBig ? "mix" : "rate",
      };
    };

    const dimensions = dims.map((dimension) => {
      const field = FIELD[dimension];
      const values = new Map<string, { now: Side; before: Side }>();
      // under a cohort: values with 1 to 4 visitors behind their figures in either period
      const few = new Set<string>();
      // under a cohort: the visitors (and for pageviews the viewers) behind each value, by period
      const behind = new Map<string, Record<"now" | "before", number[]>>();
      const add = (rows: AttributionRow[], which: "now" | "before") => {
        for (const row of rows) {
          const name = label(row.value);
          const s = values.get(name) ?? { now: { units: 0, count: 0 }, before: { units: 0, count: 0 } };
          s[which] = sideOf(metric, row);
          values.set(name, s);
          if (cohort && (fewBehind(metric, row) || rateTells(sideOf(metric, row)))) few.add(name);
          const b = behind.get(name) ?? { now: [0, 0], before: [0, 0] };
          b[which] = [row.visitors ?? 0, row.viewers ?? 0];
          behind.set(name, b);
        }
      };
      add(now.by[field] ?? [], "now");
      add(before.by[field] ?? [], "before");
      const names = [...values.keys()];
      const parts = contributions(kind, totalSides, [...values.values()]);
      if (!parts) return { dimension, segments: [] as Segment[], segments_total: names.length };
      // A rate of fewer than 5 units says too much about a few people: such segments are only part of (other).
      // Under a cohort, no value is named for 1 to 4 of its visitors in either period (rule 5).
      const nameable = (c: Contribution, name: string) =>
        (kind === "count" || c.now.units >= SMALL_GROUP || c.before.units >= SMALL_GROUP) && !few.has(name);
      const ranked = parts.map((c, i) => ({ c, name: names[i] })).sort((a, b) =>
        Math.abs(b.c.contribution) - Math.abs(a.c.contribution) || (a.name < b.name ? -1 : 1)
      );
      const shown = ranked.filter((x) => nameable(x.c, x.name)).slice(0, top);
      const rest = ranked.filter((x) => !shown.includes(x));
      // Under a cohort (other) must not itself be a group of 1 to 4: while it is, the least contributing named
      // segment with visitors in that period joins it. When none has any, (other) holds all of that period's
      // units: its figures there are the total's, which is shown anyway.
      for (
        let few;
        cohort && rest.length && (few = fewInOther(metric, rest.map((x) => behind.get(x.name)!)));
      ) {
        const i = shown.findLastIndex((x) => behind.get(x.name)![few.period][few.index] > 0);
        if (i < 0) break;
        rest.push(...shown.splice(i, 1));
      }
      const segments = shown.map((x) => show(x.c, x.name));
      if (rest.length) {
        const sides = sumSides(rest.map((x) => x.c));
        const sum = (k: "contribution" | "mix" | "rate") =>
          kind === "count" && k !== "contribution" ? null : rest.reduce((n, x) => n + (x.c[k] ?? 0), 0);
        segments.push(show({
          ...sides,
          value: metricOf(kind, sides.now),
          previous: metricOf(kind, sides.before),
          contribution: sum("contribution")!,
          mix: sum("mix"),
          rate: sum("rate"),
        }, OTHER));
      }
      return { dimension, segments, segments_total: names.length };
    });
    if (kind === "rate") {
      notices.push(
        `segments with fewer than ${SMALL_GROUP} visitors or sessions in both periods are part of ${OTHER}`,
      );
    }
    if (cohort) {
      notices.push(
        `under a saved cohort, segments with 1 to 4 of its visitors in either period are part of ${OTHER}`,
      );
    }
    if (totalDiff === null) {
      notices.push("a rate needs visitors or sessions in both periods: nothing to explain");
    }

    // a dimension with one value in both periods (every visitor on desktop) carries all of any change and
    // explains none of it: not a driver
    const moved = dimensions.filter((d) => d.segments_total > 1).flatMap((d) =>
      d.segments.filter((s) => s.name !== OTHER && s.contribution !== 0).map((s) => ({
        ...s,
        dimension: d.dimension,
      }))
    ).sort((a, b) =>
      Math.abs(b.contribution) - Math.abs(a.contribution) || DIMENSIONS.indexOf(a.dimension) -
        DIMENSIONS.indexOf(b.dimension)
    );
    const drivers = moved.slice(0, MAX_DRIVERS).map((s) => ({
      ...s,
      finding: describeDriver(metric, s.dimension, s, totalDiff),
    }));

    const total = {
      value: round(totalValue, digits),
      previous: round(totalPrev, digits),
      difference: totalDiff === null ? null : round(totalDiff, digits),
      change: totalValue === null || !totalPrev ? null : rate((totalValue - totalPrev) / totalPrev),
    };
    return {
      scope: r.answerScope,
      metric,
      conversion_event: input.conversion_event ?? null,
      attribution: ATTRIBUTION[metric === "pageviews" ? "pageview" : UNIT[metric]],
      total,
      // the largest part moving with the total, and the largest against it when that one is larger
      // (a flat total: the largest rise and the largest fall, which offset each other)
      summary: totalDiff === 0
        ? summaryLine(
          metric,
          total,
          moved.find((s) => s.contribution > 0) ?? null,
          moved.find((s) => s.contribution < 0) ?? null,
        )
        : summaryLine(
          metric,
          total,
          moved.find((s) => Math.sign(s.contribution) === Math.sign(totalDiff ?? 0)) ?? null,
          moved[0] && Math.sign(moved[0].contribution) !== Math.sign(totalDiff ?? 0) ? moved[0] : null,
        ),
      drivers,
      drivers_total: moved.length,
      dimensions,
      dimensions_total: dimensions.length,
      notices,
    };
  },
});
