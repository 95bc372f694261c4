/**
 * The tests of odd input to the ingest endpoints (long paths, forged text, content encodings, long origins), run
 * as one test module: each `*_cases.ts` file below registers its own tests (names and assertions as they were in
 * its `*_test.ts`), and one module costs one worker and one load of the app's modules instead of one per file.
 */
import "./long_path_ingest_cases.ts";
import "./forged_text_ingest_cases.ts";
import "./content_encoding_cases.ts";
import "./cors_long_origin_cases.ts";
