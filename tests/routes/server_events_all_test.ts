/**
 * The tests of the server events endpoint, run as one test module: each `*_cases.ts` file below registers its own
 * tests (names and assertions as they were in its `*_test.ts`), and one module costs one worker and one load of
 * the app's modules instead of one per file.
 */
import "./server_events_replay_cases.ts";
import "./server_events_property_cases.ts";
import "./server_events_proxy_cases.ts";
import "./server_events_private_ip_cases.ts";
import "./server_events_cases.ts";
import "./server_events_hits_cases.ts";
import "./server_events_sent_at_cases.ts";
