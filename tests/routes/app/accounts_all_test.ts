/**
 * The tests of the app's accounts (people, sign-in, assistants' sign-in, secrets, settings), run as one test
 * module: each `*_cases.ts` file below registers its own tests (names and assertions as they were in its
 * `*_test.ts`), and one module costs one worker and one load of the app's modules instead of one per file.
 */
import "./people_app_cases.ts";
import "./sign_in_cases.ts";
import "./assistant_sign_in_cases.ts";
import "./secrets_cases.ts";
import "./settings_cases.ts";
import "./long_id_cases.ts";
