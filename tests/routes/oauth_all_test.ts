/**
 * The tests of OAuth for assistants (discovery, clients, the flow), run as one test module: each `*_cases.ts` file
 * below registers its own tests (names and assertions as they were in its `*_test.ts`), and one module costs one
 * worker and one load of the app's modules instead of one per file.
 */
import "./oauth_discovery_cases.ts";
import "./oauth_client_cases.ts";
import "./oauth_flow_cases.ts";
