/**
 * Tools' inputs and answers: identifier-named values, page spelling, the touchpoint input, sampled traffic,
 * crawler findings, features, engagement reporters, the docs and prompts, run as one test module: each
 * `*_cases.ts` file below registers its own tests (names and assertions as they were in its `*_test.ts`),
 * and one module costs one worker and one load of the app's modules instead of one per file.
 */
import "./identifier_keys_cases.ts";
import "./page_spelling_cases.ts";
import "./touchpoint_choice_cases.ts";
import "./sampled_notice_cases.ts";
import "./crawler_findings_cases.ts";
import "./features_cases.ts";
import "./pages_engagement_reporters_cases.ts";
import "./docs_cases.ts";
import "./prompts_cases.ts";
import "./compared_before_data_cases.ts";
import "./unknown_names_cases.ts";
import "./saved_dashboard_periods_cases.ts";
import "./feedback_theme_ids_cases.ts";
