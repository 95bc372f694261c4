/**
 * Hostile JSON through the real HTTP interface: deep nesting, too many keys or strings, lone surrogates and
 * bytes that are not UTF-8. The web-event endpoint answers 422 naming the path and stores nothing; on
 * server-events the hit is counted invalid (never a 422); in the admin import the line is rejected.
 */
import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { keys } from "../../lib/store/keys.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../helpers/deps.ts";
import { adminCall, createTenant } from "../helpers/tenant.ts";
import { event } from "../helpers/events.ts";

const GPTBOT =
  "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.3; +https://openai.com/gptbot";

async function setup() {
  const deps = await testDeps();
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN);
  const send = (path: string, body: BodyInit, headers: Record<string, string>) =>
    app.fetch(
      new Request(`http://svc${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body,
      }),
      { remoteAddr: { hostname: "81.2.69.160" } },
    );
  const postEvents = (body: BodyInit) => send("/v1/behavior/events", body, { origin: "https://acme.test" });
  const postHits = (body: BodyInit) =>
    send("/v1/behavior/server-events", body, { authorization: `Bearer ${t.serverKey}` });
  const count = async (prefix: Deno.KvKey) => {
    let n = 0;
    for await (const _ of deps.kv.list({ prefix })) n++;
    return n;
  };
  const storedEvents = () => count(keys.rawEvents(t.org, "production"));
  const storedHits = () => count(keys.rawHits(t.org, "production"));
  return { deps, app, t, postEvents, postHits, storedEvents, storedHits };
}

/** {"a":{"a":…}} `levels` deep, built as text so that nothing here recurses either. */
const nested = (levels: number, leaf = "1") => '{"a":'.repeat(levels) + leaf + "}".repeat(levels);
const bytes = (...parts: (string | number[])[]) => {
  const chunks = parts.map((p) => (typeof p === "string" ? new TextEncoder().encode(p) : Uint8Array.from(p)));
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) out.set(c, at), at += c.length;
  return out;
};

async function assert422(res: Response, message: RegExp) {
  const body = await res.json();
  assert.equal(res.status, 422, JSON.stringify(body));
  assert.equal(body.code, "VALIDATION_ERROR");
  assert.match(body.error, message);
}

Deno.test("bad input: properties, context or fingerprint nested past 32 levels is a 422 naming the path, however deep; nothing stored", async () => {
  const { t, postEvents, storedEvents } = await setup();
  const withProps = (propsJson: string, field = "properties") => {
    const ev = JSON.stringify(event());
    const at = ev.indexOf(`"properties":`);
    const body = field === "properties"
      ? ev.slice(0, at) + `"properties":${propsJson},` + ev.slice(ev.indexOf(`"device_time"`))
      : ev.slice(0, -1) + `,"${field}":${propsJson}}`;
    return `{"api_key":"${t.publicKey}","batch":[${body}]}`;
  };
  const path33 = "batch\\[0\\]\\.properties" + "\\.a".repeat(32) + ": nested deeper than 32 levels";
  // 32 levels are fine (properties itself is level 1); 33 are not; nor 2,700 or 3,600 (once stored but
  // unreadable, or a stack overflow), nor ~250,000 (as deep as a 1 MB body goes)
  const ok = await postEvents(withProps(nested(32, '"x"')));
  assert.equal(ok.status, 204, await ok.text());
  await assert422(await postEvents(withProps(nested(33))), new RegExp(path33));
  for (const levels of [2_700, 3_600]) {
    await assert422(await postEvents(withProps(nested(levels))), new RegExp(path33));
  }
  // past 10,000 levels the body is refused before parsing (V8's parse of such nesting is superlinear)
  await assert422(await postEvents(withProps(nested(120_000))), /body: nested deeper than 10000 levels/);
  await assert422(
    await postEvents(withProps(nested(40), "context")),
    /batch\[0\]\.context(\.a){32}: nested deeper than 32 levels/,
  );
  const deepFingerprint = `{"tag":"a","selector":"a","x":${"[".repeat(3_600)}${"]".repeat(3_600)}}`;
  await assert422(
    await postEvents(withProps(deepFingerprint, "fingerprint")),
    /batch\[0\]\.fingerprint\.x(\[0\]){31}: nested deeper than 32 levels/,
  );
  assert.equal(await storedEvents(), 1); // only the 32-level one
});

Deno.test("bad input: a 1 MB body of [[[[… is a 422, not a crash", async () => {
  const { postEvents, postHits, storedEvents, storedHits } = await setup();
  const body = "[".repeat(1_000_000);
  // refused by the linear scan before JSON.parse, which takes ~0.4 s over such nesting
  await assert422(await postEvents(body), /body: nested deeper than 10000 levels/);
  const closed = "[".repeat(500_000) + "]".repeat(500_000);
  await assert422(await postEvents(closed), /body: nested deeper than 10000 levels/);
  await assert422(await postHits(closed), /body: nested deeper than 10000 levels/);
  assert.equal(await storedEvents() + await storedHits(), 0);
});

Deno.test("bad input: more than 1,000 keys or strings in one free-form object is a 422 naming it", async () => {
  const { t, postEvents, storedEvents } = await setup();
  const manyKeys = Object.fromEntries(Array.from({ length: 1_001 }, (_, i) => [`k${i}`, i]));
  await assert422(
    await postEvents(JSON.stringify({ api_key: t.publicKey, batch: [event({ context: manyKeys })] })),
    /batch\[0\]\.context: holds more than 1000 keys/,
  );
  const manyStrings = { path: "/", list: Array.from({ length: 1_000 }, () => "s") };
  await assert422(
    await postEvents(JSON.stringify({ api_key: t.publicKey, batch: [event({ properties: manyStrings })] })),
    /batch\[0\]\.properties\.list\[999\]: holds more than 1000 strings/, // "/" was the first
  );
  const fine = { path: "/", list: Array.from({ length: 998 }, () => "s") };
  const res = await postEvents(
    JSON.stringify({ api_key: t.publicKey, batch: [event({ properties: fine })] }),
  );
  assert.equal(res.status, 204);
  assert.equal(await storedEvents(), 1);
});

Deno.test("bad input: a lone surrogate anywhere in an event is a 422 naming the path; nothing stored", async () => {
  const { t, postEvents, storedEvents } = await setup();
  const cases: [Record<string, unknown>, RegExp][] = [
    [
      { properties: { path: "/", note: "surr\ud800gate" } },
      /batch\[0\]\.properties\.note: must be well-formed Unicode/,
    ],
    [
      { properties: { path: "/", ["k\udc00"]: 1 } },
      /batch\[0\]\.properties\.k.: key: must be well-formed Unicode/,
    ],
    [{ anonymous_id: "a\ud800" }, /batch\[0\]\.anonymous_id: must be well-formed Unicode/],
    [{ screen: "\udfff" }, /batch\[0\]\.screen: must be well-formed Unicode/],
    [{ user_id: "u\ud83d" }, /batch\[0\]\.user_id: must be well-formed Unicode/],
    [
      { fingerprint: { tag: "button", selector: "b", text: "Buy \ud83d" } },
      /batch\[0\]\.fingerprint\.text: must be well-formed Unicode/,
    ],
  ];
  for (const [over, message] of cases) {
    // JSON.stringify writes a lone surrogate as an escape (\ud800), as a hostile sender would
    await assert422(
      await postEvents(JSON.stringify({ api_key: t.publicKey, batch: [event(over)] })),
      message,
    );
  }
  // a pair is a character like any other
  const emoji = await postEvents(
    JSON.stringify({
      api_key: t.publicKey,
      batch: [event({ properties: { path: "/", note: "\ud83d\ude00" } })],
    }),
  );
  assert.equal(emoji.status, 204);
  assert.equal(await storedEvents(), 1);
});

Deno.test("bad input: bytes that are not UTF-8 are a 422 naming the field they are in, not stored as U+FFFD", async () => {
  const { t, postEvents, storedEvents } = await setup();
  const ev = JSON.stringify(event({ properties: { path: "/", note: "NOTE" } }));
  const [before, after] = ev.split("NOTE");
  const head = `{"api_key":"${t.publicKey}","batch":[${before}`;
  for (const bad of [[0xff], [0xc3], [0xed, 0xa0, 0x80], /* an encoded surrogate */ [0xe2, 0x82]]) {
    await assert422(
      await postEvents(bytes(head, "caf", bad, after + "]}")),
      /batch\[0\]\.properties\.note: must be well-formed Unicode/,
    );
  }
  await assert422(await postEvents(bytes(head.slice(0, 5), [0xff], head.slice(5))), /body: not valid JSON/);
  const good = await postEvents(bytes(head, "caf", [0xc3, 0xa9], after + "]}"));
  assert.equal(good.status, 204);
  assert.equal(await storedEvents(), 1);
});

Deno.test("bad input: on server-events a deep, unpaired or undecodable hit is invalid, never a 422; the others store", async () => {
  const { postHits, storedHits } = await setup();
  const hit = (over: Record<string, unknown> = {}) => ({
    event_type: "$crawl",
    event_id: crypto.randomUUID(),
    host: "acme.test",
    path: "/pricing",
    user_agent: GPTBOT,
    ...over,
  });
  const deepIp = JSON.stringify(hit()).slice(0, -1) + `,"ip":${"[".repeat(3_600)}${"]".repeat(3_600)}}`;
  const hits = [
    JSON.stringify(hit()),
    deepIp,
    JSON.stringify(hit({ path: "/a\ud800" })),
    JSON.stringify(hit({ user_agent: GPTBOT + "\udc00" })),
    JSON.stringify(hit({ referer_host: "x\ud800.test" })),
    JSON.stringify(hit({ host: "acme.test\ud800" })),
    JSON.stringify(hit({ path: "/NOTUTF8" })),
  ];
  const [head, tail] = `{"events":[${hits.join(",")}]}`.split("NOTUTF8");
  const res = await postHits(bytes(head, [0xc0, 0xaf], tail));
  assert.equal(res.status, 202);
  assert.deepEqual(await res.json(), {
    accepted: 1,
    duplicates: 0,
    rejected: { invalid: 6, unknown_host: 0, not_crawler: 0 },
  });
  assert.equal(await storedHits(), 1);
});

Deno.test("bad input: in the admin import a deep, unpaired or undecodable line is rejected by number and path; the rest import", async () => {
  const { deps, app, t } = await setup();
  const at = new Date(deps.clock.now() - 86_400_000).toISOString();
  const line = (over: Record<string, unknown> = {}) =>
    JSON.stringify({ kind: "event", received_at: at, ...event({ device_time: at }), ...over });
  const lines = [
    line(),
    line().slice(0, -1) + `,"context":${nested(3_600)}}`,
    line({ properties: { path: "/", note: "surr\ud800gate" } }),
    line({ properties: { path: "/", note: "BAD" } }),
    line({ user_agent: "Mozilla\udc00" }),
    JSON.stringify({
      kind: "hit",
      event_type: "$crawl",
      event_id: crypto.randomUUID(),
      host: "acme.test",
      path: "/\ud800",
      user_agent: GPTBOT,
      timestamp: at,
    }),
    line(),
  ].join("\n");
  const [head, tail] = lines.split("BAD");
  const res = await app.request(
    `/admin/v1/orgs/${t.org}/import?touchpoint=${t.touchpoint}&environment=production`,
    {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      body: bytes(head, [0xff, 0xfe], tail),
    },
  );
  const result = await res.json();
  assert.equal(res.status, 200, JSON.stringify(result));
  assert.equal(result.imported, 2);
  assert.deepEqual(result.rejected.map((r: { line: number }) => r.line), [2, 3, 4, 5, 6]);
  assert.match(result.rejected[0].error, /^context(\.a){32}: nested deeper than 32 levels/);
  assert.match(result.rejected[1].error, /^properties\.note: must be well-formed Unicode/);
  assert.match(result.rejected[2].error, /^properties\.note: must be well-formed Unicode/);
  assert.match(result.rejected[3].error, /^user_agent: must be well-formed Unicode/);
  assert.match(result.rejected[4].error, /^path: must be well-formed Unicode/);
});

Deno.test("bad input: admin names must be well-formed Unicode (they are shown in answers)", async () => {
  const { app } = await setup();
  await assert422(
    await app.request("/admin/v1/orgs", {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Acme \ud800" }),
    }),
    /name: must be well-formed Unicode/,
  );
  const org = await adminCall(app, TEST_ADMIN_TOKEN, "POST", "/orgs", { name: "Café \ud83d\ude00" });
  assert.equal(org.name, "Café \ud83d\ude00");
});

Deno.test('bad input: a "__proto__" key in a free-form object is refused by name (a copy would drop it unseen)', async () => {
  const { t, postEvents, storedEvents } = await setup();
  const ev = JSON.stringify(event()).replace(`"properties":{`, `"properties":{"__proto__":{"x":1},`);
  await assert422(
    await postEvents(`{"api_key":"${t.publicKey}","batch":[${ev}]}`),
    /batch\[0\]\.properties: key "__proto__" is not allowed/,
  );
  assert.equal(await storedEvents(), 0);
});
