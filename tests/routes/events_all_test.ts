/**
 * The tests of the web events endpoint, run as one test module: each `*_cases.ts` file below registers its own
 * tests (names and assertions as they were in its `*_test.ts`), and one module costs one worker and one load of
 * the app's modules instead of one per file.
 */
import "./events_gap_cases.ts";
import "./events_private_ip_cases.ts";
import "./events_size_cases.ts";
import "./events_proxy_key_cases.ts";
import "./events_cases.ts";
