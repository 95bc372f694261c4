/**
 * The tests of the MCP endpoint, run as one test module: each `*_cases.ts` file below registers its own tests
 * (names and assertions as they were in its `*_test.ts`), and one module costs one worker and one load of the
 * app's modules instead of one per file.
 */
import "./mcp_batch_cases.ts";
import "./mcp_refused_log_cases.ts";
import "./mcp_client_oauth_cases.ts";
import "./mcp_params_cases.ts";
import "./mcp_views_cases.ts";
import "./mcp_oauth_cases.ts";
import "./mcp_cases.ts";
