/** docs/read-api.md lists every tool with an example question and an input the tool accepts. */
import assert from "node:assert/strict";
import { TOOLS } from "../../tools/registry.ts";

Deno.test("docs/read-api.md: every tool has one example question and a valid input", async () => {
  const doc = await Deno.readTextFile(new URL("../../docs/read-api.md", import.meta.url));
  const rows = [...doc.matchAll(/^\| `([a-z_]+)` +\| ([^|]+?) +\| `(\{.*\})` +\|$/gm)];
  assert.deepEqual(rows.map((r) => r[1]).sort(), TOOLS.map((t) => t.name).sort(), "one row per tool");
  for (const [, name, question, input] of rows) {
    assert.match(question, /\?$|\.$/, name);
    const parsed = TOOLS.find((t) => t.name === name)!.input.safeParse(JSON.parse(input));
    assert.ok(parsed.success, `${name}: ${input}: ${JSON.stringify(parsed.error?.issues)}`);
  }
});
