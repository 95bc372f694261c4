/** The text scanner (no encoding first) finds what the byte scanner finds in the same text's UTF-8 bytes. */
import assert from "node:assert/strict";
import fc from "fast-check";
import { type BodyLimits, JsonShapeScanner, jsonTextProblem } from "../../../lib/schemas/json_limits.ts";

const pieces = fc.oneof(
  fc.constantFrom("[", "]", "{", "}", '"', "\\", '\\"', ":", ",", "é", "€", "😀", "\ud800", "\udc00", "a"),
  fc.string({ unit: "binary", maxLength: 8 }),
);

Deno.test("jsonTextProblem: the byte scanner's answer on the text's UTF-8 bytes", () => {
  fc.assert(
    fc.property(
      fc.array(pieces, { maxLength: 60 }),
      fc.record({
        depth: fc.integer({ min: 1, max: 6 }),
        keys: fc.integer({ min: 0, max: 4 }),
        strings: fc.integer({ min: 0, max: 4 }),
        stringChars: fc.integer({ min: 1, max: 12 }),
      }),
      (parts, limits: BodyLimits) => {
        const text = parts.join("");
        const bytes = new JsonShapeScanner(limits).feed(new TextEncoder().encode(text));
        assert.equal(jsonTextProblem(text, limits), bytes);
      },
    ),
    { numRuns: 3000 },
  );
});

Deno.test("jsonTextProblem: a megabyte of '[' is refused at the first level past the limit", () => {
  assert.equal(
    jsonTextProblem("[".repeat(1_000_000), {
      depth: 10_000,
      keys: Infinity,
      strings: Infinity,
      stringChars: Infinity,
    }),
    "nested deeper than 10000 levels",
  );
});
