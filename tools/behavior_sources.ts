import { z } from "zod";
import { groupCount, groupParts, groupRate, groupSize } from "../lib/answers/group_counts.ts";
import {
  answerSchema,
  cohortInput,
  compare,
  compared,
  periodInput,
  touchpointInput,
} from "../lib/answers/schema.ts";
import type { AggregateOptions, AggregateResult, EventField, Metric } from "../lib/query/api.ts";
import { label, rate, resolve } from "../toolkit/common.ts";
import { defineTool } from "../toolkit/tool.ts";

const row = z.object({
  name: z.string(),
  visitors: groupSize(z.number()),
  sessions: groupCount("visits", z.number()),
  previous_visitors: groupCount("visitors", z.number().nullable()),
  // visitors less conversions would tell 1 to 4 who did not convert: withheld then, with the rate
  conversions: groupCount("visitors", z.number().nullable(), { partOf: "visitors" }).describe(
    "visitors who sent the conversion event (when one is given); null under a saved cohort where 1 to 4 did not",
  ),
  conversion_rate: groupRate(["conversions"], z.number().nullable()).describe("conversions / visitors, 0-1"),
});

const AI_CHANNEL = "AI Assistant";

/**
 * A row of a list whose groups lie inside channels (a source, campaign or referring site): the channels its
 * visitors came through. Under a filter a channel's visitors less the rows named inside it must not tell 1 to
 * 4 (lib/answers/fold_nested.ts), and a channel not named in `channels` reads "(other)" here too.
 */
const inChannels = row.extend({
  channels: z.array(z.string()).nullable().describe(
    'the channels its visitors came through (null for "(other)")',
  ),
});
const withinChannels = {
  list: "channels",
  of: (x: Record<string, unknown>) => (Array.isArray(x.channels) ? x.channels.map(String) : []),
  field: "channels",
};

/**
 * A list of visitors split one way each (a channel, source, campaign or referring site per visitor), with its
 * whole in the field named: the period's visitors for channels and sources; for campaigns and referring sites,
 * which leave out visitors without one, the list's own rows summed (the visitors less Direct is that whole
 * where no visitor carries UTM tags).
 */
const splitOf = (whole: string) =>
  groupParts(
    (a) => {
      const v = a[whole] as { value: unknown; previous: unknown };
      return { visitors: v.value, previous_visitors: v.previous };
    },
    z.array(inChannels),
    undefined,
    undefined,
    { within: withinChannels },
  );

const output = answerSchema({
  conversion_event: z.string().nullable(),
  visitors: groupSize(compared).describe("visitors in the period: the whole that channels and sources split"),
  channels: groupParts((a) => {
    const v = a.visitors as { value: unknown; previous: unknown };
    return { visitors: v.value, previous_visitors: v.previous };
  }, z.array(row)),
  channels_total: z.number(),
  // the AI Assistant channel split by source: its whole is that channel's row
  ai_answer_engines: groupParts(
    (a) => (a.channels as Record<string, unknown>[]).find((x) => x.name === AI_CHANNEL) ?? null,
    z.array(row),
  ).describe("sources of the AI Assistant channel (ChatGPT, Perplexity, ...)"),
  ai_answer_engines_total: z.number(),
  campaign_visitors: groupSize(compared).describe("visitors with a campaign: every campaign row summed"),
  campaigns: splitOf("campaign_visitors").describe("utm_campaign values"),
  campaigns_total: z.number(),
  referred_visitors: groupSize(compared).describe("visitors with a referring site: every row summed"),
  referring_sites: splitOf("referred_visitors"),
  referring_sites_total: z.number(),
  sources: splitOf("visitors").describe(
    "every source: search engines, social networks, AI engines, sites, utm_source",
  ),
  sources_total: z.number(),
});

/** The fields whose rows are asked by channel too, to tell the channels each row came through. */
const CHANNEL_OF: EventField[] = ["referrer_host", "utm_campaign"];

/** Each list and the breakdown it comes from; AI answer engines are the sources of the AI Assistant channel. */
const SECTIONS: {
  name: string;
  breakdown: EventField[];
  field: EventField;
  only?: [EventField, string];
  /** the field showing the list's rows summed (its whole, shown by no other figure) */
  whole?: string;
}[] = [
  { name: "channels", breakdown: ["channel"], field: "channel" },
  {
    name: "ai_answer_engines",
    breakdown: ["channel", "source"],
    field: "source",
    only: ["channel", AI_CHANNEL],
  },
  { name: "campaigns", breakdown: ["utm_campaign"], field: "utm_campaign", whole: "campaign_visitors" },
  {
    name: "referring_sites",
    breakdown: ["referrer_host"],
    field: "referrer_host",
    whole: "referred_visitors",
  },
  { name: "sources", breakdown: ["source"], field: "source" },
];

export default defineTool({
  name: "behavior_sources",
  description:
    "Where visitors of a website or app came from in a period: channels (Direct, Organic Search, " +
    "AI Assistant, ...), AI answer engines, campaigns, referring sites and sources, each with visitors and " +
    "sessions against the previous period. Give `conversion_event` (e.g. sign_up) to see which sources " +
    "convert: conversions and conversion rate per row. Lists hold up to `limit` rows (default 10) with totals.",
  input: z.object({
    touchpoint: touchpointInput.optional(),
    cohort: cohortInput.optional(),
    period: periodInput.optional(),
    conversion_event: z.string().min(1).max(120).optional(),
    limit: z.number().int().min(1).max(25).optional(),
  }).strict(),
  output,
  async run(ctx, input) {
    const r = resolve(ctx, input);
    const limit = input.limit ?? 10;
    const goal = input.conversion_event ? { event_type: input.conversion_event } : undefined;
    const metrics: Metric[] = goal
      ? ["visitors", "sessions", "conversions", "conversion_rate"]
      : ["visitors", "sessions"];
    // the lists, then the period's visitors: the whole of channels and sources (as behavior_overview shows it)
    const ask = (withGoal: boolean): AggregateOptions[] => [
      ...SECTIONS.map((sec) => ({
        metrics: withGoal ? metrics : ["visitors" as const],
        breakdown: sec.breakdown,
        ...(withGoal && goal ? { goal } : {}),
      })),
      { metrics: ["visitors"] },
      // which channels each referring site and campaign came through (sources: the AI engines' breakdown)
      ...CHANNEL_OF.map((f) => ({ metrics: ["visitors" as const], breakdown: ["channel" as const, f] })),
    ];
    const [cur, prev] = await Promise.all([
      r.engine.aggregateMany(r.scope, ask(true)),
      r.previous ? r.engine.aggregateMany(r.previous, ask(false)) : Promise.resolve(null),
    ]);
    // the channels of each source, referring site and campaign, in either period
    const channelsOf = new Map<EventField, Map<string, Set<string>>>();
    const tables: [EventField, AggregateResult | undefined, AggregateResult | undefined][] = [
      ["source", cur[1], prev?.[1]],
      ...CHANNEL_OF.map((f, i): [EventField, AggregateResult, AggregateResult | undefined] => [
        f,
        cur[SECTIONS.length + 1 + i],
        prev?.[SECTIONS.length + 1 + i],
      ]),
    ];
    for (const [f, ...results] of tables) {
      const m = new Map<string, Set<string>>();
      for (const res of results) {
        for (const x of res?.rows ?? []) {
          const k = String(x.key[f]), c = String(x.key.channel);
          if ((x.metrics.visitors ?? 0) > 0) m.set(k, (m.get(k) ?? new Set()).add(c));
        }
      }
      channelsOf.set(f, m);
    }
    const keyOf = (x: { key: Record<string, unknown> }, sec: (typeof SECTIONS)[number]) =>
      sec.breakdown.map((f) => String(x.key[f])).join("|");
    const out: Record<string, unknown> = {};
    SECTIONS.forEach((sec, i) => {
      const keep = (x: AggregateResult["rows"][number]) =>
        x.key[sec.field] !== null && x.key[sec.field] !== "" &&
        (!sec.only || x.key[sec.only[0]] === sec.only[1]);
      const rows = cur[i].rows.filter(keep);
      const before = prev ? new Map(prev[i].rows.map((x) => [keyOf(x, sec), x])) : null;
      out[sec.name] = rows.slice(0, limit).map((x) => {
        return {
          name: label(x.key[sec.field]),
          visitors: x.metrics.visitors ?? 0,
          sessions: x.metrics.sessions ?? 0,
          previous_visitors: before ? before.get(keyOf(x, sec))?.metrics.visitors ?? 0 : null,
          conversions: goal ? x.metrics.conversions ?? 0 : null,
          conversion_rate: goal ? rate(x.metrics.conversion_rate) : null,
          ...(sec.name === "channels" || sec.name === "ai_answer_engines" ? {} : {
            channels: [...(channelsOf.get(sec.field)?.get(String(x.key[sec.field])) ?? [])].sort(),
          }),
        };
      });
      out[`${sec.name}_total`] = rows.length;
      if (sec.whole) {
        const sum = (xs: AggregateResult["rows"]) => xs.reduce((n, x) => n + (x.metrics.visitors ?? 0), 0);
        out[sec.whole] = compare(sum(rows), prev ? sum(prev[i].rows.filter(keep)) : null);
      }
    });
    return {
      scope: r.answerScope,
      conversion_event: input.conversion_event ?? null,
      visitors: compare(
        cur[SECTIONS.length].totals.visitors ?? 0,
        prev ? prev[SECTIONS.length].totals.visitors ?? 0 : null,
      ),
      ...(out as Omit<z.infer<typeof output>, "scope" | "notices" | "conversion_event" | "visitors">),
      notices: [],
    };
  },
});
