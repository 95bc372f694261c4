/**
 * Small tests of lib/answers (masks of cards, phones and escaped at-signs, periods, privacy, rendering,
 * forged text), run as one test module: each `*_cases.ts` file below registers its own tests (names and
 * assertions as they were in its `*_test.ts`), and one module costs one worker and one load of their modules
 * instead of one per file.
 */
import "./card_mask_cases.ts";
import "./mask_escaped_at_cases.ts";
import "./period_cases.ts";
import "./phone_mask_cases.ts";
import "./privacy_cases.ts";
import "./render_forged_cases.ts";
import "./render_cases.ts";
