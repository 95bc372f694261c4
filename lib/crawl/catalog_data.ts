/**
 * The crawler catalog, which is data (lib/crawl/catalog.json, built by scripts/build_catalog.ts from
 * ../shared/data/crawlers); this module only gives it its types.
 */
import data from "./catalog.json" with { type: "json" };
import type { CatalogEntry } from "./types.ts";

export const CATALOG: readonly CatalogEntry[] = data.crawlers as CatalogEntry[];
/** Names that appear only in robots.txt rules (e.g. Google-Extended), never in a user agent. */
export const ROBOTS_ONLY_TOKENS: readonly string[] = data.robots_only_tokens;
/** omrilotan/isbot patterns: each says "automated", none says which crawler. */
export const GENERIC_BOT_PATTERNS: readonly string[] = data.generic_bot_patterns;
