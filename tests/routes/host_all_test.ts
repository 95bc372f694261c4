/**
 * The tests of hosts (their form, host and depth), run as one test module: each `*_cases.ts` file below registers
 * its own tests (names and assertions as they were in its `*_test.ts`), and one module costs one worker and one
 * load of the app's modules instead of one per file.
 */
import "./host_form_cases.ts";
import "./host_and_depth_cases.ts";
