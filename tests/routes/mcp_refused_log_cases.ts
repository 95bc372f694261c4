/**
 * A refused MCP exchange is logged, but the client's protocol-version header is its own text: one that is not
 * a revision date is refused before the transport (which quotes it in its messages), with a log line and an
 * answer that name the header, never its value (an address or other identifier a client put there).
 */
import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../helpers/deps.ts";
import { createTenant } from "../helpers/tenant.ts";

Deno.test("mcp: the 'request refused' log line never quotes a client's protocol-version header", async () => {
  const dir = await Deno.makeTempDir();
  const deps = await testDeps({ kv: await Deno.openKv(`${dir}/kv.sqlite3`) });
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN);
  try {
    const call = (version: string) =>
      app.request("/mcp", {
        method: "POST",
        headers: {
          authorization: `Bearer ${t.readKey}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": version,
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
      });
    const planted = "visitor-7f3a9c 81.2.69.160 jane@example.com";
    const res = await call(planted);
    assert.equal(res.status, 400);
    const answer = await res.text();
    assert.match(answer, /MCP-Protocol-Version header must be a protocol revision date/, answer);
    assert.ok(!answer.includes("81.2.69.160"), answer);
    const refused = deps.log.lines.filter((l) => l.includes("mcp request refused"));
    assert.equal(refused.length, 1, deps.log.lines.join("\n"));
    assert.match(refused[0], /MCP-Protocol-Version header is not a revision date/);
    for (const word of ["visitor-7f3a9c", "81.2.69.160", "jane@example.com"]) {
      assert.ok(!deps.log.lines.some((l) => l.includes(word)), `${word} logged`);
    }
    // a revision the service does not speak still reaches the transport, which answers it
    assert.equal((await call("1999-01-01")).status, 400);
  } finally {
    deps.kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
