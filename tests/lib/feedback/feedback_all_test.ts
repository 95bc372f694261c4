/**
 * The tests of reviews and feedback (lib/feedback), run as one test module: each `*_cases.ts` file below registers
 * its own tests (names and assertions as they were in its `*_test.ts`), and one module costs one worker and one
 * load of the app's modules instead of one per file.
 */
import "./demo_fetch_cases.ts";
import "./author_mask_cases.ts";
import "./demo_themes_http_cases.ts";
import "./proto_words_cases.ts";
import "./reanalyse_cases.ts";
import "./review_backlog_cases.ts";
import "./review_cache_cases.ts";
import "./review_dates_cases.ts";
import "./sources_cases.ts";
import "./store_cases.ts";
import "./themes_cases.ts";
