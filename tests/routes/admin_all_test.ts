/**
 * The tests of the admin API (organizations, keys, people, imports), run as one test module: each `*_cases.ts`
 * file below registers its own tests (names and assertions as they were in its `*_test.ts`), and one module costs
 * one worker and one load of the app's modules instead of one per file.
 */
import "./admin_long_id_cases.ts";
import "./admin_import_future_cases.ts";
import "./admin_people_cases.ts";
import "./admin_import_repeat_cases.ts";
import "./admin_cases.ts";
import "./admin_import_cases.ts";
