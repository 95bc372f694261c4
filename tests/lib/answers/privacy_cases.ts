import assert from "node:assert/strict";
import { maskText } from "../../../lib/answers/privacy.ts";
Deno.test("privacy: an address at a domain with letters a browser percent-encodes is masked, as a path is shown decoded (review #19)", () => {
  for (
    const path of ["/u/jane@m%C3%BCnchen.de", "/u/jane%40m%C3%BCnchen.de", "/u/jane%EF%BC%A0example.com"]
  ) {
    assert.equal(maskText(path), "/u/[email]", path);
  }
  // other escapes stay as they were written when nothing is masked
  assert.equal(maskText("/caf%C3%A9/menu"), "/caf%C3%A9/menu");
  assert.equal(maskText("/a%ZZb/%E0%A4%A"), "/a%ZZb/%E0%A4%A");
});
