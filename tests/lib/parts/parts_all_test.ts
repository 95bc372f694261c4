/**
 * The tests of event parts (lib/parts: dictionaries, parts, sorting, visitor sets), run as one test module: each
 * `*_cases.ts` file below registers its own tests (names and assertions as they were in its `*_test.ts`), and one
 * module costs one worker and one load of the app's modules instead of one per file.
 */
import "./dict_entries_cases.ts";
import "./parts_cases.ts";
import "./slice_sort_cases.ts";
import "./visitor_set_cases.ts";
