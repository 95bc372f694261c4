/**
 * The tests of reports (lib/reports), run as one test module: each `*_cases.ts` file below registers its own tests
 * (names and assertions as they were in its `*_test.ts`), and one module costs one worker and one load of the
 * app's modules instead of one per file.
 */
import "./generate_cases.ts";
import "./long_paths_cases.ts";
import "./mail_text_cases.ts";
import "./mcp_cases.ts";
import "./report_mail_retry_cases.ts";
import "./touchpoint_added_cases.ts";
import "./vitals_words_cases.ts";
import "./words_cases.ts";
