import { z } from "zod";
import { groupCount, groupSize, notACount } from "../lib/answers/group_counts.ts";
import {
  answerSchema,
  cohortInput,
  limitInput,
  offsetInput,
  periodInput,
  touchpointInput,
} from "../lib/answers/schema.ts";
import type { Filter } from "../lib/query/api.ts";
import { byKey, label, resolve } from "../toolkit/common.ts";
import { defineTool } from "../toolkit/tool.ts";

/** Events the web SDK sends by itself; everything else is a custom event the site tracks. */
export const AUTOMATIC_EVENTS = new Set([
  "$pageview",
  "$pageleave",
  "$autocapture",
  "$web_vitals",
  "$identify",
]);

const output = answerSchema({
  search: z.string().nullable(),
  offset: z.number(),
  events: z.array(z.object({
    name: z.string(),
    kind: z.enum(["automatic", "custom"]),
    events: groupCount("events", z.number()),
    visitors: groupSize(z.number()),
    previous_visitors: groupCount("visitors", z.number().nullable()).describe(
      "visitors who sent it in the previous period",
    ),
    // its own group is the previous period's visitors of the name: of 1 to 4 it reads "fewer than 5"
    previous_events: groupCount("events", z.number().nullable(), { sizeOf: "previous_visitors" }),
  })),
  events_total: notACount(z.number()).describe("event names recorded in the period (matching the search)"),
});

export default defineTool({
  name: "behavior_events",
  description:
    "The events recorded on a website or app in a period, with how often each happened, how many " +
    "visitors sent it and the count in the previous period; automatic events ($pageview, $autocapture, ...) " +
    "and the site's custom events (sign_up, purchase, ...). Search by part of the name; page with offset. " +
    "Use it to find the exact event name before calling behavior_trends or behavior_event_properties.",
  input: z.object({
    touchpoint: touchpointInput.optional(),
    cohort: cohortInput.optional(),
    period: periodInput.optional(),
    search: z.string().min(1).max(120).optional().describe("part of the event name, case-insensitive"),
    custom_only: z.boolean().optional().describe("leave out the SDK's automatic events"),
    limit: limitInput.optional(),
    offset: offsetInput.optional(),
  }).strict(),
  output,
  async run(ctx, input) {
    const filters: Filter[] = [];
    if (input.search) filters.push({ field: "event_type", op: "contains", value: input.search });
    const r = resolve(ctx, { ...input, filters });
    const offset = input.offset ?? 0;
    const limit = input.limit ?? 25;
    const [cur, prev] = await Promise.all([
      r.engine.aggregate(r.scope, { metrics: ["events", "visitors"], breakdown: ["event_type"] }),
      r.previous
        ? r.engine.aggregate(r.previous, { metrics: ["events", "visitors"], breakdown: ["event_type"] })
        : Promise.resolve(null),
    ]);
    const before = prev ? byKey(prev.rows, "event_type") : null;
    const rows = cur.rows.filter((x) =>
      !input.custom_only || !AUTOMATIC_EVENTS.has(String(x.key.event_type))
    );
    const events = rows.slice(offset, offset + limit).map((x) => {
      const name = label(x.key.event_type);
      return {
        name,
        kind: AUTOMATIC_EVENTS.has(name) ? "automatic" as const : "custom" as const,
        events: x.metrics.events ?? 0,
        visitors: x.metrics.visitors ?? 0,
        previous_visitors: before ? before.get(name)?.metrics.visitors ?? 0 : null,
        previous_events: before ? before.get(name)?.metrics.events ?? 0 : null,
      };
    });
    return {
      scope: r.answerScope,
      search: input.search ?? null,
      offset,
      events,
      events_total: rows.length,
      notices: [],
    };
  },
});
