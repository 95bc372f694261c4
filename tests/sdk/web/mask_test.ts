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

Deno.test("web-sdk mask: internationalised addresses are replaced (letters of any script, escaped too)", () => {
  assert.equal(maskText("Schreib an jörg.müller@münchen.de bitte"), "Schreib an [email] bitte");
  assert.equal(maskText("連絡 ann@例え.jp まで"), "連絡 [email] まで");
  assert.equal(maskText("почта иван@пример.рф"), "почта [email]");
  assert.equal(maskText("ann@example.xn--p1ai"), "[email]");
  assert.equal(maskText("ann＠example.com"), "[email]");
  // decomposed letters (a letter and a combining mark)
  assert.equal(maskText("jo\u0308rg@mu\u0308nchen.de"), "[email]");
  // as a URL writes it: the path of /u/jane@münchen.de, the escaped @ and letters
  assert.equal(maskText("/u/jane@m%C3%BCnchen.de"), "/u/[email]");
  assert.equal(maskText("/u/j%C3%B6rg%40example.com/edit"), "/u/[email]/edit");
  assert.equal(maskText("/u/ivan@%D0%BF%D1%80%D0%B8%D0%BC%D0%B5%D1%80.%D1%80%D1%84"), "/u/[email]");
});

Deno.test("web-sdk mask: no internationalised email survives masking (property)", () => {
  const letter = fc.constantFrom(..."abcxyzäöüßéñçøåłžšαβγδжзиклм例え日本語中文한국ไทยअआ".split(""));
  const word = (max: number) => fc.array(letter, { minLength: 1, maxLength: max }).map((a) => a.join(""));
  const tld = fc.constantFrom("de", "jp", "рф", "中国", "com", "xn--p1ai");
  fc.assert(
    fc.property(fc.string(), word(20), word(15), tld, fc.string(), (before, l, d, t, after) => {
      const address = `${l}@${d}.${t}`;
      const out = maskText(`${before} ${address} ${after}`);
      assert.ok(!out.includes(address), out);
      const escaped = encodeURI(address);
      assert.ok(!maskText(`/u/${escaped}/`).includes(escaped), escaped);
    }),
  );
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
