/**
 * The tests of behavior_explain_change (the explain tools), run as one test module: each `*_cases.ts` file below
 * registers its own tests (names and assertions as they were in its `*_test.ts`), and one module costs one worker
 * and one load of the app's modules instead of one per file.
 */
import "./explain_flat_cases.ts";
import "./explain_rate_count_cases.ts";
import "./explain_change_summary_cases.ts";
import "./explain_change_cases.ts";
