import { z } from "zod";
import {
  answerSchema,
  compare,
  type Compared,
  pageInput,
  periodInput,
  touchpointInput,
} from "../lib/answers/schema.ts";
import { FEWER_THAN_5, guardedVisitors, SMALL_GROUP } from "../lib/answers/privacy.ts";
import { invalid } from "../lib/errors.ts";
import { bucketsBetween, type EventField, type Filter } from "../lib/query/api.ts";
import { label, resolve } from "./common.ts";
import { defineTool } from "./types.ts";

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
    "hour 2026-11-20T13:00, day 2026-11-20, week (Monday) 2026-11-16, month 2026-11, hour of day 0-23, " +
      "day of week 1-7 (Monday 1)",
  ),
  visitors: count.optional(),
  events: z.number().optional(),
  sessions: z.number().optional(),
  by: z.record(z.string(), count).optional().describe("the same figure per split value"),
});

const output = answerSchema({
  event: z.string(),
  metric: z.enum(METRICS),
  interval: z.enum(INTERVALS),
  split_by: z.string().nullable(),
  total: z.object({ value: count.nullable(), previous: count.nullable(), change: z.number().nullable() })
    .describe("the figure over the whole period against the previous period"),
  series: z.array(point),
  splits: z.array(z.object({ name: z.string(), visitors: count, events: z.number(), sessions: z.number() })),
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
    "values), and filter to visitors whose event carried a property value (then groups under 5 visitors read " +
    "'fewer than 5'). Hourly series cover at most 14 days.",
  input: z.object({
    touchpoint: touchpointInput.optional(),
    period: periodInput.optional(),
    event: z.string().min(1).max(120).optional().describe("event name, default $pageview"),
    metric: z.enum(METRICS).optional().describe("default visitors"),
    interval: z.enum(INTERVALS).optional().describe("default day (hour for today and yesterday)"),
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
    const interval = input.interval ??
      (r.period.name === "today" || r.period.name === "yesterday" ? "hour" : "day");
    if (interval === "hour" && r.period.to - r.period.from > HOUR_MAX_DAYS * 86_400_000 + 1) {
      throw invalid(
        `hourly series cover at most ${HOUR_MAX_DAYS} days; use interval day or a shorter period`,
      );
    }
    const field = input.split_by === "property"
      ? `prop:${input.property}` as EventField
      : input.split_by
      ? SPLIT_FIELD[input.split_by]
      : null;
    const metrics = ["visitors", "events", "sessions"] as const;
    const [whole, prevWhole, series] = await Promise.all([
      r.engine.aggregate(r.scope, { metrics: [...metrics], ...(field ? { breakdown: [field] } : {}) }),
      r.previous ? r.engine.aggregate(r.previous, { metrics: [metric] }) : Promise.resolve(null),
      r.engine.aggregate(r.scope, {
        metrics: [metric],
        bucket: interval,
        ...(field ? { breakdown: [field] } : {}),
      }),
    ]);
    const show = (v: number) => metric === "visitors" ? guardedVisitors(v, propFiltered) : v;
    const guardedTotal = (c: Compared) => {
      if (metric !== "visitors" || !propFiltered) return c;
      const small = (v: number | null) => v !== null && v > 0 && v < SMALL_GROUP;
      return {
        value: c.value === null ? null : show(c.value),
        previous: c.previous === null ? null : show(c.previous),
        change: small(c.value) || small(c.previous) ? null : c.change,
      };
    };

    // Split values: the top 5 by visitors; property values need 5 visitors to be named.
    let splitRows = field ? whole.rows : [];
    let withheld = 0;
    if (field && input.split_by === "property") {
      const named = splitRows.filter((x) =>
        (x.metrics.visitors ?? 0) >= SMALL_GROUP && x.key[field] !== null
      );
      withheld = splitRows.length - named.length;
      splitRows = named;
    }
    const top = splitRows.slice(0, MAX_SPLITS);
    const topNames = new Set(top.map((x) => label(x.key[field!])));

    const points = new Map<string, { bucket: string | number; total: number; by: Record<string, number> }>();
    for (const b of bucketsBetween(r.period.from, r.period.to, interval, ctx.org.timezone)) {
      points.set(String(b.label), { bucket: b.label, total: 0, by: {} });
    }
    if (!field) {
      for (const row of series.rows) {
        const p = points.get(String(row.key.bucket));
        if (p) p.total = row.metrics[metric] ?? 0;
      }
    } else {
      // With a split, the bucket total of visitors or sessions comes from an unsplit query (not additive).
      const unsplit = await r.engine.aggregate(r.scope, { metrics: [metric], bucket: interval });
      for (const row of unsplit.rows) {
        const p = points.get(String(row.key.bucket));
        if (p) p.total = row.metrics[metric] ?? 0;
      }
      for (const row of series.rows) {
        const name = label(row.key[field]);
        const p = points.get(String(row.key.bucket));
        if (p && topNames.has(name)) p.by[name] = row.metrics[metric] ?? 0;
      }
    }
    const totalNow = whole.totals[metric] ?? 0;
    return {
      scope: r.answerScope,
      event,
      metric,
      interval,
      split_by: input.split_by ?? null,
      total: guardedTotal(compare(totalNow, prevWhole ? prevWhole.totals[metric] ?? 0 : null)),
      series: [...points.values()].map((p) => ({
        bucket: p.bucket,
        [metric]: show(p.total),
        ...(field ? { by: Object.fromEntries([...topNames].map((n) => [n, show(p.by[n] ?? 0)])) } : {}),
      })),
      splits: top.map((x) => ({
        name: label(x.key[field!]),
        visitors: guardedVisitors(x.metrics.visitors ?? 0, propFiltered),
        events: x.metrics.events ?? 0,
        sessions: x.metrics.sessions ?? 0,
      })),
      splits_total: field ? whole.total_rows : 0,
      splits_withheld: withheld,
      notices: propFiltered
        ? ['filtered on an event property: groups of 1 to 4 visitors read "fewer than 5"']
        : [],
    };
  },
});
