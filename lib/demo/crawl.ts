/**
 * Crawler hits on the generated site: many crawlers with their own share of traffic and their own part
 * of the site (some pages no crawler ever reads), robots.txt, sitemap and llms.txt reads, redirects,
 * not-found and failing requests, and impostors using a well-known crawler's user agent.
 */
import { type CrawlerDef, CRAWLERS } from "./crawlers.ts";
import { PAGES } from "./world.ts";
import { Rng, Weighted, zipf } from "./random.ts";

export interface HitDraft {
  id: string;
  t: number;
  crawler: CrawlerDef;
  path: string;
  method: string;
  status: number | null;
  ip: string;
  spoofed: boolean;
  siteFile: "robots.txt" | "llms.txt" | "sitemap" | null;
}

const crawlerW = new Weighted(CRAWLERS, CRAWLERS.map((c) => c.w));
const MISSING = ["/wp-login.php", "/old-pricing", "/blog/deleted-post", "/docs/v1/install"];

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return (h >>> 0) / 4294967296;
}

/** Pages no crawler reads: half of the blog archive. */
export const NEVER_CRAWLED = new Set(PAGES.filter((p) => p.startsWith("/blog/archive/") && hash(p) < 0.5));

export function* crawlerHits(count: number, start: number, end: number, seed: number): Generator<HitDraft> {
  const r = new Rng(seed ^ 0x5bd1e995);
  const covered = new Map(
    CRAWLERS.map((c) => [
      c.token,
      zipf(PAGES.filter((p) => !NEVER_CRAWLED.has(p) && hash(c.token + p) < c.coverage), 0.9),
    ]),
  );
  for (let n = 0; n < count; n++) {
    const c = crawlerW.draw(r);
    const spoofed = r.chance(c.spoofed ?? 0);
    const t = start + Math.floor(r.next() * (end - start));
    const x = r.next();
    let path: string, siteFile: HitDraft["siteFile"] = null, status: number | null = 200;
    if (x < 0.03) [path, siteFile] = ["/robots.txt", "robots.txt"];
    else if (x < 0.05) [path, siteFile] = [r.chance(0.7) ? "/sitemap.xml" : "/sitemap-blog.xml", "sitemap"];
    else if (x < 0.065 && c.llms) [path, siteFile] = ["/llms.txt", "llms.txt"];
    else if (x < 0.08) [path, status] = [r.pick(MISSING), 404];
    else path = covered.get(c.token)!.draw(r);
    if (status === 200) {
      const y = r.next();
      status = y < 0.08 ? 304 : y < 0.11 ? 301 : y < 0.12 ? 503 : y < 0.13 ? null : 200;
    }
    yield {
      id: r.uuid(),
      t,
      crawler: c,
      path,
      method: r.chance(0.02) ? "HEAD" : "GET",
      status,
      ip: spoofed ? `185.220.${r.int(100, 103)}.${r.int(1, 254)}` : `${c.ip}.${r.int(1, 254)}`,
      spoofed,
      siteFile,
    };
  }
}
