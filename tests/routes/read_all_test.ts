/**
 * The tests of the read API, run as one test module: each `*_cases.ts` file below registers its own tests (names
 * and assertions as they were in its `*_test.ts`), and one module costs one worker and one load of the app's
 * modules instead of one per file.
 */
import "./read_mcp_body_guard_cases.ts";
import "./read_compacts_tail_cases.ts";
import "./read_body_cases.ts";
import "./read_cases.ts";
