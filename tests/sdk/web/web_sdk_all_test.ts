/**
 * The tests of the web SDK, run as one test module: each `*_cases.ts` file below registers its own tests (names
 * and assertions as they were in its `*_test.ts`), and one module costs one worker and one load of the app's
 * modules instead of one per file.
 */
import "./autocapture_cases.ts";
import "./bundle_size_cases.ts";
import "./config_cases.ts";
import "./fingerprint_cases.ts";
import "./identity_page_cases.ts";
import "./mask_escapes_cases.ts";
import "./queue_cases.ts";
