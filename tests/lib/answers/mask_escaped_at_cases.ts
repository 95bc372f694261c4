/**
 * Emails written with "%40" (a page path, an element's text) and phone numbers in full-width digits are masked
 * (review #16, #15), in the masker and in a read answer through HTTP on a real KV file.
 */
import assert from "node:assert/strict";
import { EMAIL_MASK, hasContactDetails, maskText, PHONE_MASK } from "../../../lib/answers/privacy.ts";
import { openSite, pageview } from "../../helpers/site.ts";

Deno.test("maskText: an address with %40 and a phone number in full-width digits", () => {
  assert.equal(maskText("/u/jane%40roe.example"), `/u/${EMAIL_MASK}`);
  assert.equal(maskText("/reset/jane.roe%40gmail.com/done"), `/reset/${EMAIL_MASK}/done`);
  assert.ok(!maskText("call ０１５１ １２３４５６７８ now").includes("１２３４"));
  assert.match(
    maskText("call ０１５１ １２３４５６７８ now"),
    new RegExp(PHONE_MASK.replace(/[[\]]/g, "\\$&")),
  );
  assert.ok(hasContactDetails("/u/jane%40roe.example"), "the checker sees it too");
  // plain escapes and full-width letters with nothing personal stay as they are
  assert.equal(maskText("/caf%C3%A9/menu%40"), "/caf%C3%A9/menu%40");
  assert.equal(maskText("ｐｒｏ plan"), "ｐｒｏ plan");
});

Deno.test("behavior_pages: a path holding an address written with %40 is named masked", async () => {
  const site = await openSite({ now: Date.parse("2026-11-18T10:30:00Z") });
  try {
    for (let v = 0; v < 6; v++) await site.ingest([pageview(v, 0, "/u/jane%40roe.example")]);
    const text = JSON.stringify(await site.read("behavior_pages", { period: "today" }));
    assert.doesNotMatch(text, /jane|roe\.example/, text);
    assert.ok(text.includes(EMAIL_MASK), text);
  } finally {
    await site.close();
  }
});
