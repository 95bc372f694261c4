import assert from "node:assert/strict";
import { buildWebSdk, LIMIT_BYTES } from "../../../scripts/build_web.ts";

Deno.test("web-sdk bundle: the ES module and the classic script are each at most 10 KB gzipped", async () => {
  const bundles = await buildWebSdk();
  assert.deepEqual(bundles.map((b) => b.file), ["sdk.js", "sdk.iife.js"]);
  for (const b of bundles) {
    console.log(`${b.file}: ${b.gzipped} bytes gzipped`);
    assert.ok(b.gzipped <= LIMIT_BYTES, `${b.file} is ${b.gzipped} bytes gzipped`);
    assert.ok(b.gzipped > 2000, "web-vitals is inside");
  }
  const iife = new TextDecoder().decode(bundles[1].code);
  assert.ok(!/^\s*(import|export)\b/m.test(iife), "the classic script has no module syntax");
});
