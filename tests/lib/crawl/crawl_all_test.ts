/**
 * Small tests of lib/crawl (CIDR ranges, robots.txt and its history and head size, verification), run as one
 * test module: each `*_cases.ts` file below registers its own tests (names and assertions as they were in
 * its `*_test.ts`), and one module costs one worker and one load of their modules instead of one per file.
 */
import "./cidr_cases.ts";
import "./robots_head_size_cases.ts";
import "./robots_history_cases.ts";
import "./robots_cases.ts";
import "./verify_cases.ts";
