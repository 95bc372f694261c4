/**
 * The tests of OAuth (lib/oauth), run as one test module: each `*_cases.ts` file below registers its own tests
 * (names and assertions as they were in its `*_test.ts`), and one module costs one worker and one load of the
 * app's modules instead of one per file.
 */
import "./basic_malformed_cases.ts";
import "./grants_cases.ts";
import "./issuer_policy_cases.ts";
import "./metadata_document_cases.ts";
import "./redirect_exact_cases.ts";
import "./urls_cases.ts";
