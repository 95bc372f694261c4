import assert from "node:assert/strict";
import fc from "fast-check";
import { decodeUtf8, NOT_UTF8 } from "../../lib/text.ts";
import { FREE_FORM_LIMITS, jsonProblem } from "../../lib/schemas/json_limits.ts";

Deno.test("decodeUtf8: valid UTF-8 decodes as TextDecoder does; any other byte becomes the NOT_UTF8 marker", () => {
  const plain = new TextDecoder();
  fc.assert(
    fc.property(fc.string({ unit: "grapheme" }), (s) => {
      assert.equal(decodeUtf8(new TextEncoder().encode(s)), s);
    }),
  );
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 64 }), (b) => {
      const got = decodeUtf8(b);
      const valid = (() => {
        try {
          new TextDecoder("utf-8", { fatal: true }).decode(b);
          return true;
        } catch {
          return false;
        }
      })();
      assert.equal(got.isWellFormed(), valid); // the marker is a lone surrogate: never well-formed
      // the same text as the lenient decoder's, where it put U+FFFD for what we mark
      const lenient = plain.decode(b);
      if (!lenient.includes("\ufffd") || valid) return;
      assert.equal(got.replaceAll(NOT_UTF8, ""), lenient.replaceAll("\ufffd", ""));
    }),
    { numRuns: 2_000 },
  );
  assert.equal(decodeUtf8(Uint8Array.from([0x61, 0xed, 0xa0, 0x80, 0x62])), `a${NOT_UTF8.repeat(3)}b`);
});

Deno.test("jsonProblem: walks any depth without recursion and names the first path past a limit", () => {
  let deep: unknown = 1;
  for (let i = 0; i < 200_000; i++) deep = [deep];
  assert.deepEqual(jsonProblem(deep)?.path, new Array(32).fill(0));
  assert.equal(jsonProblem({ a: [{ b: "ok" }] }), null);
  assert.deepEqual(jsonProblem({ a: [{ b: "x\ud800" }] }), {
    path: ["a", 0, "b"],
    message: "must be well-formed Unicode (no lone surrogate, no bytes that are not UTF-8)",
  });
  const limits = { ...FREE_FORM_LIMITS, keys: 2 };
  assert.equal(jsonProblem({ a: 1, b: 2 }, limits), null);
  assert.deepEqual(jsonProblem({ a: 1, b: { c: 3 } }, limits), {
    path: ["b"],
    message: "holds more than 2 keys",
  });
});
