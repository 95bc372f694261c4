/**
 * Store listings (name, developer, developer website, version), refreshed daily: the App Store's public
 * lookup API (`/lookup?id=`), and the Google Play listing page, which has no API: its JSON-LD block gives
 * name and developer, the link labelled "Website" the developer's site. Ownership is decided from these.
 */
import type { FeedbackApp, StoreListing } from "../types.ts";
import { fetchJson, SOURCE_TIMEOUT_MS, SourceError, str } from "./http.ts";

export const PLAY_WEB_BASE = "https://play.google.com";

export interface ListingBases {
  itunes: string;
  playWeb: string;
}

export async function fetchListing(
  fetcher: typeof fetch,
  bases: ListingBases,
  app: FeedbackApp,
  now: number,
): Promise<StoreListing> {
  return app.store === "app_store"
    ? await appStoreListing(fetcher, bases.itunes, app, now)
    : await playListing(fetcher, bases.playWeb, app.store_id, now);
}

async function appStoreListing(
  fetcher: typeof fetch,
  base: string,
  app: FeedbackApp,
  now: number,
): Promise<StoreListing> {
  const url = `${base}/lookup?id=${encodeURIComponent(app.store_id)}&country=${app.countries[0] ?? "us"}`;
  const body = await fetchJson(fetcher, url, {}, "App Store lookup") as {
    results?: Record<string, unknown>[];
  };
  const r = body?.results?.[0];
  if (!r) throw new SourceError(`App Store lookup: no app ${app.store_id} in the store`);
  return {
    name: str(r.trackName),
    developer: str(r.sellerName) ?? str(r.artistName),
    developer_website: str(r.sellerUrl),
    version: str(r.version),
    fetched_at: now,
  };
}

async function playListing(
  fetcher: typeof fetch,
  base: string,
  pkg: string,
  now: number,
): Promise<StoreListing> {
  const url = `${base}/store/apps/details?id=${encodeURIComponent(pkg)}&hl=en&gl=us`;
  let res: Response;
  try {
    res = await fetcher(url, { signal: AbortSignal.timeout(SOURCE_TIMEOUT_MS) });
  } catch (e) {
    throw new SourceError(`Google Play listing: no answer (${e instanceof Error ? e.message : String(e)})`);
  }
  const html = await res.text();
  if (res.status === 404) throw new SourceError(`Google Play listing: no app ${pkg} in the store`, 404);
  if (!res.ok) throw new SourceError(`Google Play listing: HTTP ${res.status}`, res.status);
  return { ...parsePlayListing(html), fetched_at: now };
}

export function parsePlayListing(html: string): Omit<StoreListing, "fetched_at"> {
  let name: string | null = null, developer: string | null = null;
  for (const m of html.matchAll(/<script[^>]*type="application\/ld\+json"[^>]*>([\s\S]*?)<\/script>/g)) {
    try {
      const j = JSON.parse(m[1]);
      if (j?.["@type"] === "SoftwareApplication" || j?.["@type"] === "MobileApplication") {
        name = str(j.name);
        developer = str(j.author?.name);
      }
    } catch { /* another script */ }
  }
  const version = html.match(/itemprop="softwareVersion"[^>]*content="([^"]+)"/)?.[1] ?? null;
  let website: string | null = null;
  for (const m of html.matchAll(/<a\b([^>]*)>([\s\S]{0,300}?)<\/a>/g)) {
    const attrs = m[1];
    const inner = m[2].replace(/<[^>]+>/g, " ");
    if (!/\bwebsite\b/i.test(inner) && !/aria-label="[^"]*website/i.test(attrs)) continue;
    const href = attrs.match(/href="([^"]+)"/)?.[1];
    if (!href) continue;
    website = unwrapRedirect(href.replaceAll("&amp;", "&"));
    break;
  }
  return { name, developer, developer_website: website, version };
}

/** Play wraps outbound links as https://www.google.com/url?q=<target>. */
function unwrapRedirect(href: string): string {
  try {
    const u = new URL(href);
    if (u.hostname.endsWith("google.com") && u.pathname === "/url") return u.searchParams.get("q") ?? href;
  } catch { /* relative or odd: keep */ }
  return href;
}
