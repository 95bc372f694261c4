/**
 * The tests of behavior_trends, run as one test module: each `*_cases.ts` file below registers its own tests
 * (names and assertions as they were in its `*_test.ts`), and one module costs one worker and one load of the
 * app's modules instead of one per file.
 */
import "./trends_series_length_cases.ts";
import "./trends_bucket_fold_cases.ts";
import "./behavior_trends_cases.ts";
import "./trends_property_split_cases.ts";
