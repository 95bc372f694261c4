import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { keys } from "../../lib/store/keys.ts";
import { unpackEvent } from "../../lib/store/event_codec.ts";
import type { StoredEvent } from "../../lib/store/records.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../helpers/deps.ts";
import { adminCall, createTenant } from "../helpers/tenant.ts";
import { event } from "../helpers/events.ts";

const ORIGIN = "https://acme.test";

async function setup() {
  const deps = await testDeps();
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN);
  const post = (body: unknown, headers: Record<string, string> = { origin: ORIGIN }, info?: unknown) =>
    app.fetch(
      new Request("http://svc/v1/behavior/events", {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: typeof body === "string" ? body : JSON.stringify(body),
      }),
      info ?? { remoteAddr: { hostname: "81.2.69.160" } },
    );
  const stored = async (env = "production") => {
    const out: StoredEvent[] = [];
    for await (const e of deps.kv.list<StoredEvent>({ prefix: keys.rawEvents(t.org, env as "production") })) {
      out.push(unpackEvent(e.value));
    }
    return out;
  };
  return { deps, app, t, post, stored };
}

Deno.test("events: a valid batch is stored and answered 204 with an empty body", async () => {
  const { t, post, stored } = await setup();
  const res = await post({
    api_key: t.publicKey,
    batch: [event(), event({ sequence_no: 1, event_type: "signup" })],
  });
  assert.equal(res.status, 204);
  assert.equal(await res.text(), "");
  const evs = await stored();
  assert.equal(evs.length, 2);
  assert.deepEqual(evs.map((e) => e.event_type).sort(), ["$pageview", "signup"]);
  assert.equal(evs[0].touchpoint, t.touchpoint);
});

Deno.test("events: a text/plain body (beacon fallback) parses like JSON", async () => {
  const { t, post, stored } = await setup();
  const res = await post(JSON.stringify({ api_key: t.publicKey, batch: [event()] }), {
    origin: ORIGIN,
    "content-type": "text/plain;charset=UTF-8",
  });
  assert.equal(res.status, 204);
  assert.equal((await stored()).length, 1);
});

Deno.test("events: repeats inside a batch, across batches and in concurrent requests store once", async () => {
  const { t, post, stored } = await setup();
  const a = event();
  const b = event({ sequence_no: 1 });
  assert.equal((await post({ api_key: t.publicKey, batch: [a, a, b] })).status, 204);
  assert.equal((await post({ api_key: t.publicKey, batch: [a, b] })).status, 204);
  const batch = Array.from({ length: 60 }, (_, i) => event({ sequence_no: i }));
  const results = await Promise.all(Array.from({ length: 5 }, () => post({ api_key: t.publicKey, batch })));
  assert.deepEqual(results.map((r) => r.status), [204, 204, 204, 204, 204]);
  const ids = (await stored()).map((e) => e.id);
  assert.equal(ids.length, 62);
  assert.equal(new Set(ids).size, 62);
});

Deno.test("events: a UUID sent in upper case is the same event as in lower case", async () => {
  const { t, post, stored } = await setup();
  const a = event();
  const upper = { ...a, event_id: a.event_id.toUpperCase() };
  assert.notEqual(upper.event_id, a.event_id);
  assert.equal((await post({ api_key: t.publicKey, batch: [upper, a] })).status, 204);
  assert.equal((await post({ api_key: t.publicKey, batch: [a] })).status, 204);
  assert.deepEqual((await stored()).map((e) => e.id), [a.event_id]);
});

Deno.test("events: every stored event has its dedupe key (a retry after a failure is safe)", async () => {
  const { deps, t, post, stored } = await setup();
  await post({
    api_key: t.publicKey,
    batch: Array.from({ length: 30 }, (_, i) => event({ sequence_no: i })),
  });
  for (const ev of await stored()) {
    assert.notEqual((await deps.kv.get(keys.dedupe(t.org, ev.id))).value, null);
  }
});

Deno.test("events: 422 names the offending path for each bad field", async () => {
  const { t, post, stored } = await setup();
  const cases: [Record<string, unknown>, string][] = [
    [{ event_id: "not-a-uuid" }, "batch[0].event_id: must be a UUID"],
    [{ anonymous_id: "" }, "batch[0].anonymous_id"],
    [{ anonymous_id: "x".repeat(129) }, "batch[0].anonymous_id"],
    [{ user_id: "x".repeat(129) }, "batch[0].user_id"],
    [{ user_id: 5 }, "batch[0].user_id"],
    [{ session_id: "" }, "batch[0].session_id"],
    [{ sequence_no: -1 }, "batch[0].sequence_no"],
    [{ sequence_no: 1.5 }, "batch[0].sequence_no: must be an integer"],
    // integers past 2^53 - 1 are refused for their size, not called no integer
    [{ sequence_no: 2 ** 53 }, "batch[0].sequence_no: must be at most 9007199254740991"],
    [{ sequence_no: 1e21 }, "batch[0].sequence_no: must be at most 9007199254740991"],
    [{ sequence_no: "3" }, "batch[0].sequence_no: must be an integer"],
    [{ platform: "desktop" }, "batch[0].platform"],
    [{ event_type: "" }, "batch[0].event_type"],
    [{ event_type: "e".repeat(121) }, "batch[0].event_type"],
    // a crawler hit belongs to the server endpoint: as a web event it read as a visitors' custom event
    [
      { event_type: "$crawl" },
      "batch[0].event_type: $crawl is a crawler hit: send it to /v1/behavior/server-events",
    ],
    [{ screen: "s".repeat(2049) }, "batch[0].screen"],
    [{ fingerprint: { tag: "button" } }, "batch[0].fingerprint.selector"],
    [{ fingerprint: "button" }, "batch[0].fingerprint"],
    [{ properties: [] }, "batch[0].properties"],
    [{ properties: undefined }, "batch[0].properties"],
    [{ context: "x" }, "batch[0].context"],
    [{ device_time: "yesterday" }, "batch[0].device_time"],
    [{ extra: 1 }, 'batch[0]: unknown field "extra"'],
  ];
  for (const [over, expected] of cases) {
    const res = await post({ api_key: t.publicKey, batch: [event(over)] });
    assert.equal(res.status, 422, JSON.stringify(over));
    const body = await res.json();
    assert.equal(body.code, "VALIDATION_ERROR");
    assert.ok(body.error.includes(expected), `${body.error} should name ${expected}`);
    assert.ok(!Number.isNaN(Date.parse(body.timestamp)));
  }
  assert.equal((await stored()).length, 0);
});

Deno.test("events: 422 for a bad envelope: not JSON, unknown top-level field, batch of 0 or 201", async () => {
  const { t, post } = await setup();
  const bad: [unknown, string][] = [
    ["{not json", "not valid JSON"],
    [{ api_key: t.publicKey, batch: [event()], extra: true }, 'unknown field "extra"'],
    [{ api_key: t.publicKey, batch: [] }, "batch: must hold 1 to 200 events"],
    [
      { api_key: t.publicKey, batch: Array.from({ length: 201 }, () => event()) },
      "batch: must hold 1 to 200",
    ],
    [{ api_key: "pk_wrong", batch: [event()] }, "api_key"],
    [{ batch: [event()] }, "api_key"],
  ];
  for (const [body, expected] of bad) {
    const res = await post(body);
    assert.equal(res.status, 422);
    assert.ok((await res.json()).error.includes(expected), expected);
  }
});

Deno.test("events: 422 VALIDATION_ERROR for a body over 1 MB (the web endpoint's statuses have no 413)", async () => {
  const { t, post } = await setup();
  const big = event({ properties: { path: "/", blob: "x".repeat(1_100_000) } });
  const res = await post({ api_key: t.publicKey, batch: [big] });
  assert.equal(res.status, 422);
  const body = await res.json();
  assert.equal(body.code, "VALIDATION_ERROR");
  assert.match(body.error, /larger than 1048576 bytes/);
});

Deno.test("events: 401 for an unknown key, a revoked key, an inactive org, an archived touchpoint, a disabled environment", async () => {
  const { app, t, post } = await setup();
  const batch = () => [event()];
  const expect401 = async (apiKey: string, why: string) => {
    const res = await post({ api_key: apiKey, batch: batch() });
    assert.equal(res.status, 401, why);
    assert.equal((await res.json()).code, "UNAUTHORIZED");
  };
  await expect401("svc_pk_unknownunknown", "unknown");
  // environment off
  await adminCall(app, TEST_ADMIN_TOKEN, "PATCH", `/orgs/${t.org}/touchpoints/${t.touchpoint}`, {
    environments: { production: { enabled: false } },
  });
  await expect401(t.publicKey, "environment off");
  await adminCall(app, TEST_ADMIN_TOKEN, "PATCH", `/orgs/${t.org}/touchpoints/${t.touchpoint}`, {
    environments: { production: { enabled: true } },
  });
  assert.equal((await post({ api_key: t.publicKey, batch: batch() })).status, 204);
  // archived
  await adminCall(app, TEST_ADMIN_TOKEN, "PATCH", `/orgs/${t.org}/touchpoints/${t.touchpoint}`, {
    archived: true,
  });
  await expect401(t.publicKey, "archived");
  await adminCall(app, TEST_ADMIN_TOKEN, "PATCH", `/orgs/${t.org}/touchpoints/${t.touchpoint}`, {
    archived: false,
  });
  // inactive org
  await adminCall(app, TEST_ADMIN_TOKEN, "PATCH", `/orgs/${t.org}`, { active: false });
  await expect401(t.publicKey, "inactive org");
  await adminCall(app, TEST_ADMIN_TOKEN, "PATCH", `/orgs/${t.org}`, { active: true });
  // revoked
  const list = await adminCall(app, TEST_ADMIN_TOKEN, "GET", `/orgs/${t.org}/keys`);
  const pub = list.keys.find((k: { kind: string; environment: string }) =>
    k.kind === "public" && k.environment === "production"
  );
  await adminCall(app, TEST_ADMIN_TOKEN, "DELETE", `/orgs/${t.org}/keys/${pub.id}`);
  await expect401(t.publicKey, "revoked");
});

Deno.test("events: 403 when the origin is missing or outside the key's environment; overlapping domains decide by the most specific", async () => {
  const { t, post, stored } = await setup();
  const send = (apiKey: string, origin?: string) =>
    post({ api_key: apiKey, batch: [event()] }, origin ? { origin } : {});
  assert.equal((await send(t.publicKey)).status, 403, "website keys need an Origin");
  assert.equal((await send(t.publicKey, "https://evil.test")).status, 403);
  assert.equal((await send(t.publicKey, "https://notacme.test")).status, 403);
  assert.equal((await send(t.publicKey, "https://www.acme.test")).status, 204, "subdomain");
  assert.equal((await send(t.publicKey, "https://staging.acme.test")).status, 403, "belongs to staging");
  assert.equal((await send(t.publicKey, "https://a.staging.acme.test")).status, 403, "belongs to staging");
  assert.equal(
    (await send(t.publicKey, "http://localhost:3000")).status,
    403,
    "production key: no localhost",
  );
  assert.equal(
    (await send(t.devPublicKey, "http://localhost:5173")).status,
    204,
    "development key: localhost",
  );
  assert.equal(
    (await send(t.devPublicKey, "http://127.0.0.1:8080")).status,
    204,
    "development key: 127.0.0.1",
  );
  assert.equal((await send(t.devPublicKey, "https://dev.acme.test")).status, 204);
  assert.equal((await send(t.devPublicKey, "https://acme.test")).status, 403);
  const res = await send(t.publicKey, "https://evil.test");
  assert.equal((await res.json()).code, "FORBIDDEN");
  assert.equal(res.headers.get("access-control-allow-origin"), null);
  assert.equal((await stored()).length, 1);
});

Deno.test("events: a key's allowed origins are accepted; app keys do not check the origin", async () => {
  const { app, t, post } = await setup();
  const extra = await adminCall(app, TEST_ADMIN_TOKEN, "POST", `/orgs/${t.org}/keys`, {
    kind: "public",
    environment: "production",
    touchpoint: t.touchpoint,
    allowed_origins: ["https://shop.partner.test"],
  });
  assert.equal(
    (await post({ api_key: extra.key, batch: [event()] }, { origin: "https://shop.partner.test" })).status,
    204,
  );
  assert.equal(
    (await post({ api_key: extra.key, batch: [event()] }, { origin: "https://partner.test" })).status,
    403,
  );
  const ios = await adminCall(app, TEST_ADMIN_TOKEN, "POST", `/orgs/${t.org}/touchpoints`, {
    name: "iOS",
    kind: "ios",
  });
  const iosKey = await adminCall(app, TEST_ADMIN_TOKEN, "POST", `/orgs/${t.org}/keys`, {
    kind: "public",
    environment: "production",
    touchpoint: ios.id,
  });
  assert.equal((await post({ api_key: iosKey.key, batch: [event({ platform: "ios" })] }, {})).status, 204);
});

Deno.test("events: 429 with Retry-After once the key's per-minute limit is spent; the next minute admits again", async () => {
  const { deps, app, t, post } = await setup();
  const limited = await adminCall(app, TEST_ADMIN_TOKEN, "POST", `/orgs/${t.org}/keys`, {
    kind: "public",
    environment: "production",
    touchpoint: t.touchpoint,
    rate_per_minute: 3,
  });
  for (let i = 0; i < 3; i++) {
    assert.equal((await post({ api_key: limited.key, batch: [event()] })).status, 204);
  }
  const res = await post({ api_key: limited.key, batch: [event()] });
  assert.equal(res.status, 429);
  assert.equal((await res.json()).code, "RATE_LIMIT_EXCEEDED");
  const retry = Number(res.headers.get("retry-after"));
  assert.ok(Number.isInteger(retry) && retry >= 1 && retry <= 60, `Retry-After ${retry}`);
  deps.clock.advance(retry * 1000);
  assert.equal((await post({ api_key: limited.key, batch: [event()] })).status, 204);
});

Deno.test("events: 500 OPERATION_FAILED without a stack trace when storage fails", async () => {
  const { deps, t, post } = await setup();
  const realAtomic = deps.kv.atomic.bind(deps.kv);
  deps.kv.atomic = () => {
    const op = realAtomic();
    op.commit = () => Promise.reject(new Error("disk on fire at /secret/path"));
    return op;
  };
  const res = await post({ api_key: t.publicKey, batch: [event()] });
  deps.kv.atomic = realAtomic;
  assert.equal(res.status, 500);
  const body = await res.json();
  assert.equal(body.code, "OPERATION_FAILED");
  assert.ok(!JSON.stringify(body).includes("secret"));
  assert.deepEqual(Object.keys(body).sort(), ["code", "error", "timestamp"]);
});

Deno.test("events: CORS preflight is answered for known origins and localhost, refused for others; no cookies", async () => {
  const { app } = await setup();
  const pre = (origin: string) =>
    app.request("/v1/behavior/events", {
      method: "OPTIONS",
      headers: {
        origin,
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type",
      },
    });
  const ok = await pre("https://www.acme.test");
  assert.equal(ok.status, 204);
  assert.equal(ok.headers.get("access-control-allow-origin"), "https://www.acme.test");
  assert.match(ok.headers.get("access-control-allow-methods") ?? "", /POST/);
  assert.match(ok.headers.get("access-control-allow-headers") ?? "", /content-type/i);
  assert.equal(ok.headers.get("set-cookie"), null);
  assert.equal((await pre("http://localhost:3000")).status, 204);
  const no = await pre("https://evil.test");
  assert.equal(no.status, 403);
  assert.equal(no.headers.get("access-control-allow-origin"), null);
});

Deno.test("events: the address is kept apart from the event, never inside it", async () => {
  const { deps, t, post, stored } = await setup();
  await post({ api_key: t.publicKey, batch: [event()] });
  const [ev] = await stored();
  assert.ok(!JSON.stringify(ev).includes("81.2.69.160"));
  const ips = await deps.kv.get<{ ips: Record<string, string> }>(keys.ipGroup(ev.received_at, t.org, ev.id));
  assert.equal(ips.value?.ips[ev.id], "81.2.69.160");
  assert.equal(ev.geo.country, "DE");
  assert.equal(ev.geo.city, "Berlin");
  assert.equal(ev.geo.asn, 3320);
});

Deno.test("events: enrichment at arrival: browser, OS, device; crawlers flagged as bots or AI agents and queued for verification", async () => {
  const { deps, t, post, stored } = await setup();
  const chrome =
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";
  const gpt =
    "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot";
  await post({
    api_key: t.publicKey,
    batch: [
      event({ anonymous_id: "human", context: { user_agent: chrome } }),
      event({ anonymous_id: "agent", context: { user_agent: gpt } }),
    ],
  });
  const evs = await stored();
  const human = evs.find((e) => e.anonymous_id === "human")!;
  const agent = evs.find((e) => e.anonymous_id === "agent")!;
  assert.equal(human.traffic, "human");
  assert.equal(human.device_type, "mobile");
  assert.match(human.browser ?? "", /Safari/);
  assert.equal(human.os, "iOS");
  assert.equal(agent.traffic, "ai_agent");
  assert.equal(agent.crawler, "ChatGPT-User");
  assert.equal(agent.device_type, "bot");
  const queued: string[] = [];
  for await (const m of deps.kv.list<{ hits: [string, string][] }>({ prefix: keys.verifyPendingAll() })) {
    queued.push(...m.value.hits.map(([id]) => id));
  }
  assert.deepEqual(queued, [agent.id], "only the AI agent is queued for verification");
});

Deno.test("events: source and channel from referrer and UTM, element names from fingerprints, sequence gaps counted", async () => {
  const { t, post, stored } = await setup();
  await post({
    api_key: t.publicKey,
    batch: [
      event({
        anonymous_id: "ai",
        properties: { path: "/", url: "https://acme.test/", referrer: "https://chatgpt.com/" },
      }),
      event({
        anonymous_id: "mail",
        properties: {
          path: "/",
          url: "https://acme.test/?utm_source=news&utm_medium=email&utm_campaign=nov",
        },
      }),
      event({
        anonymous_id: "search",
        properties: { path: "/", url: "https://acme.test/", referrer: "https://www.google.com/" },
      }),
      event({ anonymous_id: "direct" }),
      event({
        anonymous_id: "click",
        session_id: "s-click",
        sequence_no: 0,
        event_type: "$autocapture",
        fingerprint: { tag: "button", text: "  Buy   now ", selector: "main > button" },
      }),
      event({ anonymous_id: "click", session_id: "s-click", sequence_no: 3, event_type: "$pageleave" }),
    ],
  });
  const by = new Map((await stored()).map((e) => [e.anonymous_id + e.sequence_no, e]));
  assert.deepEqual([by.get("ai0")!.channel, by.get("ai0")!.source], ["AI Assistant", "chatgpt"]);
  assert.equal(by.get("mail0")!.channel, "Email");
  assert.equal(by.get("mail0")!.utm?.campaign, "nov");
  assert.equal(by.get("search0")!.channel, "Organic Search");
  assert.equal(by.get("direct0")!.channel, "Direct");
  assert.equal(by.get("click0")!.element, "Buy now");
  assert.equal(by.get("click3")!.gap_before, 2);
  assert.equal(by.get("click0")!.gap_before, 0);
});

Deno.test("events: a field change names its form from form.fingerprint as element names fingerprints; junk there is ignored", async () => {
  const { t, post, stored } = await setup();
  const change = (sequence_no: number, form: unknown, more: Record<string, unknown> = {}) =>
    event({
      anonymous_id: "form",
      session_id: "s-form",
      sequence_no,
      event_type: "$autocapture",
      fingerprint: { tag: "input", text: null, role: "email", id: "email", selector: "#email" },
      properties: { path: "/signup", action: "change", rage_click: false, form, ...more },
    });
  const signup = { tag: "form", text: "  Email   Sign up ", id: "signup", selector: "#signup", ordinal: 1 };
  const junk = [
    "a string",
    42,
    null,
    [signup],
    { fields: [] },
    { fields: [], fingerprint: "form" },
    { fields: [], fingerprint: [1, 2] },
    { fields: [], fingerprint: { tag: 7, text: { x: 1 } } },
    { fields: [], fingerprint: {} },
    { fields: [], fingerprint: { tag: "not a tag", text: "   " } },
  ];
  const res = await post({
    api_key: t.publicKey,
    batch: [
      change(0, { fields: [{ name: "email", type: "email" }], fingerprint: signup }),
      change(1, { fingerprint: { tag: "form", text: "Write to ann@example.com", id: "contact" } }),
      ...junk.map((form, i) => change(2 + i, form, { form_element: "sent by the client" })),
      event({
        anonymous_id: "form",
        session_id: "s-form",
        sequence_no: 20,
        event_type: "signup",
        properties: {
          form: { fingerprint: signup },
          form_element: "the caller's own",
        },
      }),
    ],
  });
  assert.equal(res.status, 204);
  const by = new Map((await stored()).map((e) => [e.sequence_no, e]));
  assert.equal(by.size, 3 + junk.length);
  // a form's own text may hold what was typed into it (a rich-text editor): its id names it
  assert.equal(by.get(0)!.properties.form_element, "#signup");
  // nor is the form's text stored, nor a field's
  const form0 = by.get(0)!.properties.form as { fingerprint: { text: unknown; id: unknown } };
  assert.deepEqual([form0.fingerprint.text, form0.fingerprint.id], [null, "signup"]);
  assert.equal(by.get(0)!.fingerprint?.text ?? null, null);
  assert.equal(by.get(0)!.element, "email (input)", "the field keeps its own name");
  assert.deepEqual((by.get(0)!.properties.form as { fields: unknown }).fields, [{
    name: "email",
    type: "email",
  }]);
  assert.equal(by.get(1)!.properties.form_element, "#contact", "text that looks personal never names it");
  junk.forEach((form, i) => {
    const e = by.get(2 + i)!;
    assert.equal("form_element" in e.properties, false, JSON.stringify(form));
    assert.deepEqual(e.properties.form, form, "the property itself is stored as sent");
  });
  assert.equal(
    by.get(20)!.properties.form_element,
    "the caller's own",
    "other events' properties are theirs",
  );
});

Deno.test("events: answers the SDK can act on carry CORS headers, a 500 included", async () => {
  const { deps, t, post } = await setup();
  const ok = await post({ api_key: t.publicKey, batch: [event()] }, { origin: "https://www.acme.test" });
  assert.equal(ok.headers.get("access-control-allow-origin"), "https://www.acme.test");
  const bad = await post({ api_key: t.publicKey, batch: [] }, { origin: "https://www.acme.test" });
  assert.equal(bad.status, 422);
  assert.equal(bad.headers.get("access-control-allow-origin"), "https://www.acme.test");
  const realAtomic = deps.kv.atomic.bind(deps.kv);
  deps.kv.atomic = () => {
    const op = realAtomic();
    op.commit = () => Promise.reject(new Error("boom"));
    return op;
  };
  const failed = await post({ api_key: t.publicKey, batch: [event()] }, { origin: "https://www.acme.test" });
  deps.kv.atomic = realAtomic;
  assert.equal(failed.status, 500);
  assert.equal(failed.headers.get("access-control-allow-origin"), "https://www.acme.test");
});

Deno.test("events: an event too large to store is a 422 naming it; a 1 MB batch of large events is stored whole", async () => {
  const { t, post, stored } = await setup();
  const huge = await post({
    api_key: t.publicKey,
    batch: [event(), event({ properties: { path: "/", x: "a".repeat(70_000) } })],
  });
  assert.equal(huge.status, 422);
  assert.match((await huge.json()).error, /^batch\[1\]: event takes \d+ bytes as stored/);
  const big = Array.from(
    { length: 24 },
    (_, i) => event({ sequence_no: i, properties: { path: "/", x: "b".repeat(40_000) } }),
  );
  const res = await post({ api_key: t.publicKey, batch: big });
  assert.equal(res.status, 204);
  assert.equal((await stored()).length, 24);
});

Deno.test("events: an automated visitor's verification is queued in the commit that stores it; addresses are one record per group", async () => {
  const { deps, t, post, stored } = await setup();
  const gpt =
    "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.3; +https://openai.com/gptbot";
  const slack = "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)";
  await post({
    api_key: t.publicKey,
    batch: [
      event({ context: { user_agent: gpt } }),
      event({ sequence_no: 1, context: { user_agent: slack } }),
      event({ sequence_no: 2 }),
    ],
  });
  const evs = await stored();
  const first = evs.find((e) => e.sequence_no === 0)!;
  const marker = await deps.kv.get<{ hits: [string, string][] }>(keys.verifyPending(t.org, first.id));
  assert.deepEqual(marker.value?.hits, [[first.id, "GPTBot"]]);
  const slackEv = evs.find((e) => e.sequence_no === 1)!;
  const outcome = await deps.kv.get<{ outcome: string }>(keys.verification(t.org, slackEv.id));
  assert.equal(outcome.value?.outcome, "unverifiable");
  const group = await deps.kv.get<{ ips: Record<string, string> }>(
    keys.ipGroup(first.received_at, t.org, first.id),
  );
  assert.deepEqual(Object.keys(group.value?.ips ?? {}).length, 3);
});

Deno.test("events: another method on an ingest path is a 405 with Allow, in the Error body with an ingest code", async () => {
  const { app } = await setup();
  for (
    const [method, path, allow] of [
      ["GET", "/v1/behavior/events", "POST, OPTIONS"],
      ["PUT", "/v1/behavior/events", "POST, OPTIONS"],
      ["GET", "/v1/behavior/server-events", "POST"],
    ]
  ) {
    const res = await app.request(path, { method });
    assert.equal(res.status, 405, `${method} ${path}`);
    assert.equal(res.headers.get("allow"), allow);
    const body = await res.json();
    assert.equal(body.code, "VALIDATION_ERROR");
    assert.match(body.error, new RegExp(`^${method} is not allowed on ${path}`));
    assert.ok(!Number.isNaN(Date.parse(body.timestamp)));
  }
  const other = await app.request("/v1/behavior/nothing-here");
  assert.equal(other.status, 404);
});
