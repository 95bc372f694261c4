import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../helpers/deps.ts";
import { adminCall, createTenant } from "../helpers/tenant.ts";
import { checkAnswer } from "../../lib/answers/check.ts";
import { defaultConfig } from "../../lib/config.ts";
import { keys } from "../../lib/store/keys.ts";
import { TOOLS } from "../../tools/registry.ts";

async function setup(config: Record<string, unknown> = {}) {
  const deps = await testDeps();
  deps.config = { ...deps.config, ...config } as typeof deps.config;
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN);
  const call = (path: string, key: string | null, body?: unknown) =>
    app.request(`/v1/read${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  return { deps, app, t, call, close: () => deps.kv.close() };
}

async function errorOf(res: Response, status: number, code: string) {
  assert.equal(res.status, status);
  const body = await res.json();
  assert.equal(body.code, code);
  assert.equal(typeof body.error, "string");
  assert.ok(!Number.isNaN(Date.parse(body.timestamp)));
  return body as { error: string; code: string };
}

Deno.test("read api: GET /v1/read lists every tool with JSON Schemas of input and output", async () => {
  const s = await setup();
  const res = await s.call("", s.t.readKey);
  assert.equal(res.status, 200);
  const { tools } = await res.json();
  assert.deepEqual(tools.map((t: { name: string }) => t.name), TOOLS.map((t) => t.name));
  for (const t of tools) {
    assert.ok(t.description.length > 40, t.name);
    assert.equal(t.input_schema.type, "object");
    assert.equal(t.output_schema.type, "object");
    assert.ok(t.output_schema.properties.scope, `${t.name} output has a scope`);
  }
  s.close();
});

Deno.test("read api: account_overview answers with scope first and keeps every answer rule", async () => {
  const s = await setup();
  const res = await s.call("/account_overview", s.t.readKey, {});
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.deepEqual(checkAnswer(body), []);
  assert.equal(body.organization.id, s.t.org);
  assert.equal(body.plan.name, "professional");
  assert.equal(body.touchpoints_total, 1);
  assert.equal(body.touchpoints[0].id, s.t.touchpoint);
  assert.equal(body.scope.environment, "production");
  assert.equal(body.plan.allowances.api_requests.used, 0, "counted after the answer");
  assert.ok(body.notices.some((n: string) => n.startsWith("no data received yet")));
  s.close();
});

Deno.test("read api: 401 without a key, with an unknown, a public, a revoked or an expired key", async () => {
  const s = await setup();
  await errorOf(await s.call("", null), 401, "UNAUTHORIZED");
  await errorOf(await s.call("/account_overview", "svc_rk_prod_" + "x".repeat(30), {}), 401, "UNAUTHORIZED");
  await errorOf(await s.call("/account_overview", s.t.publicKey, {}), 401, "UNAUTHORIZED");
  const expiring = await adminCall(s.app, TEST_ADMIN_TOKEN, "POST", `/orgs/${s.t.org}/keys`, {
    kind: "read",
    environment: "production",
    expires_at: new Date(s.deps.clock.now() + 60_000).toISOString(),
  });
  assert.equal((await s.call("/account_overview", expiring.key, {})).status, 200);
  s.deps.clock.advance(61_000);
  const expired = await errorOf(await s.call("/account_overview", expiring.key, {}), 401, "UNAUTHORIZED");
  assert.match(expired.error, /expired/);
  await adminCall(s.app, TEST_ADMIN_TOKEN, "DELETE", `/orgs/${s.t.org}/keys/${expiring.id}`);
  const keysList = await adminCall(s.app, TEST_ADMIN_TOKEN, "GET", `/orgs/${s.t.org}/keys`);
  const readKeyId =
    keysList.keys.find((k: { kind: string; id: string }) => k.kind === "read" && k.id !== expiring.id).id;
  await adminCall(s.app, TEST_ADMIN_TOKEN, "DELETE", `/orgs/${s.t.org}/keys/${readKeyId}`);
  const revoked = await errorOf(await s.call("/account_overview", s.t.readKey, {}), 401, "UNAUTHORIZED");
  assert.match(revoked.error, /revoked/);
  s.close();
});

Deno.test("read api: 403 when the plan is not active or has no API access", async () => {
  const s = await setup();
  await adminCall(s.app, TEST_ADMIN_TOKEN, "PATCH", `/orgs/${s.t.org}`, { active: false });
  const inactive = await errorOf(await s.call("/account_overview", s.t.readKey, {}), 403, "FORBIDDEN");
  assert.match(inactive.error, /not active/);
  await adminCall(s.app, TEST_ADMIN_TOKEN, "PATCH", `/orgs/${s.t.org}`, { active: true, plan: "starter" });
  const noApi = await errorOf(await s.call("", s.t.readKey), 403, "FORBIDDEN");
  assert.match(noApi.error, /no API access/);
  s.close();
});

Deno.test("read api: 404 for a tool that does not exist", async () => {
  const s = await setup();
  const body = await errorOf(await s.call("/behavior_horoscope", s.t.readKey, {}), 404, "NOT_FOUND");
  assert.match(body.error, /GET \/v1\/read/);
  s.close();
});

Deno.test("read api: 422 names what to change for unknown fields, bad periods and non-JSON bodies", async () => {
  const s = await setup();
  const unknown = await errorOf(
    await s.call("/account_overview", s.t.readKey, { colour: "red" }),
    422,
    "VALIDATION_ERROR",
  );
  assert.match(unknown.error, /colour/);
  const res = await s.app.request("/v1/read/account_overview", {
    method: "POST",
    headers: { authorization: `Bearer ${s.t.readKey}` },
    body: "{not json",
  });
  await errorOf(res, 422, "VALIDATION_ERROR");
  s.close();
});

Deno.test("read api: 402 once this month's API requests are used, naming the reset date and how to raise it", async () => {
  const s = await setup({ plans: { professional: { allowances: { api_requests: 5 } } } });
  const notices: string[][] = [];
  for (let i = 0; i < 5; i++) {
    const res = await s.call("/account_overview", s.t.readKey, {});
    assert.equal(res.status, 200);
    notices.push((await res.json()).notices);
  }
  assert.ok(!notices[2].some((n) => /API requests used/.test(n)), "60% says nothing");
  assert.ok(
    notices[3].some((n) => /80% of this month's API requests used \(4 of 5\)/.test(n)),
    "80% is noticed",
  );
  const body = await errorOf(await s.call("/account_overview", s.t.readKey, {}), 402, "ALLOWANCE_EXHAUSTED");
  assert.match(body.error, /resets on 2026-12-01/);
  // the way it names to raise it works: the admin call it names, then the next call is answered
  const how = /PATCH (\/admin\/v1\/orgs\/)\{org\} with "plan"/.exec(body.error);
  assert.ok(how, body.error);
  await adminCall(s.app, TEST_ADMIN_TOKEN, "PATCH", `${how[1].slice("/admin/v1".length)}${s.t.org}`, {
    plan: "enterprise",
  });
  assert.equal((await s.call("/account_overview", s.t.readKey, {})).status, 200);
  s.close();
});

Deno.test("read api: 429 with Retry-After past the per-minute calls of a key", async () => {
  const s = await setup({ readKeyRatePerMinute: 3 });
  for (let i = 0; i < 3; i++) assert.equal((await s.call("/account_overview", s.t.readKey, {})).status, 200);
  const res = await s.call("/account_overview", s.t.readKey, {});
  await errorOf(res, 429, "RATE_LIMIT_EXCEEDED");
  const retry = Number(res.headers.get("retry-after"));
  assert.ok(retry >= 1 && retry <= 60);
  s.deps.clock.advance(61_000);
  assert.equal((await s.call("/account_overview", s.t.readKey, {})).status, 200);
  s.close();
});

Deno.test("read api: a read key writes nothing but its own usage counters", async () => {
  const s = await setup();
  const before: string[] = [];
  for await (const e of s.deps.kv.list({ prefix: [] })) before.push(JSON.stringify(e.key));
  await s.call("", s.t.readKey);
  await s.call("/account_overview", s.t.readKey, {});
  const added: unknown[][] = [];
  for await (const e of s.deps.kv.list({ prefix: [] })) {
    if (!before.includes(JSON.stringify(e.key))) added.push(e.key as unknown[]);
  }
  const usagePrefix = keys.usage(s.t.org, "", "")[0];
  const ratePrefix = keys.rates()[0];
  for (const k of added) {
    assert.ok(k[0] === usagePrefix || k[0] === ratePrefix, `unexpected write ${JSON.stringify(k)}`);
  }
  assert.equal(defaultConfig.readKeyRatePerMinute, 60);
  s.close();
});

Deno.test("read api: openapi.json documents every tool path with the read error statuses", async () => {
  const s = await setup();
  const doc = await (await s.app.request("/openapi.json")).json();
  for (const t of TOOLS) {
    const op = doc.paths[`/v1/read/${t.name}`]?.post;
    assert.ok(op, t.name);
    for (const status of ["200", "401", "402", "403", "404", "422", "429"]) {
      assert.ok(op.responses[status], `${t.name} ${status}`);
    }
    assert.equal(op.responses["200"].content["application/json"].schema.type, "object");
  }
  assert.ok(doc.paths["/v1/read"].get.responses["402"]);
  s.close();
});
