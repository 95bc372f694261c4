/**
 * The tests of the views, run as one test module: each `*_cases.ts` file below registers its own tests (names and
 * assertions as they were in its `*_test.ts`), and one module costs one worker and one load of the app's modules
 * instead of one per file.
 */
import "./views_shown_path_cases.ts";
import "./views_small_groups_cases.ts";
