/**
 * A phone number as a URL writes it (a tel: link's href, a link's text copied from an address bar): its
 * spaces escaped as "%20" or written "+", its "+" as "%2B". Before, the escapes cut the number into runs too
 * short to mask, and "+49%20151%201234%205678" left the page as it was.
 */
import assert from "node:assert/strict";
import { cleanText, maskDeep, maskText } from "../../../sdk/web/src/mask.ts";

Deno.test("web-sdk mask: phone numbers written with %20, %2B or + separators are masked", () => {
  const cases: [string, string][] = [
    ["tel:+49%20151%201234%205678", "tel:[phone]"],
    ["tel:%2B4915112345678", "tel:[phone]"],
    ["call 0151%201234%205678 today", "call [phone] today"],
    ["+44%2020%207946%200958", "[phone]"],
    ["/call/+49+151+1234+5678", "/call/[phone]"],
    ["+1%20(415)%20555-0134", "[phone]"],
  ];
  for (const [text, want] of cases) assert.equal(maskText(text), want, text);
  // a card number escaped is still hidden; short numbers with escapes (a query's "page%202") stay
  assert.ok(!maskText("card%204111%201111%201111%201111").includes("1111"));
  assert.equal(maskText("/search?q=page%202&n=10"), "/search?q=page%202&n=10");
  assert.equal(maskText("2+2=4"), "2+2=4");
});

Deno.test("web-sdk mask: element text and properties holding escaped phone numbers are masked", () => {
  assert.equal(cleanText("  Call us:\n +49%20151%201234%205678 "), "Call us: [phone]");
  const props = maskDeep({ href: "tel:+49+151+1234+5678", url: "https://acme.test/c?to=%2B4915112345678" });
  assert.deepEqual(props, { href: "tel:[phone]", url: "https://acme.test/c?to=[phone]" });
});
