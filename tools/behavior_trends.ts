import { z } from "zod";
import { groupCount, groupParts, groupSize } from "../lib/answers/group_counts.ts";
import {
  answerSchema,
  cohortInput,
  compare,
  type Compared,
  pageInput,
  periodInput,
  touchpointInput,
} from "../lib/answers/schema.ts";
import { FEWER_THAN_5, type GuardedCount, isFew, SMALL_GROUP } from "../lib/answers/privacy.ts";
import { invalid } from "../lib/errors.ts";
import { MAX_SERIES_POINTS } from "../lib/answers/rules.ts";
import { bucketsBetween, type EventField, type Filter } from "../lib/query/api.ts";
import { label, resolve } from "../toolkit/common.ts";
import { defineTool } from "../toolkit/tool.ts";

const INTERVALS = ["hour", "day", "week", "month", "hour_of_day", "day_of_week"] as const;
const SPLITS = ["page", "country", "device", "browser", "source", "channel", "property"] as const;
const SPLIT_FIELD: Record<Exclude<(typeof SPLITS)[number], "property">, EventField> = {
  page: "page",
  country: "country",
  device: "device_type",
  browser: "browser",
  source: "source",
  channel: "channel",
};
const METRICS = ["visitors", "events", "sessions"] as const;
export const MAX_SPLITS = 5;
const HOUR_MAX_DAYS = 14;

const count = z.union([z.number(), z.literal(FEWER_THAN_5)]);
const point = z.object({
  bucket: z.union([z.string(), z.number()]).describe(
    "hour 2026-11-20T13:00 (an hour the autumn clock change repeats comes twice, with its UTC offset: " +
      "2026-10-25T02:00+02:00 then 2026-10-25T02:00+01:00), day 2026-11-20, week (Monday) 2026-11-16, month 2026-11, hour of day 0-23, " +
      "day of week 1-7 (Monday 1)",
  ),
  // null: withheld beside a bucket that reads "fewer than 5" (see withholdBesideFew)
  visitors: groupSize(count.nullable()).optional(),
  events: groupCount("events", count.nullable()).optional(),
  sessions: groupCount("visits", count.nullable()).optional(),
  // a point's figure split by value; left out where it would tell a small group (lib/answers/fold.ts)
  // under a split by an event property, a value's figure of 1 to 4 visitors reads "fewer than 5" and one of 5
  // or more beside it may be withheld (null), so that no line's whole less its figures tells it (guardSplit)
  by: groupParts(
    (a, point) => point[a.metric as string],
    z.record(z.string(), count.nullable()),
    (a) => a.metric === "visitors",
    undefined,
    // a split value folded out of `splits` (1 to 4 visitors) is not named through the points either
    { namedIn: (a) => Array.isArray(a.splits) ? a.splits.map((x) => (x as { name: unknown }).name) : [] },
  ).optional().describe("the same figure per split value"),
});

const output = answerSchema({
  event: z.string(),
  metric: z.enum(METRICS),
  interval: z.enum(INTERVALS),
  split_by: z.string().nullable(),
  total: groupCount(
    "visitors",
    z.object({ value: count.nullable(), previous: count.nullable(), change: z.number().nullable() }),
  )
    .describe("the figure over the whole period against the previous period"),
  series: z.array(point),
  // the period's figure split by value: its whole is `total`
  splits: groupParts(
    (a) => ({ [a.metric as string]: (a.total as { value: unknown }).value }),
    z.array(z.object({
      name: z.string(),
      visitors: groupSize(count),
      events: groupCount("events", count),
      sessions: groupCount("visits", count),
    })),
  ),
  splits_total: z.number(),
  splits_withheld: z.number().describe(
    "property values sent by fewer than 5 visitors, counted but not named",
  ),
});

export default defineTool({
  name: "behavior_trends",
  description:
    "One event (default $pageview) or its audience over time: visitors, events or sessions per hour, " +
    "day, week or month, or by hour of day or day of week, with the period total against the previous period. " +
    "Optionally split by page, country, device, browser, source, channel or an event property (the top 5 " +
    "values), and filter to visitors whose event carried a property value (then any visitor, event or session " +
    "count of a group of 1 to 4 visitors reads 'fewer than 5'). Hourly series cover at most 14 days, daily ones 400.",
  input: z.object({
    touchpoint: touchpointInput.optional(),
    cohort: cohortInput.optional(),
    period: periodInput.optional(),
    event: z.string().min(1).max(120).optional().describe("event name, default $pageview"),
    metric: z.enum(METRICS).optional().describe("default visitors"),
    interval: z.enum(INTERVALS).optional().describe(
      "default day (hour for today and yesterday, week past 400 days)",
    ),
    page: pageInput.optional(),
    split_by: z.enum(SPLITS).optional(),
    property: z.string().min(1).max(200).optional().describe("the event property to split by or filter on"),
    property_value: z.string().max(500).optional().describe("keep only events whose property has this value"),
  }).strict(),
  output,
  async run(ctx, input) {
    const event = input.event ?? "$pageview";
    const metric = input.metric ?? "visitors";
    if (input.split_by === "property" && !input.property) {
      throw invalid("split_by property needs `property`: name the event property to split by");
    }
    if (input.property_value !== undefined && !input.property) {
      throw invalid("property_value needs `property`: name the event property to filter on");
    }
    // a property alone would be ignored: the answer would look filtered or split by it and be neither
    if (input.property && input.split_by !== "property" && input.property_value === undefined) {
      throw invalid(
        'property needs split_by "property" (a line per value) or property_value (only events with that value)',
      );
    }
    const filters: Filter[] = [{ field: "event_type", op: "eq", value: event }];
    const propFiltered = input.property_value !== undefined;
    if (propFiltered) {
      filters.push({ field: `prop:${input.property}`, op: "eq", value: input.property_value! });
    }
    const r = resolve(ctx, {
      ...input,
      filters,
      filterLabel: propFiltered ? `${event}.${input.property} = ${input.property_value}` : null,
    });
    // a filter on a property or a saved cohort: small groups are guarded (rule 5)
    const guarded = propFiltered || ctx.cohort !== null;
    // Local calendar days, not milliseconds: 14 days across the autumn change last 14 days and one hour.
    const days = Math.round((Date.parse(r.period.to_date) - Date.parse(r.period.from_date)) / 86_400_000) + 1;
    const interval = input.interval ??
      (r.period.name === "today" || r.period.name === "yesterday"
        ? "hour"
        : days > MAX_SERIES_POINTS
        ? "week"
        : "day");
    if (interval === "hour" && days > HOUR_MAX_DAYS) {
      throw invalid(
        `hourly series cover at most ${HOUR_MAX_DAYS} days; use interval day or a shorter period`,
      );
    }
    // an answer's series holds at most MAX_SERIES_POINTS points (lib/answers/rules.ts): a longer daily one
    // would lose its most recent days without a word
    if (interval === "day" && days > MAX_SERIES_POINTS) {
      throw invalid(
        `daily series cover at most ${MAX_SERIES_POINTS} days; use interval week or month, or a shorter period`,
      );
    }
    const field = input.split_by === "property"
      ? `prop:${input.property}` as EventField
      : input.split_by
      ? SPLIT_FIELD[input.split_by]
      : null;
    const metrics = ["visitors", "events", "sessions"] as const;
    // Under a property filter every count needs its visitors beside it, to tell a small group (rule 5).
    const asked: ("visitors" | "events" | "sessions")[] = metric === "visitors"
      ? ["visitors"]
      : [metric, "visitors"];
    const [whole, prevWhole, series] = await Promise.all([
      r.engine.aggregate(r.scope, { metrics: [...metrics], ...(field ? { breakdown: [field] } : {}) }),
      r.previous ? r.engine.aggregate(r.previous, { metrics: asked }) : Promise.resolve(null),
      r.engine.aggregate(r.scope, {
        metrics: asked,
        bucket: interval,
        ...(field ? { breakdown: [field] } : {}),
      }),
    ]);
    /** A count of a group of `visitors`: 1 to 4 visitors under a property filter read "fewer than 5". */
    const show = (value: number, visitors: number): GuardedCount =>
      guarded && isFew(visitors) ? FEWER_THAN_5 : value;
    const guardedTotal = (c: Compared, visNow: number | null, visBefore: number | null) => {
      const small = (v: number | null) => guarded && isFew(v);
      return {
        value: c.value === null ? null : show(c.value, visNow ?? 0),
        previous: c.previous === null ? null : show(c.previous, visBefore ?? 0),
        change: small(visNow) || small(visBefore) ? null : c.change,
      };
    };

    // Split values: the top 5 by visitors; property values need 5 visitors to be named. Events without the
    // property (the null row) are no value at all: neither named, nor withheld, nor in the total.
    let splitRows = field ? whole.rows : [];
    let splitsTotal = field ? whole.total_rows : 0;
    let withheld = 0;
    if (field && input.split_by === "property") {
      const valued = splitRows.filter((x) => x.key[field] !== null && x.key[field] !== undefined);
      splitsTotal -= splitRows.length - valued.length;
      const named = valued.filter((x) => (x.metrics.visitors ?? 0) >= SMALL_GROUP);
      withheld = valued.length - named.length;
      splitRows = named;
    }
    const top = splitRows.slice(0, MAX_SPLITS);
    const topNames = new Set(top.map((x) => label(x.key[field!])));

    interface Cell {
      value: number;
      visitors: number;
    }
    const empty = (): Cell => ({ value: 0, visitors: 0 });
    const cell = (m: Partial<Record<string, number | null>>): Cell => ({
      value: m[metric] ?? 0,
      visitors: m.visitors ?? 0,
    });
    const points = new Map<string, { bucket: string | number; total: Cell; by: Record<string, Cell> }>();
    for (const b of bucketsBetween(r.period.from, r.period.to, interval, ctx.org.timezone)) {
      points.set(String(b.label), { bucket: b.label, total: empty(), by: {} });
    }
    if (!field) {
      for (const row of series.rows) {
        const p = points.get(String(row.key.bucket));
        if (p) p.total = cell(row.metrics);
      }
    } else {
      // With a split, the bucket total of visitors or sessions comes from an unsplit query (not additive).
      const unsplit = await r.engine.aggregate(r.scope, { metrics: asked, bucket: interval });
      for (const row of unsplit.rows) {
        const p = points.get(String(row.key.bucket));
        if (p) p.total = cell(row.metrics);
      }
      for (const row of series.rows) {
        const name = label(row.key[field]);
        const p = points.get(String(row.key.bucket));
        if (p && topNames.has(name)) p.by[name] = cell(row.metrics);
      }
    }
    // An autumn repeated hour is two points: the engine labels them with their UTC offsets.
    const pointList = [...points.values()];
    const totalNow = whole.totals[metric] ?? 0;
    const total = guardedTotal(
      compare(totalNow, prevWhole ? prevWhole.totals[metric] ?? 0 : null),
      whole.totals.visitors ?? 0,
      prevWhole ? prevWhole.totals.visitors ?? 0 : null,
    );
    const shown: (GuardedCount | null)[] = pointList.map((p) => show(p.total.value, p.total.visitors));
    const notices = propFiltered
      ? ['filtered on an event property: counts of groups of 1 to 4 visitors read "fewer than 5"']
      : guarded
      ? ['under a saved cohort: counts of groups of 1 to 4 visitors read "fewer than 5"']
      : [];
    if (guarded) {
      const said = withholdBesideFew(shown, total);
      if (said) notices.push(said);
    }
    // A split by an event property's value is guarded per point as a filter on that value is (rule 5).
    const names = [...topNames];
    let byShown: (GuardedCount | null)[][] | null = null;
    if (field) {
      const cells = pointList.map((p) => names.map((n) => p.by[n] ?? empty()));
      if (input.split_by === "property") {
        byShown = guardSplit(
          cells,
          pointList.map((p) => p.total.value),
          top.map((x) => x.metrics[metric] ?? 0),
        );
        if (byShown === null) notices.push(SPLIT_LEFT_OUT);
        else if (byShown.some((row) => row.includes(FEWER_THAN_5))) notices.push(SPLIT_GUARDED);
      } else byShown = cells.map((row) => row.map((c) => show(c.value, c.visitors)));
    }
    return {
      scope: r.answerScope,
      event,
      metric,
      interval,
      split_by: input.split_by ?? null,
      total,
      series: pointList.map((p, i) => ({
        bucket: p.bucket,
        [metric]: shown[i],
        ...(byShown ? { by: Object.fromEntries(names.map((n, j) => [n, byShown![i][j]])) } : {}),
      })),
      splits: top.map((x) => {
        const visitors = x.metrics.visitors ?? 0;
        return {
          name: label(x.key[field!]),
          visitors: show(visitors, visitors),
          events: show(x.metrics.events ?? 0, visitors),
          sessions: show(x.metrics.sessions ?? 0, visitors),
        };
      }),
      splits_total: splitsTotal,
      splits_withheld: withheld,
      notices,
    };
  },
});

/**
 * Rule 5 across a series (under a cohort or a property filter): a bucket of 1 to 4 visitors reads "fewer than
 * 5", but the buckets add up to the total (events and sessions always; visitors wherever no visitor spans two
 * buckets, as in most hours), so the total less the other buckets would tell it. Where one reads so, the
 * smallest bucket of 5 or more is withheld beside it (null), as a page's entries are; with none to withhold,
 * the total's value is. Returns the notice that says what was withheld, if anything was.
 */
function withholdBesideFew(
  shown: (GuardedCount | null)[],
  total: { value: GuardedCount | null; change: number | null },
): string | null {
  if (typeof total.value !== "number" || !shown.includes(FEWER_THAN_5)) return null;
  let smallest = -1;
  shown.forEach((v, i) => {
    if (typeof v === "number" && v >= SMALL_GROUP && (smallest < 0 || v < (shown[smallest] as number))) {
      smallest = i;
    }
  });
  if (smallest >= 0) {
    shown[smallest] = null;
    return 'a point of 5 or more is withheld (null) beside one that reads "fewer than 5", so that the total ' +
      "less the points shown does not tell it";
  }
  total.value = null;
  total.change = null;
  return 'the period total is withheld: every point with any reads "fewer than 5", and the total would tell ' +
    "what they hold together";
}

const SPLIT_GUARDED =
  "split by an event property: a value's figure of 1 to 4 visitors in a point reads \"fewer " +
  "than 5\", and where needed one of 5 or more beside it is withheld (null), so that no point's total or " +
  "value's figure less the figures shown tells it";
const SPLIT_LEFT_OUT =
  "the split per point is left out: its values' figures of 1 to 4 visitors could not be " +
  "kept from being told by the totals beside them; the values' figures over the period are in splits";

/**
 * Rule 5 across a split by an event property's value: a table of points (rows of `cells`, one figure per named
 * value) whose lines have wholes the answer shows (each point's total; each value's figure over the period in
 * `splits`). A cell of 1 to 4 visitors reads "fewer than 5"; a line holding one must also hide 5 or more of its
 * whole in another way (a cell withheld, or, in a point, values not named and events without the property),
 * else its whole less the figures shown would tell it; a line holding a withheld cell must hide something
 * else too, else its whole less the others would tell the withheld one. The line's smallest cell of 5 or more
 * is withheld (null) until every line is covered. null when a line has none left to withhold: the split per
 * point is then left out.
 */
function guardSplit(
  cells: { value: number; visitors: number }[][],
  pointTotals: number[],
  valueTotals: number[],
): (GuardedCount | null)[][] | null {
  const shown: (GuardedCount | null)[][] = cells.map((row) =>
    row.map((c) => isFew(c.visitors) ? FEWER_THAN_5 : c.value)
  );
  const lines: { at: [number, number][]; whole: number }[] = [
    ...cells.map((row, i) => ({ at: row.map((_, j) => [i, j] as [number, number]), whole: pointTotals[i] })),
    ...valueTotals.map((whole, j) => ({ at: cells.map((_, i) => [i, j] as [number, number]), whole })),
  ];
  /** Whether a line's whole less its figures shown would tell a cell it hides. */
  const tells = (line: (typeof lines)[number]) => {
    const hid = line.at.filter(([i, j]) => typeof shown[i][j] !== "number");
    if (!hid.length) return false;
    // what no cell holds: values not named and events without the property (a point); visitors on two days
    const rest = Math.max(0, line.whole - line.at.reduce((n, [i, j]) => n + cells[i][j].value, 0));
    if (hid.some(([i, j]) => shown[i][j] === FEWER_THAN_5)) {
      return rest < SMALL_GROUP &&
        !hid.some(([i, j]) => shown[i][j] === null && cells[i][j].value >= SMALL_GROUP);
    }
    return hid.length + (rest > 0 ? 1 : 0) < 2;
  };
  for (let changed = true; changed;) {
    changed = false;
    for (const line of lines) {
      if (!tells(line)) continue;
      let pick: [number, number] | null = null;
      for (const [i, j] of line.at) {
        const v = shown[i][j];
        if (typeof v === "number" && v >= SMALL_GROUP && (!pick || v < (shown[pick[0]][pick[1]] as number))) {
          pick = [i, j];
        }
      }
      if (!pick) return null;
      shown[pick[0]][pick[1]] = null;
      changed = true;
    }
  }
  return shown;
}
