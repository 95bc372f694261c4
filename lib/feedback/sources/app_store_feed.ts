/**
 * The App Store's public customer-reviews feed, for followed App Store apps (no key needed):
 * `https://itunes.apple.com/{country}/rss/customerreviews/page={n}/id={id}/sortby=mostrecent/json`, 50 reviews
 * a page, pages 1 to 10. A feed with one entry gives it as an object, not a list; the feed has no replies.
 */
import type { IncomingReview } from "../types.ts";
import { fetchJson, SourceError } from "./http.ts";
import type { Page } from "./page.ts";

export const ITUNES_BASE = "https://itunes.apple.com";
export const FEED_MAX_PAGE = 10;

type Label = { label?: string; attributes?: Record<string, string> };
interface Entry {
  id?: Label;
  title?: Label;
  content?: Label;
  author?: { name?: Label };
  updated?: Label;
  "im:rating"?: Label;
  "im:version"?: Label;
}

export async function feedPage(
  fetcher: typeof fetch,
  base: string,
  appId: string,
  country: string,
  cursor: string | null,
): Promise<Page> {
  const page = cursor ? Number(cursor) : 1;
  const url = `${base}/${encodeURIComponent(country)}/rss/customerreviews/page=${page}/id=${
    encodeURIComponent(appId)
  }/sortby=mostrecent/json`;
  const body = await fetchJson(fetcher, url, {}, "App Store feed") as { feed?: { entry?: Entry | Entry[] } };
  if (!body?.feed) throw new SourceError("App Store feed: no feed in the answer");
  const raw = body.feed.entry;
  const entries = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  const reviews: IncomingReview[] = [];
  for (const e of entries) {
    const rating = Number(e["im:rating"]?.label);
    const at = Date.parse(e.updated?.label ?? "");
    if (!e.id?.label || !(rating >= 1 && rating <= 5) || !Number.isFinite(at)) continue; // the app's own entry
    reviews.push({
      id: e.id.label,
      rating,
      title: e.title?.label ?? null,
      text: e.content?.label ?? "",
      language: null,
      country: country.toUpperCase(),
      version: e["im:version"]?.label ?? null,
      created_at: at,
      updated_at: at,
      reply: null,
      author: e.author?.name?.label ?? null,
    });
  }
  const next = entries.length > 0 && page < FEED_MAX_PAGE ? String(page + 1) : null;
  return { reviews, next };
}
