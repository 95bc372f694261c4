import { z } from "zod";
import { answerSchema, periodInput } from "../lib/answers/schema.ts";
import { MIN_RISING_REVIEWS, themeReport } from "../lib/feedback/themes/aggregate.ts";
import { TOPICS } from "../lib/feedback/themes/taxonomy.ts";
import { distinctQuotes } from "../lib/feedback/quotes.ts";
import { defineTool } from "../toolkit/tool.ts";
import {
  analysedNotice,
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

const theme = z.object({
  id: z.string(),
  label: z.string(),
  kind: z.enum(["taxonomy", "emergent"]),
  reviews: z.number(),
  share: z.number().describe("share of the analysed reviews"),
  sentiment: z.object({ positive: z.number(), neutral: z.number(), negative: z.number() }),
  dominant_intent: z.string().nullable(),
  previous_reviews: z.number(),
  previous_share: z.number().nullable(),
  share_change: z.number().nullable().describe("share now minus share in the previous period"),
  rising: z.boolean(),
  examples: z.array(z.string()).max(3).describe(
    "up to 3 short quotes, own apps only, emails and phones masked",
  ),
});

const output = answerSchema({
  apps: z.array(z.object({
    app: appSchema,
    reviews: z.number(),
    analysed: z.number(),
    themes: z.array(theme),
    themes_total: z.number(),
    rising: z.array(z.string()).describe("ids of the rising themes"),
  })),
  apps_total: z.number(),
});

export default defineTool({
  name: "feedback_themes",
  description:
    "What app-store reviews talk about: themes from a taxonomy (crashes and bugs, login and account, " +
    "performance and battery, sync and data loss, notifications, UI and usability, pricing and subscriptions, " +
    "ads, customer support, content, privacy) plus emergent themes (frequent phrases that fit none), each with " +
    "review count, share, sentiment, dominant intent (bug_report, feature_request, praise, question, " +
    "price_complaint, other) and change against the previous period. `rising_first: true` puts rising themes " +
    `first (rising: at least ${MIN_RISING_REVIEWS} reviews and a share up by half and 2 points). Own apps get up ` +
    "to 3 short example quotes per theme; followed apps only counts. `app` as in feedback_summary.",
  readsReviews: true,
  input: z.object({
    app: appInput.optional(),
    period: periodInput.optional(),
    rising_first: z.boolean().optional(),
    theme: z.string().max(100).optional().describe("only this theme (its id or label)"),
  }).strict(),
  output,
  async run(ctx, input) {
    const period = ctx.period(input.period);
    const apps = pickApps(await resolveApps(ctx), input.app);
    const notices: string[] = apps.length ? [] : [NO_APPS];
    const reports = [];
    for (const a of apps) {
      const cur = await reviewsIn(ctx, a.app, period.from, period.to);
      const prev = period.previous
        ? await reviewsIn(ctx, a.app, period.previous.from, period.previous.to)
        : [];
      reports.push({ a, cur, report: themeReport(cur, prev) });
    }
    // one theme for every app asked about: unknown to all of them is a 422, as feedback_reviews gives it
    const only = input.theme ? resolveTheme(input.theme, knownThemes(reports.map((r) => r.report))) : null;
    const rows = [];
    for (const { a, cur, report } of reports) {
      let themes = report.themes;
      if (only) themes = themes.filter((t) => t.id === only.id);
      if (input.rising_first) themes = [...themes].sort((x, y) => Number(y.rising) - Number(x.rising));
      const n = analysedNotice(cur.length, report.analysed);
      if (n) notices.push(`${a.app.name}: ${n}`);
      if (!a.own) {
        notices.push(
          `${a.app.name} is not the organization's own app (${a.ownership}): counts only, no quotes`,
        );
      }
      rows.push({
        app: appOut(a),
        reviews: cur.length,
        analysed: report.analysed,
        themes: themes.slice(0, 25).map((t) => {
          const { members, phrases: _p, ...rest } = t;
          const hint = new Set(TOPICS.find((x) => x.id === t.id)?.words ?? t.label.split(" "));
          // Rule 3: only the organization's own apps are ever quoted.
          const examples = a.own ? distinctQuotes(members, hint, 3) : [];
          return { ...rest, examples };
        }),
        themes_total: themes.length,
        // under a theme filter, only that theme can be rising here
        rising: report.themes.filter((t) => t.rising && (!only || t.id === only.id)).map((t) => t.id)
          .slice(0, 25),
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
