import assert from "node:assert/strict";
import { serialize } from "node:v8";
import fc from "fast-check";
import { KV_VALUE_LIMIT, storedBytes } from "../../../lib/store/stored_size.ts";

Deno.test("stored size: node:v8 counts exactly what KV allows; storedBytes is exact for large values", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    // one two-byte string: V8 keeps it at 2 bytes a character
    const atLimit = ["x", "日".repeat(32_760)];
    const overBy = (v: unknown) => storedBytes(v) - KV_VALUE_LIMIT;
    const fit = [atLimit];
    while (overBy(fit[0]) > 0) fit[0] = ["x", "日".repeat((fit[0][1] as string).length - 1)];
    assert.equal(storedBytes(fit[0]), serialize(fit[0]).byteLength);
    await kv.set(["fits"], fit[0]); // at most the limit: accepted
    const over = ["x" + "x".repeat(KV_VALUE_LIMIT - storedBytes(fit[0]) + 1), fit[0][1]];
    assert.ok(storedBytes(over) > KV_VALUE_LIMIT);
    await assert.rejects(() => kv.set(["over"], over), /too large/);
    // the JSON character count would have let this through: 32,761 characters
    assert.ok(JSON.stringify(over).length < KV_VALUE_LIMIT);
  } finally {
    kv.close();
  }
});

Deno.test("stored size: never below V8's count, for any JSON value (worst cases included)", () => {
  const worst = [
    Array(2000).fill(0.1),
    JSON.parse("[".repeat(900) + "]".repeat(900)),
    Array(1500).fill([]),
    Array(1500).fill({}),
    Array(1000).fill("日"),
    { a: "日".repeat(3000) },
    Array(800).fill(-1.5e-300),
  ];
  for (const v of worst) assert.ok(storedBytes(v) >= serialize(v).byteLength, JSON.stringify(v).slice(0, 40));
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 6 }), (v) => storedBytes(v) >= serialize(v).byteLength),
    { numRuns: 2000 },
  );
});
