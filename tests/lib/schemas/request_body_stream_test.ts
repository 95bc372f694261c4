/**
 * A JSON body's shape is checked chunk by chunk as it arrives: a body past the nesting, count or string
 * limits is refused at the first chunk that passes them, before the rest is read, held or decoded.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { createApp } from "../../../app.ts";
import { isFailure } from "../../../lib/errors.ts";
import {
  MB,
  PER_VALUE,
  READ_BODY_LIMIT,
  readGuardedJson,
  readJson,
  readJsonBody,
} from "../../../lib/schemas/request_body.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../../helpers/deps.ts";
import { createTenant } from "../../helpers/tenant.ts";

const CHUNK = 64 * 1024;

/** `total` bytes of `byte` in 64 KB chunks made on demand, after `head`; counts what the reader pulled. */
function streamOf(byte: string, total: number, head = "") {
  const piece = new TextEncoder().encode(byte.repeat(CHUNK));
  const state = { pulled: 0 };
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      if (head) c.enqueue(new TextEncoder().encode(head));
    },
    pull(c) {
      if (state.pulled >= total) return c.close();
      state.pulled += piece.length;
      c.enqueue(piece);
    },
  });
  return { stream, state };
}

const post = (body: ReadableStream<Uint8Array> | string, headers: Record<string, string> = {}) =>
  new Request("http://svc/x", {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
    // @ts-ignore: a streamed request body needs it (not yet in every lib's RequestInit)
    duplex: "half",
  });

async function refusal(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected a refusal");
}

Deno.test("body stream: a megabyte of '[' to ingest is refused after its first chunk, not read whole", async () => {
  const s = streamOf("[", MB);
  const err = await refusal(readJson(post(s.stream), MB, PER_VALUE));
  assert.ok(isFailure(err, "invalid"), String(err));
  assert.match(err.message, /body: nested deeper than 10000 levels/);
  assert.ok(s.state.pulled <= 2 * CHUNK, `pulled ${s.state.pulled} bytes`);
});

Deno.test("body stream: the endpoints' limits (depth, string length) refuse at the chunk that passes them", async () => {
  const deep = streamOf("[", MB);
  const err = await refusal(readJsonBody(post(deep.stream), z.unknown()));
  assert.match(err.message, /body: nested deeper than 64 levels/);
  assert.ok(deep.state.pulled <= 2 * CHUNK, `pulled ${deep.state.pulled} bytes`);

  const long = streamOf("x", MB, '{"a":"');
  const err2 = await refusal(readJsonBody(post(long.stream), z.unknown()));
  assert.match(err2.message, /body: holds a string longer than 65536 bytes/);
  assert.ok(long.state.pulled <= 3 * CHUNK, `pulled ${long.state.pulled} bytes`);
});

Deno.test("body stream: a body within the limits, split anywhere, parses as whole text does", async () => {
  const text = JSON.stringify({ a: ['x\\"]', { b: "é😀[" }], c: 1 });
  const bytes = new TextEncoder().encode(text);
  for (let cut = 0; cut <= bytes.length; cut++) {
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(bytes.slice(0, cut));
        c.enqueue(bytes.slice(cut));
        c.close();
      },
    });
    assert.deepEqual(await readJsonBody(post(stream), z.unknown()), JSON.parse(text));
  }
  // the ingest shape allows what the whole-body limits refuse: values are guarded one by one there
  const wide = JSON.stringify({ s: "y".repeat(70_000) });
  assert.deepEqual(await readJson(post(wide), MB, PER_VALUE), JSON.parse(wide));
  await assert.rejects(readJson(post(""), MB, PER_VALUE), /body: empty/);
  await assert.rejects(readJson(post("[1,"), MB, PER_VALUE), /body: not valid JSON/);
});

Deno.test("body stream: through the events endpoint, a streamed megabyte of '[' is a 422 after one chunk", async () => {
  const deps = await testDeps();
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN, { plan: "enterprise" });
  const s = streamOf("[", MB);
  const res = await app.fetch(
    new Request("http://svc/v1/behavior/events", {
      method: "POST",
      headers: { "content-type": "application/json", origin: `https://${t.domain}` },
      body: s.stream,
      // @ts-ignore: a streamed request body needs it
      duplex: "half",
    }),
  );
  assert.equal(res.status, 422);
  const body = await res.json();
  assert.equal(body.code, "VALIDATION_ERROR");
  assert.match(body.error, /nested deeper than 10000 levels/);
  assert.ok(s.state.pulled <= 2 * CHUNK, `pulled ${s.state.pulled} bytes`);
});

Deno.test("body stream: readGuardedJson refuses at the chunk past a limit and keeps 'not JSON' apart", async () => {
  const deep = streamOf("[", MB);
  const err = await refusal(readGuardedJson(post(deep.stream), READ_BODY_LIMIT * 32));
  assert.match(err.message, /body: nested deeper than 64 levels/);
  assert.ok(deep.state.pulled <= 2 * CHUNK, `pulled ${deep.state.pulled} bytes`);
  const notJson = await readGuardedJson(post("{period"), READ_BODY_LIMIT);
  assert.deepEqual(notJson, { ok: false, notJson: true, message: "body: not valid JSON", text: "{period" });
  const lone = await readGuardedJson(post('{"a":"\\ud800"}'), READ_BODY_LIMIT);
  assert.equal(lone.ok, false);
  assert.deepEqual(await readGuardedJson(post('{"period":"last_7_days"}'), READ_BODY_LIMIT), {
    ok: true,
    empty: false,
    value: { period: "last_7_days" },
    text: '{"period":"last_7_days"}',
  });
  // an empty body (whitespace only) is told apart from one that is not JSON
  assert.deepEqual(await readGuardedJson(post(" \n"), READ_BODY_LIMIT), {
    ok: true,
    empty: true,
    value: undefined,
    text: " \n",
  });
});
