import assert from "node:assert/strict";
import { inSample } from "../../../sdk/web/src/identity.ts";

Deno.test("web-sdk sampleRate: a rate that is not a number captures every visitor, as no rate does", () => {
  const ids = Array.from({ length: 200 }, (_, i) => `visitor-${i}`);
  // data-sample-rate="50%" reaches init as Number("50%"), NaN: before, no visitor was in the sample
  for (const bad of [NaN, "50%" as unknown as number, undefined as unknown as number]) {
    assert.equal(ids.every((a) => inSample(a, bad)), true, String(bad));
  }
  // a real rate still samples whole visitors, 0 captures no one
  const share = ids.filter((a) => inSample(a, 0.5)).length / ids.length;
  assert.ok(share > 0.3 && share < 0.7, String(share));
  assert.equal(ids.some((a) => inSample(a, 0)), false);
});
