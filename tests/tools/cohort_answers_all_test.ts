/**
 * Tools' answers under a saved cohort (rule 5 where a few would be told by what else an answer says), run as
 * one test module: each `*_cases.ts` file below registers its own tests (names and assertions as they were
 * in its `*_test.ts`), and one module costs one worker and one load of the app's modules instead of one per
 * file.
 */
import "./events_previous_cohort_cases.ts";
import "./features_cohort_own_counts_cases.ts";
import "./overview_cohort_parts_cases.ts";
import "./pages_cohort_own_counts_cases.ts";
import "./retention_cohort_rest_cases.ts";
import "./sessions_cohort_values_cases.ts";
import "./small_complements_cases.ts";
import "./sources_conversions_rest_cases.ts";
import "./cohort_tells_few_cases.ts";
import "./overview_cohort_few_cases.ts";
