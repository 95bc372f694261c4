/** What the feedback tools share: the organization's apps with their ownership (rule 3), and the app asked for. */
import { z } from "zod";
import { invalid } from "../lib/errors.ts";
import { getListing, listApps } from "../lib/feedback/store.ts";
import { decideOwnership, verifiedDomainsOf, websiteDomainsOf } from "../lib/feedback/ownership.ts";
import type { FeedbackApp, StoredReview } from "../lib/feedback/types.ts";
import type { ThemeReport } from "../lib/feedback/themes/aggregate.ts";
import { TAXONOMY } from "../lib/feedback/themes/taxonomy.ts";
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

/** A theme as both feedback tools name it: an id and a label, of the taxonomy or emergent in a period's reviews. */
export interface ThemeName {
  id: string;
  label: string;
  kind: "taxonomy" | "emergent";
}

/** A theme's name compared without case, and with "_" and runs of spaces as one space ("ui_usability"). */
const themeKey = (s: string) =>
  s.trim().toLowerCase().replace(/[\s_]+/g, " ").replace(/^emergent: ?/, "emergent:");

/**
 * The themes a `theme` filter may name: the taxonomy's, then the emergent themes of the reports given (the
 * period's reviews of the apps asked about, as feedback_themes lists them).
 */
export function knownThemes(reports: ThemeReport[]): ThemeName[] {
  const out: ThemeName[] = TAXONOMY.map((t) => ({ id: t.id, label: t.label, kind: "taxonomy" }));
  const seen = new Set(out.map((t) => t.id));
  for (const r of reports) {
    for (const t of r.themes) {
      if (t.kind !== "emergent" || seen.has(t.id)) continue;
      seen.add(t.id);
      out.push({ id: t.id, label: t.label, kind: "emergent" });
    }
  }
  return out;
}

/**
 * The theme a filter names, by id or label in any case: the same for feedback_themes and feedback_reviews, so
 * every theme one lists the other takes. A name that is none of `known` is a 422 naming them all.
 */
export function resolveTheme(input: string, known: ThemeName[]): ThemeName {
  const k = themeKey(input);
  const found = known.find((t) => themeKey(t.id) === k) ?? known.find((t) => themeKey(t.label) === k);
  if (found) return found;
  const list = (kind: ThemeName["kind"]) =>
    known.filter((t) => t.kind === kind).map((t) => `${t.label} (${t.id})`).join(", ");
  const emergent = list("emergent");
  throw invalid(
    `theme: unknown "${input}"; name one by its label or id: ${list("taxonomy")}` +
      (emergent
        ? `; emergent in this period's reviews: ${emergent}`
        : "; no emergent themes in this period's reviews"),
  );
}
