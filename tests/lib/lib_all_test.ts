/**
 * Small tests of lib's own modules (a clock ahead, configuration, DNS, addresses, the LRU, shown paths,
 * working memory), run as one test module: each `*_cases.ts` file below registers its own tests (names and
 * assertions as they were in its `*_test.ts`), and one module costs one worker and one load of their modules
 * instead of one per file.
 */
import "./clock_ahead_cases.ts";
import "./config_cases.ts";
import "./dns_cases.ts";
import "./ip_cases.ts";
import "./lru_cases.ts";
import "./url_path_shown_cases.ts";
import "./working_memory_cases.ts";
