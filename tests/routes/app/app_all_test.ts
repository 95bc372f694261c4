/**
 * The tests of the app's pages (answers, assistants, error titles, reports, saved pages, store credentials), run
 * as one test module: each `*_cases.ts` file below registers its own tests (names and assertions as they were in
 * its `*_test.ts`), and one module costs one worker and one load of the app's modules instead of one per file.
 */
import "./answer_view_cases.ts";
import "./assistants_cases.ts";
import "./error_titles_cases.ts";
import "./insight_builder_cases.ts";
import "./reports_cases.ts";
import "./root_cases.ts";
import "./saved_pages_cases.ts";
import "./store_credentials_cases.ts";
import "./answer_lists_cases.ts";
import "./assistants_mcp_address_cases.ts";
import "./insight_default_period_cases.ts";
import "./insight_required_inputs_cases.ts";
import "./report_generated_zone_cases.ts";
import "./reports_generate_bad_period_cases.ts";
import "./reports_generate_periods_cases.ts";
