/**
 * A body sent with Content-Encoding gzip or deflate (a log shipper's batch, a history.ndjson.gz) is decoded on
 * the ingest endpoints and the history import; another coding is a 415 naming it; data that is not what its
 * coding says is a 422; the size limit counts decoded bytes, so a small gzip of a huge body is still a 413.
 * The real app on a real KV file.
 */
import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { createApp } from "../../app.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../helpers/deps.ts";
import { createTenant } from "../helpers/tenant.ts";
import { event } from "../helpers/events.ts";

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
  return { deps, web, hits, history, hit, webBody, historyLine };
}

Deno.test("Content-Encoding gzip and deflate: decoded on web events, crawler hits and the history import", async () => {
  const w = await world();
  try {
    for (const coding of ["gzip", "deflate", "x-gzip"] as const) {
      const format = coding === "x-gzip" ? "gzip" : coding;
      const web = await w.web(await compress(w.webBody(), format), coding);
      assert.equal(web.status, 204, `web events ${coding}: ${web.text}`);
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
    for (const send of [w.web, w.hits, w.history]) {
      const br = await send("{}", "br");
      assert.equal(br.status, 415, br.text);
      assert.match(JSON.parse(br.text).error, /Content-Encoding br is not supported/);
      const bad = await send(enc.encode("this is not gzip at all"), "gzip");
      assert.equal(bad.status, 422, bad.text);
      assert.match(JSON.parse(bad.text).error, /not valid gzip data/);
    }
    // 3 MB of spaces inside valid JSON, gzipped to a few kilobytes: past the 1 MB limit once decoded
    const bomb = new Uint8Array(gzipSync(enc.encode(`{"events": [${" ".repeat(3 * 1024 * 1024)}]}`)));
    assert.ok(bomb.length < 10_000);
    const big = await w.hits(bomb, "gzip");
    assert.equal(big.status, 413, big.text);
  } finally {
    w.deps.kv.close();
  }
});
