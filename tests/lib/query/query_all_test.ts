/**
 * Small tests of lib/query (the API's types, budgets, the cohort cache, spans' ends when cold, hits,
 * interning, path rows, scan contexts, corrupt step columns, union bit counts), run as one test module: each
 * `*_cases.ts` file below registers its own tests (names and assertions as they were in its `*_test.ts`),
 * and one module costs one worker and one load of their modules instead of one per file.
 */
import "./api_cases.ts";
import "./budget_cases.ts";
import "./cohort_cache_cases.ts";
import "./cold_span_ends_cases.ts";
import "./hits_property_cases.ts";
import "./intern_cases.ts";
import "./paths_rows_cases.ts";
import "./scan_contexts_cases.ts";
import "./step_column_corrupt_cases.ts";
import "./union_bit_count_cases.ts";
