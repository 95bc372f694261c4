/**
 * The tests of behavior_performance, run as one test module: each `*_cases.ts` file below registers its own
 * tests (names and assertions as they were in its `*_test.ts`), and one module costs one worker and one load
 * of the app's modules instead of one per file.
 */
import "./performance_cases.ts";
import "./performance_metric_reporters_cases.ts";
import "./performance_page_fold_cases.ts";
import "./performance_previous_cases.ts";
