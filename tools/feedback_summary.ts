import { z } from "zod";
import { answerSchema, compare, compared, periodInput } from "../lib/answers/schema.ts";
import { summarize } from "../lib/feedback/summary.ts";
import { defineTool } from "../toolkit/tool.ts";
import {
  analysedNotice,
  appInput,
  appOut,
  appSchema,
  NO_APPS,
  pickApps,
  resolveApps,
  reviewScope,
  reviewsIn,
} from "../toolkit/feedback_common.ts";

const share = z.number().nullable();
const output = answerSchema({
  apps: z.array(z.object({
    app: appSchema,
    reviews: compared,
    average_rating: compared,
    rating_distribution: z.object({
      "1": z.number(),
      "2": z.number(),
      "3": z.number(),
      "4": z.number(),
      "5": z.number(),
    }),
    analysed: z.number().describe("reviews in a language the models cover, analysed for sentiment"),
    sentiment: z.object({ positive: z.number(), neutral: z.number(), negative: z.number() }).nullable(),
    negative_share: compared.describe(
      "share of analysed reviews that are negative, against the previous period",
    ),
    versions: z.array(z.object({ version: z.string(), reviews: z.number(), average_rating: z.number() })),
    versions_total: z.number(),
    replies: z.number(),
    reply_share: share,
  })),
  apps_total: z.number(),
});

export default defineTool({
  name: "feedback_summary",
  description:
    "App-store review summary per app: review volume, average rating and its distribution, sentiment shares, " +
    "the negative share against the previous period, ratings by app version (with review counts), replies " +
    "given. Pass `app` (id, name or store id) for one app; omitted, every own app. Followed apps (not the " +
    "organization's own) get counts too. Default period last_28_days.",
  readsReviews: true,
  input: z.object({ app: appInput.optional(), period: periodInput.optional() }).strict(),
  output,
  async run(ctx, input) {
    const period = ctx.period(input.period);
    const apps = pickApps(await resolveApps(ctx), input.app);
    const notices: string[] = apps.length ? [] : [NO_APPS];
    const rows = [];
    for (const a of apps) {
      const cur = summarize(await reviewsIn(ctx, a.app, period.from, period.to));
      const prev = period.previous
        ? summarize(await reviewsIn(ctx, a.app, period.previous.from, period.previous.to))
        : null;
      const n = analysedNotice(cur.reviews, cur.analysed);
      if (n) notices.push(`${a.app.name}: ${n}`);
      rows.push({
        app: appOut(a),
        reviews: compare(cur.reviews, prev?.reviews ?? null),
        average_rating: compare(cur.average_rating, prev?.average_rating ?? null),
        rating_distribution: cur.rating_distribution,
        analysed: cur.analysed,
        sentiment: cur.sentiment,
        negative_share: compare(cur.negative_share, prev?.negative_share ?? null),
        versions: cur.versions,
        versions_total: cur.versions_total,
        replies: cur.replies,
        reply_share: cur.reply_share,
      });
    }
    return {
      scope: reviewScope(ctx, period, apps),
      apps: rows.slice(0, 25),
      apps_total: rows.length,
      notices,
    };
  },
});
