import { z } from "zod";
import { groupApart, groupCount, groupParts, groupSize, notACount } from "../lib/answers/group_counts.ts";
import { answerSchema, cohortInput, periodInput, touchpointInput } from "../lib/answers/schema.ts";
import { isFew, nameableValues } from "../lib/answers/privacy.ts";
import { invalid } from "../lib/errors.ts";
import type { AggregateOptions, EventField } from "../lib/query/api.ts";
import { resolve } from "../toolkit/common.ts";
import { defineTool } from "../toolkit/tool.ts";

const MAX_PROPERTIES = 25;
const VALUE_CHARS = 200;

const value = z.object({
  value: z.string(),
  visitors: groupSize(z.number()),
  events: groupCount("events", z.number()),
});
const output = answerSchema({
  event: z.string(),
  // the properties of one event may hold one another: kept 1 to 4 apart under a cohort (apartByFive)
  properties: groupApart(
    z.array(z.object({
      property: z.string(),
      events: groupCount("events", z.number().nullable()).describe(
        "events of this name that carried the property; null under a saved cohort where it is within 1 to 4 of " +
          "another property's (the difference would tell that many events without one of them)",
      ),
      visitors: groupSize(z.number().nullable()).describe(
        "visitors who sent it; null under a saved cohort where it is within 1 to 4 of another property's",
      ),
      // the values split the property's events (one value an event) and, mostly, its visitors: under a filter the
      // withheld values' rest must not be 1 to 4, so the fold joins named values to an "(other)" where it would be
      values: groupParts(
        (_a, property) => ({ visitors: property.visitors, events: property.events }),
        z.array(value),
        undefined,
        "value",
      ).describe("most common values sent by 5 or more visitors"),
      values_total: notACount(z.number()).describe("distinct values, named or not"),
      values_withheld: notACount(z.number()).describe(
        "values sent by fewer than 5 visitors (under a saved cohort, also those whose counts are within 1 to 4 " +
          "of another property's): counted, never named",
      ),
    })),
    "values",
  ),
  properties_total: z.number(),
});

interface Shown {
  events: number | null;
  visitors: number | null;
  values: { visitors: number; events: number }[];
  values_withheld: number;
}

/**
 * Under a saved cohort, the properties of one event are sets of its visitors (and events) that often hold one
 * another (a coupon sent on some of the purchases that all carry a plan), so two exact figures of different
 * properties 1 to 4 apart would tell that many who sent one without the other. Going down the properties (most
 * visitors first), a property's visitors or events within 1 to 4 of a figure kept for another property are
 * withheld (null), and a value whose visitors or events are is no longer named (it counts as withheld). Figures
 * of 1 to 4 read "fewer than 5" anyway and are not compared; 0 tells of no one.
 */
function apartByFive(properties: Shown[]): void {
  const kept = { visitors: [] as number[], events: [] as number[] };
  const exact = (x: number | null): x is number => x !== null && !isFew(x);
  const near = (k: keyof typeof kept, x: number | null) =>
    exact(x) && kept[k].some((y) => isFew(Math.abs(x - y)));
  for (const p of properties) {
    if (near("visitors", p.visitors)) p.visitors = null;
    if (near("events", p.events)) p.events = null;
    const values = p.values.filter((v) => !near("visitors", v.visitors) && !near("events", v.events));
    p.values_withheld += p.values.length - values.length;
    p.values = values;
    for (const k of ["visitors", "events"] as const) {
      for (const x of [p[k], ...values.map((v) => v[k])]) if (exact(x) && x > 0) kept[k].push(x);
    }
  }
}

export default defineTool({
  name: "behavior_event_properties",
  description: "The properties one event carried in a period (for example plan and amount on purchase) and " +
    "their most common values with visitor and event counts. Values sent by fewer than 5 visitors are counted " +
    "but never named. Pass `event` (see behavior_events for names); pass `property` to see more values of one " +
    "property.",
  input: z.object({
    touchpoint: touchpointInput.optional(),
    cohort: cohortInput.optional(),
    period: periodInput.optional(),
    event: z.string().min(1).max(120).describe("event name, e.g. purchase or $pageview"),
    property: z.string().min(1).max(200).optional().describe(
      "only this property, with up to `values_limit` values",
    ),
    values_limit: z.number().int().min(1).max(25).optional().describe("values per property, default 5"),
  }).strict(),
  output,
  async run(ctx, input) {
    const r = resolve(ctx, { ...input, filters: [{ field: "event_type", op: "eq", value: input.event }] });
    const keys = await r.engine.propertyKeys(r.scope, input.event);
    const chosen = input.property ? keys.filter((k) => k.key === input.property) : keys;
    if (input.property && chosen.length === 0) {
      const known = keys.slice(0, 10).map((k) => `"${k.key}"`).join(", ");
      throw invalid(
        `event "${input.event}" carried no property "${input.property}" in this period` +
          (known ? `; its properties include ${known}` : "; it carried no properties"),
      );
    }
    const shown = chosen.slice(0, MAX_PROPERTIES);
    const asks: AggregateOptions[] = shown.map((k) => ({
      metrics: ["visitors", "events"],
      breakdown: [`prop:${k.key}` as EventField],
    }));
    const results = asks.length ? await r.engine.aggregateMany(r.scope, asks) : [];
    const limit = input.values_limit ?? 5;
    const properties = shown.map((k, i) => {
      const field = `prop:${k.key}`;
      const all = results[i].rows.filter((x) => x.key[field] !== null)
        .map((x) => ({
          value: String(x.key[field]).slice(0, VALUE_CHARS),
          visitors: x.metrics.visitors ?? 0,
          events: x.metrics.events ?? 0,
        }))
        .sort((a, b) => b.visitors - a.visitors || b.events - a.events || a.value.localeCompare(b.value));
      const { named, withheld } = nameableValues(all);
      return {
        property: k.key,
        events: k.events as number | null,
        visitors: k.visitors as number | null,
        values: named.slice(0, limit),
        values_total: all.length,
        values_withheld: withheld,
      };
    });
    if (ctx.cohort !== null) apartByFive(properties);
    return {
      scope: r.answerScope,
      event: input.event,
      properties,
      properties_total: chosen.length,
      notices: [
        "property values sent by fewer than 5 visitors are counted but not named",
      ],
    };
  },
});
