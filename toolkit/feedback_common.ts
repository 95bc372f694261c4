/** What the feedback tools share: the organization's apps with their ownership (rule 3), and the app asked for. */
import { z } from "zod";
import { invalid } from "../lib/errors.ts";
import { getListing, listApps } from "../lib/feedback/store.ts";
import { decideOwnership, verifiedDomainsOf, websiteDomainsOf } from "../lib/feedback/ownership.ts";
import type { FeedbackApp, StoredReview } from "../lib/feedback/types.ts";
import type { ResolvedPeriod } from "../lib/answers/period.ts";
import type { Scope } from "../lib/answers/schema.ts";
import type { ToolContext } from "./tool.ts";

export interface ResolvedApp {
  app: FeedbackApp;
  own: boolean;
  ownership: string;
}

export const appInput = z.string().min(1).max(200).describe(
  "App: its id, name, or store id (App Store numeric id or Google Play package name). Omitted: all own apps.",
);

export const appSchema = z.object({
  id: z.string(),
  name: z.string(),
  store: z.string(),
  store_id: z.string(),
  own: z.boolean().describe("the organization's own app (answer rule 3); followed apps are never quoted"),
  ownership: z.string(),
});

export const appOut = (a: ResolvedApp) => ({
  id: a.app.id,
  name: a.app.name,
  store: a.app.store,
  store_id: a.app.store_id,
  own: a.own,
  ownership: a.ownership,
});

/** Every app of the organization with its ownership decided now from its listing and verified domains. */
export async function resolveApps(ctx: ToolContext): Promise<ResolvedApp[]> {
  const kv = ctx.app.deps.kv;
  const apps = await listApps(kv, ctx.org.id);
  if (!apps.length) return [];
  const sites = websiteDomainsOf(ctx.touchpoints);
  const domains = await verifiedDomainsOf(kv, ctx.org.id);
  return await Promise.all(apps.map(async (app) => {
    const o = decideOwnership(await getListing(kv, ctx.org.id, app.id), sites, domains);
    return { app, own: o.own, ownership: o.reason };
  }));
}

const describe = (apps: ResolvedApp[]) =>
  apps.map((a) => `"${a.app.name}" (${a.app.store} ${a.app.store_id}, ${a.own ? "own" : "followed"})`).join(
    ", ",
  );

export const NO_APPS =
  "this organization has no apps yet: add an iOS or Android app with its store id, or follow one";

/** The app named by input; with none named, every own app (or every app when `all`); none when there are none. */
export function pickApps(apps: ResolvedApp[], input: string | undefined, all = false): ResolvedApp[] {
  if (!apps.length) {
    if (input) throw invalid(`no app "${input}": ${NO_APPS}`);
    return [];
  }
  if (input === undefined || input === "") {
    const chosen = all ? apps : apps.filter((a) => a.own);
    if (!chosen.length) {
      throw invalid(`no own app: name one of the followed apps: ${describe(apps)}`);
    }
    return chosen;
  }
  const q = input.trim().toLowerCase();
  const found = apps.find((a) => a.app.id === input) ??
    apps.find((a) => a.app.store_id.toLowerCase() === q) ??
    apps.find((a) => a.app.name.toLowerCase() === q) ??
    apps.find((a) => a.app.touchpoint === input);
  if (!found) throw invalid(`no app "${input}"; choose one of ${describe(apps)}`);
  return [found];
}

export async function reviewsIn(
  ctx: ToolContext,
  app: FeedbackApp,
  from: number,
  to: number,
): Promise<StoredReview[]> {
  // a period's reviews: an app too large for the cache keeps only the months asked and the ones before them
  return await ctx.app.reviews.between(ctx.org.id, app.id, from, to);
}

/** The answer's scope: the period, no website (reviews are not site traffic), "app-store reviews". */
export function reviewScope(ctx: ToolContext, period: ResolvedPeriod, apps: ResolvedApp[]): Scope {
  const one = apps.length === 1 ? apps[0].app : null;
  const tp = one?.touchpoint ? ctx.touchpoints.find((t) => t.id === one.touchpoint) ?? null : null;
  return ctx.scope({
    period,
    touchpoint: tp,
    traffic: apps.length
      ? `app-store reviews of ${apps.map((a) => a.app.name).join(", ")}`
      : "app-store reviews",
  });
}

/** How much of the reviews the models read (other languages still count in volume and ratings). */
export function analysedNotice(total: number, analysed: number): string | null {
  if (total === 0 || analysed === total) return null;
  return `${analysed} of ${total} reviews (${Math.round((analysed / total) * 100)}%) are in a language the ` +
    `models cover (English) and were analysed for sentiment, intent and themes; all count in volume and ratings`;
}
