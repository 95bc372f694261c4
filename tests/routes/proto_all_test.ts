/**
 * The tests of prototype names as input (tables, sources), run as one test module: each `*_cases.ts` file below
 * registers its own tests (names and assertions as they were in its `*_test.ts`), and one module costs one worker
 * and one load of the app's modules instead of one per file.
 */
import "./table_proto_cases.ts";
import "./source_proto_cases.ts";
