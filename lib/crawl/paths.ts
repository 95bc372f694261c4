/** What a crawler hit read: a site file (robots.txt, llms.txt, llms-full.txt, a sitemap) or a page. */
import type { StoredHit } from "../store/records.ts";

export type SiteFile = NonNullable<StoredHit["site_file"]>;

/** The site file a path names, or null for a page. The query string is ignored. */
export function siteFileOf(path: string): SiteFile | null {
  const cut = path.search(/[?#]/);
  const p = (cut >= 0 ? path.slice(0, cut) : path).toLowerCase();
  if (p === "/robots.txt") return "robots.txt"; // robots.txt is only ever read at the root
  const last = p.slice(p.lastIndexOf("/") + 1);
  if (last === "llms.txt") return "llms.txt";
  if (last === "llms-full.txt") return "llms-full.txt";
  if ((last.includes("sitemap") && last.endsWith(".xml")) || last.endsWith(".xml.gz")) return "sitemap";
  return null;
}

/**
 * The page a hit read: its path without query or fragment. Visitors' pages are paths without a query (the
 * web SDK keeps allowed parameters in the URL only), so a crawler reading "/pricing?lang=de" read "/pricing".
 */
export function pageOfPath(path: string): string {
  const cut = path.search(/[?#]/);
  return cut >= 0 ? path.slice(0, cut) || "/" : path;
}

/** A page counts as crawled when the crawler got it: GET answered 2xx, 304, or with an unknown status. */
export function isCrawled(siteFile: SiteFile | null, method: string, status: number | null): boolean {
  if (siteFile !== null || method !== "GET") return false;
  return status === null || (status >= 200 && status < 300) || status === 304;
}
