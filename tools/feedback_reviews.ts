import { z } from "zod";
import { invalid } from "../lib/errors.ts";
import { answerSchema, limitInput, periodInput } from "../lib/answers/schema.ts";
import { maskText } from "../lib/answers/privacy.ts";
import { themeReport } from "../lib/feedback/themes/aggregate.ts";
import { TOPIC_LABELS } from "../lib/feedback/themes/taxonomy.ts";
import type { StoredReview } from "../lib/feedback/types.ts";
import { INTENTS } from "../lib/feedback/types.ts";
import { defineTool } from "../toolkit/tool.ts";
import {
  appInput,
  appOut,
  appSchema,
  knownThemes,
  NO_APPS,
  pickApps,
  resolveApps,
  resolveTheme,
  reviewScope,
  reviewsIn,
} from "../toolkit/feedback_common.ts";

const output = answerSchema({
  app: appSchema.nullable(),
  reviews: z.array(z.object({
    date: z.string(),
    rating: z.number(),
    title: z.string().nullable(),
    text: z.string(),
    language: z.string().nullable(),
    country: z.string().nullable(),
    version: z.string().nullable(),
    sentiment: z.string().nullable(),
    intent: z.string().nullable(),
    themes: z.array(z.object({ id: z.string(), label: z.string() })).describe(
      "the review's themes as feedback_themes names them: taxonomy topics, then the period's emergent themes " +
        "it belongs to; either id or label is a `theme` filter",
    ),
    reply: z.string().nullable(),
  })),
  reviews_total: z.number().describe("reviews matching the filters"),
});

export default defineTool({
  name: "feedback_reviews",
  description:
    "Individual app-store reviews of one of the organization's own apps, newest first, at most 25, on " +
    "request only. Filters: rating (1-5), theme (id or label, see feedback_themes), intent (bug_report, " +
    "feature_request, praise, question, price_complaint, other), version, language (e.g. en), search (words " +
    "in title or text). Never the author; emails and phone numbers masked. Followed apps (not own) are " +
    "refused: use feedback_themes for their themes and counts.",
  // reviews are stored masked (lib/feedback/store.ts): a search for "[email]" finds those that held an address
  storedMasked: true,
  readsReviews: true,
  input: z.object({
    app: appInput.optional(),
    period: periodInput.optional(),
    rating: z.number().int().min(1).max(5).optional(),
    theme: z.string().max(100).optional(),
    intent: z.enum(INTENTS as [string, ...string[]]).optional(),
    version: z.string().max(50).optional(),
    language: z.string().min(2).max(10).optional(),
    search: z.string().min(1).max(200).optional(),
    limit: limitInput.optional(),
  }).strict(),
  output,
  async run(ctx, input) {
    const period = ctx.period(input.period);
    const all = await resolveApps(ctx);
    if (!all.length) {
      if (input.app) pickApps(all, input.app); // a 422 naming the app asked for
      if (input.theme) resolveTheme(input.theme, knownThemes([])); // as feedback_themes: unknown is a 422
      return {
        scope: reviewScope(ctx, period, []),
        app: null,
        reviews: [],
        reviews_total: 0,
        notices: [NO_APPS],
      };
    }
    const own = all.filter((a) => a.own);
    const [a] = input.app ? pickApps(all, input.app) : own.length === 1 ? own : pickApps(all, undefined);
    if (!a.own) {
      throw invalid(
        `app: "${a.app.name}" is not the organization's own app (${a.ownership}); answer rule 3 gives only ` +
          "themes and counts for it, never review text: ask feedback_themes or feedback_summary instead",
      );
    }
    if (!input.app && own.length > 1) {
      throw invalid(`app: name one of the own apps: ${own.map((o) => `"${o.app.name}"`).join(", ")}`);
    }
    const inPeriod = await reviewsIn(ctx, a.app, period.from, period.to);
    // the period's themes as feedback_themes lists them (emergent ones are the period's own): any id or label
    // it gives is a filter here, and an unknown one the same 422
    const report = themeReport(inPeriod, []);
    const theme = input.theme ? resolveTheme(input.theme, knownThemes([report])) : null;
    const members = theme?.kind === "emergent"
      ? new Set(report.themes.find((t) => t.id === theme.id)!.members)
      : null;
    // each review's emergent themes, so a review quoted as an emergent theme's example says it is of that theme
    const emergentOf = new Map<StoredReview, { id: string; label: string }[]>();
    for (const t of report.themes) {
      if (t.kind !== "emergent") continue;
      for (const r of t.members) {
        const list = emergentOf.get(r) ?? [];
        emergentOf.set(r, [...list, { id: t.id, label: t.label }]);
      }
    }
    const q = input.search?.toLowerCase();
    const matching = inPeriod.filter((r) =>
      (input.rating === undefined || r.rating === input.rating) &&
      (!theme || (members ? members.has(r) : r.analysis.topics.includes(theme.id))) &&
      (!input.intent || r.analysis.intent === input.intent) &&
      (!input.version || r.version === input.version) &&
      (!input.language || r.analysis.language === input.language.toLowerCase()) &&
      (!q || `${r.title ?? ""} ${r.text}`.toLowerCase().includes(q))
    ).sort((x, y) => y.created_at - x.created_at);
    const allowed = await ctx.takeItems(Math.min(input.limit ?? 25, matching.length));
    const notices: string[] = [];
    if (allowed < Math.min(input.limit ?? 25, matching.length)) {
      notices.push("this month's individual items are used: fewer reviews shown than asked");
    }
    return {
      scope: reviewScope(ctx, period, [a]),
      app: appOut(a),
      reviews: matching.slice(0, allowed).map((r) => ({
        date: new Date(r.created_at).toISOString(),
        rating: r.rating,
        title: r.title ? maskText(r.title) : null,
        text: maskText(r.text),
        language: r.analysis.language,
        country: r.country,
        version: r.version,
        sentiment: r.analysis.sentiment,
        intent: r.analysis.intent,
        themes: [
          ...r.analysis.topics.map((id) => ({ id, label: TOPIC_LABELS[id] ?? id })),
          ...(emergentOf.get(r) ?? []),
        ],
        reply: r.reply ? maskText(r.reply.text) : null,
      })),
      reviews_total: matching.length,
      notices,
    };
  },
});
