/**
 * The tests of the event store (lib/store), run as one test module: each `*_cases.ts` file below registers its own
 * tests (names and assertions as they were in its `*_test.ts`), and one module costs one worker and one load of
 * the app's modules instead of one per file.
 */
import "./address_retention_cases.ts";
import "./commit_group_failures_cases.ts";
import "./commit_group_cases.ts";
import "./event_codec_property_cases.ts";
import "./event_codec_cases.ts";
import "./pending_verification_cases.ts";
import "./raw_tail_reuse_cases.ts";
import "./raw_tail_cases.ts";
import "./readable_cases.ts";
