import assert from "node:assert/strict";
import fc from "fast-check";
import { cleanText, maskDeep, maskText } from "../../../sdk/web/src/mask.ts";

Deno.test("web-sdk mask: emails, phone numbers and card numbers are replaced", () => {
  assert.equal(maskText("Write to jane.doe+news@example.co.uk today"), "Write to [email] today");
  assert.equal(maskText("Call +1 (555) 123-4567 now"), "Call [phone] now");
  assert.equal(maskText("or 020 7946 0958"), "or [phone]");
  assert.equal(maskText("card 4111 1111 1111 1111 ok"), "card [card] ok");
  assert.equal(maskText("card 4111-1111-1111-1111"), "card [card]");
  assert.equal(maskText("url-encoded jane%40example.com"), "url-encoded [email]");
});

Deno.test("web-sdk mask: ordinary text, prices, dates and short numbers stay", () => {
  for (const s of ["Buy now", "Pricing", "Only $1,299.00", "Released 2026-11-20", "Step 3 of 5", "v1.2.3"]) {
    assert.equal(maskText(s), s);
  }
});

Deno.test("web-sdk mask: no email survives masking (property)", () => {
  const local = fc.stringMatching(/^[a-z0-9._+-]{1,20}$/).filter((s) => /[a-z0-9]/.test(s));
  const domain = fc.stringMatching(/^[a-z0-9-]{1,15}\.[a-z]{2,6}$/);
  fc.assert(
    fc.property(fc.string(), local, domain, fc.string(), (before, l, d, after) => {
      const out = maskText(`${before} ${l}@${d} ${after}`);
      assert.ok(!out.includes(`${l}@${d}`), out);
    }),
  );
});

Deno.test("web-sdk mask: no run of 9 or more digits survives (property)", () => {
  fc.assert(
    fc.property(
      fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 9, maxLength: 19 }),
      fc.string(),
      (d, s) => {
        const out = maskText(`${s} ${d.join("")} ${s}`);
        assert.ok(!/\d{9,}/.test(out.replace(s, "")), out);
      },
    ),
  );
});

Deno.test("web-sdk mask: maskDeep masks nested strings without changing the input", () => {
  const input = { a: "mail me@x.io", n: 5, list: ["+44 20 7946 0958"], inner: { ok: true, s: "fine" } };
  const out = maskDeep(input);
  assert.deepEqual(out, { a: "mail [email]", n: 5, list: ["[phone]"], inner: { ok: true, s: "fine" } });
  assert.equal(input.a, "mail me@x.io");
});

Deno.test("web-sdk mask: cleanText masks before truncating so no half email remains", () => {
  const t = cleanText("  Hello   there " + "x".repeat(90) + " ann@example.com", 100)!;
  assert.ok(t.length <= 100);
  assert.ok(!t.includes("ann@"));
  assert.equal(cleanText("   "), null);
  assert.equal(cleanText("a\n\n b"), "a b");
});
