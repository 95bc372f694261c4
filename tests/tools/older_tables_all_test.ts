/**
 * The tests of answers from a part's tables of the version before the current one (Web Vitals tables 3,
 * feature tables 2) until the backfill rebuilds them, run as one test module: each `*_cases.ts` file below
 * registers its own tests.
 */
import "./performance_older_tables_cases.ts";
import "./features_older_tables_cases.ts";
