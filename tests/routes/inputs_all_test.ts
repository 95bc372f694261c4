/**
 * Route tests of kinds and ranges of input and of what answers show (agent kinds through both ingest
 * endpoints, number and time ranges, referrers cut to their origin, pages shown decoded), the OpenAPI
 * document's portable schemas and small findings, run as one test module: each `*_cases.ts` file below
 * registers its own tests (names and assertions as they were in its `*_test.ts`), and one module costs one
 * worker and one load of the app's modules instead of one per file.
 */
import "./agent_kinds_cases.ts";
import "./events_ranges_cases.ts";
import "./import_time_range_cases.ts";
import "./number_range_cases.ts";
import "./openapi_portable_cases.ts";
import "./referrer_cut_cases.ts";
import "./shown_path_cases.ts";
import "./small_findings_cases.ts";
