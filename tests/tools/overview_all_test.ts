/**
 * The tests of behavior_overview, run as one test module: each `*_cases.ts` file below registers its own tests
 * (names and assertions as they were in its `*_test.ts`), and one module costs one worker and one load of the
 * app's modules instead of one per file.
 */
import "./overview_claimed_agents_cases.ts";
import "./behavior_overview_cases.ts";
