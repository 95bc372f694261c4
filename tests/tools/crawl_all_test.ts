/**
 * The tests of the crawler tools (crawl coverage, crawler access), run as one test module: each `*_cases.ts` file
 * below registers its own tests (names and assertions as they were in its `*_test.ts`), and one module costs one
 * worker and one load of the app's modules instead of one per file.
 */
import "./crawl_coverage_spelling_cases.ts";
import "./crawl_coverage_query_cases.ts";
import "./behavior_crawl_coverage_cases.ts";
import "./behavior_crawler_access_cases.ts";
import "./crawl_coverage_site_pages_cases.ts";
import "./crawler_access_spoofed_counts_cases.ts";
import "./crawler_access_terms_cases.ts";
import "./crawler_access_unknown_robots_cases.ts";
