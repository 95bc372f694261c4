/**
 * A JSON-RPC batch (an array body) under protocol revision 2026-07-28, which has no batches, is refused with a
 * message naming that, not as an unsupported revision (review #19); under a 2025 revision, which has them, the
 * SDK's fallback answers both requests. Real app on a real KV file, read key.
 */
import assert from "node:assert/strict";
import { openSite } from "../helpers/site.ts";

Deno.test("mcp: a batch under 2026-07-28 is refused as a batch; under 2025-06-18 it is answered", async () => {
  const site = await openSite({
    now: Date.parse("2026-11-18T09:30:00Z"),
    config: { readKeyRatePerMinute: 1e6 },
  });
  try {
    const post = (version: string) =>
      site.app.request("/mcp", {
        method: "POST",
        headers: {
          authorization: `Bearer ${site.t.readKey}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": version,
        },
        body: JSON.stringify([
          { jsonrpc: "2.0", id: 1, method: "ping" },
          { jsonrpc: "2.0", id: 2, method: "tools/list" },
        ]),
      });
    const now = await post("2026-07-28");
    assert.equal(now.status, 400);
    const body = await now.json();
    assert.equal(body.error.code, -32600);
    assert.match(body.error.message, /batches are not part of protocol revision 2026-07-28/);
    assert.doesNotMatch(body.error.message, /Unsupported protocol version/);

    const before = await post("2025-06-18");
    assert.equal(before.status, 200);
    const text = await before.text();
    assert.match(text, /"id":1/);
    assert.match(text, /"id":2/);
  } finally {
    await site.close();
  }
});
