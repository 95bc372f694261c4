import assert from "node:assert/strict";
import fc from "fast-check";
import { numbersOfJsonDict } from "../../../lib/query/columns/json_numbers.ts";

const reference = (dict: string[]) => {
  const out = [NaN];
  for (const s of dict) {
    const v = JSON.parse(s);
    out.push(typeof v === "number" && Number.isFinite(v) ? v : NaN);
  }
  return out;
};

Deno.test("query: numbers read from a property dictionary's bytes equal JSON.parse of each entry", () => {
  const value = fc.oneof(
    fc.integer(),
    fc.double({ noNaN: true }),
    fc.maxSafeInteger(),
    fc.integer({ min: -(2 ** 60), max: 2 ** 60 }).map((x) => x * 1000),
    fc.jsonValue(),
    fc.string(),
    fc.constantFrom(-0, 1e21, 1.5e-7, "12", "-", "1e3", null, true),
  );
  fc.assert(
    fc.property(fc.array(value, { maxLength: 30 }), (values) => {
      const dict = values.map((v) => JSON.stringify(v) ?? "null");
      const bytes = new TextEncoder().encode(JSON.stringify(dict));
      assert.deepEqual([...numbersOfJsonDict(bytes)], reference(dict));
    }),
    { numRuns: 500 },
  );
});
