/** History import through the real server process: a streamed NDJSON body with bad lines mixed in. */
import assert from "node:assert/strict";
import { startServer } from "../helpers/server.ts";
import { createTenant } from "../helpers/tenant.ts";
import { siteLines } from "../../lib/demo/site.ts";

Deno.test("e2e import: a streamed history imports whole, bad lines are named, a second import is all duplicates", async () => {
  const srv = await startServer();
  try {
    const api = { request: (p: string, i?: RequestInit) => fetch(srv.url + p, i) };
    const t = await createTenant(api, srv.adminToken);
    const site = [
      ...siteLines({
        org: t.org,
        touchpoint: t.touchpoint,
        host: t.domain,
        events: 400,
        hits: 40,
        days: 10,
        seed: 11,
        end: Date.now(),
      }),
    ];
    const lines = [
      ...site.slice(0, 100),
      "{not json",
      ...site.slice(100, 300),
      '{"kind":"other"}',
      ...site.slice(300),
    ];
    const body = () => {
      const enc = new TextEncoder();
      let at = 0;
      return new ReadableStream<Uint8Array>({
        pull(c) {
          if (at >= lines.length) return c.close();
          c.enqueue(enc.encode(lines.slice(at, at += 50).join("\n") + "\n")); // 50 lines a chunk
        },
      });
    };
    const post = () =>
      fetch(`${srv.url}/admin/v1/orgs/${t.org}/import?touchpoint=${t.touchpoint}&environment=production`, {
        method: "POST",
        headers: { authorization: `Bearer ${srv.adminToken}`, "content-type": "application/x-ndjson" },
        body: body(),
      });
    const first = await (await post()).json();
    assert.deepEqual(first.rejected, [
      { line: 101, error: "not a JSON object" },
      { line: 302, error: 'kind must be "event" or "hit"' },
    ]);
    assert.equal(first.imported, site.length);
    const again = await (await post()).json();
    assert.deepEqual([again.imported, again.duplicates, again.rejected_total], [0, site.length, 2]);
  } finally {
    await srv.stop();
  }
});
