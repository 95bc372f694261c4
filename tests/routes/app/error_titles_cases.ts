/** Every failure of the one vocabulary (lib/errors.ts) has its own title on the app's error page. */
import assert from "node:assert/strict";
import { FAILURES } from "../../../lib/errors.ts";
import { TITLES } from "../../../routes/app/index.tsx";

Deno.test("app error titles: one for every status a failure maps to, 402 and 409 included", () => {
  const missing = Object.entries(FAILURES).filter(([, f]) => !TITLES[f.status]).map(([k, f]) =>
    `${k} ${f.status}`
  );
  assert.deepEqual(missing, []);
});
