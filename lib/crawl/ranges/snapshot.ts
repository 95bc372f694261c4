/**
 * The published IP lists as last copied (lib/crawl/ranges/snapshot.json, built by scripts/build_catalog.ts
 * from ../shared/data/crawlers/ranges); the daily refresh replaces them in KV. This module only types them.
 */
import data from "./snapshot.json" with { type: "json" };

export const RANGE_SNAPSHOT: Readonly<Record<string, { prefixes: string[]; taken_at: string }>> = data.lists;
