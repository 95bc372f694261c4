/**
 * The tests of reviews (import, authors), run as one test module: each `*_cases.ts` file below registers its own
 * tests (names and assertions as they were in its `*_test.ts`), and one module costs one worker and one load of
 * the app's modules instead of one per file.
 */
import "./review_import_bad_id_cases.ts";
import "./review_author_cases.ts";
import "./review_import_dates_cases.ts";
