/**
 * A body sent with Content-Encoding gzip or deflate (a log shipper's batch, a history.ndjson.gz) is decoded on
 * the crawler-hit endpoint and the history import; another coding is a 415 naming it (the crawler-hit endpoint:
 * its spec's 422); data that is not what its coding says is a 422; the size limit counts decoded bytes, so a
 * small gzip of a huge body is still a 413, and the decoder inflates in slices, never a whole network chunk of
 * a bomb at once. The web-event endpoint (its key is in the body, so anyone could ask for the work) takes no
 * encoded body: 422, its spec's status. Real app, real KV file.
 */
import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { createApp } from "../../app.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../helpers/deps.ts";
import { adminCall, createTenant } from "../helpers/tenant.ts";
import { event } from "../helpers/events.ts";
import { decodedBody } from "../../lib/schemas/request_body.ts";

const enc = new TextEncoder();
const compress = async (text: string, format: CompressionFormat) =>
  new Uint8Array(
    await new Response(new Blob([text]).stream().pipeThrough(new CompressionStream(format))).arrayBuffer(),
  );

async function world() {
  const dir = await Deno.makeTempDir();
  const deps = await testDeps({ kv: await Deno.openKv(`${dir}/kv.sqlite3`) });
  deps.clock.set(Date.parse("2026-11-20T12:00:00Z"));
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN);
  const hit = () => ({
    event_type: "$crawl",
    event_id: crypto.randomUUID(),
    host: "acme.test",
    path: "/docs",
    status: 200,
    user_agent: "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    ip: "66.249.66.1",
  });
  const post = async (path: string, body: BodyInit, headers: Record<string, string>) => {
    const r = await app.request(path, { method: "POST", headers, body });
    return { status: r.status, text: await r.text() };
  };
  const web = (body: BodyInit, coding?: string) =>
    post("/v1/behavior/events", body, {
      "content-type": "application/json",
      origin: "https://acme.test",
      ...(coding ? { "content-encoding": coding } : {}),
    });
  const hits = (body: BodyInit, coding?: string) =>
    post("/v1/behavior/server-events", body, {
      "content-type": "application/json",
      authorization: `Bearer ${t.serverKey}`,
      ...(coding ? { "content-encoding": coding } : {}),
    });
  const history = (body: BodyInit, coding?: string) =>
    post(`/admin/v1/orgs/${t.org}/import?touchpoint=${t.touchpoint}`, body, {
      "content-type": "application/x-ndjson",
      authorization: `Bearer ${TEST_ADMIN_TOKEN}`,
      ...(coding ? { "content-encoding": coding } : {}),
    });
  const webBody = () =>
    JSON.stringify({
      api_key: t.publicKey,
      batch: [event({ event_id: crypto.randomUUID(), device_time: "2026-11-20T11:59:00.000Z" })],
    });
  const historyLine = () =>
    JSON.stringify({ kind: "hit", ...hit(), timestamp: "2026-11-20T10:00:00.000Z" }) + "\n";
  return { deps, app, web, hits, history, hit, webBody, historyLine };
}

Deno.test("Content-Encoding gzip and deflate: decoded on crawler hits and the history import, refused on web events", async () => {
  const w = await world();
  try {
    for (const coding of ["gzip", "deflate", "x-gzip"] as const) {
      const format = coding === "x-gzip" ? "gzip" : coding;
      const web = await w.web(await compress(w.webBody(), format), coding);
      assert.equal(web.status, 422, `web events ${coding}: ${web.text}`); // the spec's table for this endpoint
      assert.match(JSON.parse(web.text).error, /Content-Encoding .* send the batch uncompressed/);
      const hits = await w.hits(await compress(JSON.stringify({ events: [w.hit()] }), format), coding);
      assert.equal(hits.status, 202, hits.text);
      assert.equal(JSON.parse(hits.text).accepted, 1, `crawler hits ${coding}: ${hits.text}`);
      const imp = await w.history(await compress(w.historyLine() + w.historyLine(), format), coding);
      assert.equal(imp.status, 200, imp.text);
      assert.deepEqual(
        [JSON.parse(imp.text).imported, JSON.parse(imp.text).rejected_total],
        [2, 0],
        imp.text,
      );
    }
    // the body as sent still works, with or without "identity"
    assert.equal((await w.web(w.webBody(), "identity")).status, 204);
  } finally {
    w.deps.kv.close();
  }
});

Deno.test("Content-Encoding: another coding is a 415 naming it; bad gzip data a 422; the limit counts decoded bytes", async () => {
  const w = await world();
  try {
    for (const [send, status] of [[w.hits, 422], [w.history, 415]] as const) {
      // the crawler-hit endpoint answers bodies it cannot read with its spec's 422; the admin import with 415
      for (const coding of ["br", "constructor", "gzip, gzip"]) {
        const r = await send("{}", coding);
        assert.equal(r.status, status, r.text);
        assert.match(JSON.parse(r.text).error, new RegExp(`Content-Encoding ${coding} is not supported`));
      }
      const bad = await send(enc.encode("this is not gzip at all"), "gzip");
      assert.equal(bad.status, 422, bad.text);
      assert.match(JSON.parse(bad.text).error, /not valid gzip data/);
    }
    // the review import reads its file as sent: a compressed one is named, not misread as rows
    const org = await adminCall(w.app, TEST_ADMIN_TOKEN, "POST", "/orgs", {
      name: "Rev",
      plan: "professional",
    });
    const a = await adminCall(w.app, TEST_ADMIN_TOKEN, "POST", `/orgs/${org.id}/apps`, {
      store: "google_play",
      store_id: "com.acme.app",
    });
    const line = JSON.stringify({ id: "r1", rating: 5, text: "great", created_at: "2026-11-01T00:00:00Z" });
    const reviews = await w.app.request(`/admin/v1/orgs/${org.id}/apps/${a.id}/reviews/import`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${TEST_ADMIN_TOKEN}`,
        "content-type": "application/x-ndjson",
        "content-encoding": "gzip",
      },
      body: await compress(line + "\n", "gzip"),
    });
    assert.equal(reviews.status, 415, await reviews.text());
    // 3 MB of spaces inside valid JSON, gzipped to a few kilobytes: past the 1 MB limit once decoded
    const bomb = new Uint8Array(gzipSync(enc.encode(`{"events": [${" ".repeat(3 * 1024 * 1024)}]}`)));
    assert.ok(bomb.length < 10_000);
    const big = await w.hits(bomb, "gzip");
    assert.equal(big.status, 413, big.text);
  } finally {
    w.deps.kv.close();
  }
});

Deno.test("Content-Encoding: a 100 MB gzip bomb in one chunk is inflated in slices and refused near the limit", async () => {
  const w = await world();
  try {
    const bomb = await compress("\0".repeat(100 * 1024 * 1024), "gzip"); // ~100 KB
    assert.ok(bomb.length < 200_000);
    const req = () =>
      new Request("http://svc/", { method: "POST", body: bomb, headers: { "content-encoding": "gzip" } });
    // what the readers get: no piece larger than one slice's inflation (1 KB x deflate's ratio of ~1032)
    const reader = decodedBody(req())!.getReader();
    let decoded = 0, largest = 0;
    while (decoded <= 1024 * 1024) {
      const { done, value } = await reader.read();
      if (done) break;
      decoded += value.byteLength;
      largest = Math.max(largest, value.byteLength);
    }
    await reader.cancel();
    assert.ok(largest <= 1032 * 1024 + 1024, `a decoded piece of ${largest} bytes`);
    assert.ok(decoded <= 3 * 1024 * 1024, `${decoded} bytes decoded before the 1 MB limit was seen`);
    const big = await w.hits(bomb, "gzip");
    assert.equal(big.status, 413, big.text);
  } finally {
    w.deps.kv.close();
  }
});
