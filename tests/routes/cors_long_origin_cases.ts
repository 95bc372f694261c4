/**
 * A CORS preflight from an Origin whose host is longer than DNS allows is refused like any origin that is not
 * allowed (403 FORBIDDEN), not a 500: its suffix lookup keys were over KV's 2 KiB key limit (found in review).
 * Real KV file, the app's HTTP interface.
 */
import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { testDeps } from "../helpers/deps.ts";

Deno.test("events preflight: an Origin host of 3,000 characters is a 403, not a 500", async () => {
  const dir = await Deno.makeTempDir();
  const kv = await Deno.openKv(`${dir}/kv.sqlite3`);
  try {
    const deps = await testDeps({ kv });
    const app = createApp(deps);
    for (const n of [100, 3000]) {
      const origin = "https://" + "a".repeat(n) + ".example.com";
      const res = await app.request("/v1/behavior/events", {
        method: "OPTIONS",
        headers: {
          origin,
          "access-control-request-method": "POST",
          "access-control-request-headers": "content-type",
        },
      });
      const body = await res.json();
      assert.equal(res.status, 403, `${n}: ${JSON.stringify(body)}`);
      assert.equal(body.code, "FORBIDDEN");
    }
    assert.deepEqual(deps.log.lines.filter((l) => l.includes('"level":"error"')), []);
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
