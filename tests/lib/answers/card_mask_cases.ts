/**
 * Payment card numbers in quoted text are masked like phone numbers (spec: answer rule 4; the web SDK masks
 * them before sending, this is the service's own net for a client that did not). Before, a 16-digit card
 * number was past the phone numbers' 15 digits and was quoted as it was: in a page path, in an event
 * property's value, escaped in a URL.
 */
import assert from "node:assert/strict";
import { maskText } from "../../../lib/answers/privacy.ts";
import { openSite, pageview } from "../../helpers/site.ts";

Deno.test("maskText: card numbers, grouped, plain, escaped or in a path, become [card]", () => {
  const cases: [string, string][] = [
    ["card 4111 1111 1111 1111 declined", "card [card] declined"],
    ["card 4111-1111-1111-1111", "card [card]"],
    ["5500 0000 0000 0004 expires 12/27", "[card] expires 12/27"],
    ["amex 3782 822463 10005", "amex [card]"],
    ["/pay/4242424242424242", "/pay/[card]"],
    ["/checkout?card=4111%201111%201111%201111", "/checkout?card=[card]"],
    ["6011111111111117", "[card]"],
  ];
  for (const [text, want] of cases) assert.equal(maskText(text), want, text);
  // Not cards: ids failing the check, or not starting as card numbers do, and dates stay as they are.
  for (
    const text of [
      "/order/1234567890123456",
      "/post/1855734913580113921",
      "4111 1111 1111 1112",
      "2026-11-18",
    ]
  ) {
    assert.equal(maskText(text), text);
  }
  // Phone numbers written with URL escapes or "+" for spaces are still phone numbers.
  assert.equal(maskText("call +49%20151%201234%205678"), "call [phone]");
  assert.equal(maskText("/call/+49+151+1234+5678"), "/call/[phone]");
});

Deno.test("behavior_pages: a page path holding a card number is quoted masked", async () => {
  const s = await openSite({ now: Date.parse("2026-11-18T12:00:00Z") });
  try {
    const res = await s.ingest([pageview(1, 0, "/receipt/4111-1111-1111-1111"), pageview(1, 1, "/home")]);
    assert.equal(res.status, 204);
    const a = await s.read("behavior_pages", { period: "2026-11-18..2026-11-18" });
    const text = JSON.stringify(a);
    assert.ok(text.includes("/receipt/[card]"), text);
    assert.ok(!text.includes("4111"), text);
  } finally {
    await s.close();
  }
});
