/** /openapi.json publishes every schema in portable form: no type arrays, no OpenAPI 3.0 nullable. */
import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { portabilityProblems, portableSchema } from "../../lib/answers/portable_schema.ts";
import { testDeps } from "../helpers/deps.ts";

Deno.test("openapi: every schema portable (nullable fields as anyOf)", async () => {
  const deps = await testDeps();
  try {
    const res = await createApp(deps).request("/openapi.json");
    assert.equal(res.status, 200);
    const doc = await res.json();
    assert.deepEqual(portabilityProblems(doc), []);
    const read =
      doc.paths["/v1/read/behavior_overview"].post.responses["200"].content["application/json"].schema;
    assert.ok(JSON.stringify(read).includes('{"type":"null"}'), "nullable fields kept as anyOf with null");
  } finally {
    deps.kv.close();
  }
});

Deno.test("portableSchema: a type array becomes anyOf with each type's own keywords; data is untouched", () => {
  const out = portableSchema({
    type: "object",
    properties: {
      a: { type: ["string", "null"], minLength: 1, description: "a name" },
      b: { type: ["integer", "string"], minimum: 0, pattern: "^x", enum: [1, "x"] },
      c: { const: { type: ["kept"] } },
    },
  });
  assert.deepEqual(out.properties.a, {
    description: "a name",
    anyOf: [{ type: "string", minLength: 1 }, { type: "null" }],
  });
  assert.deepEqual(out.properties.b, {
    anyOf: [{ type: "integer", minimum: 0, enum: [1] }, { type: "string", pattern: "^x", enum: ["x"] }],
  });
  assert.deepEqual(out.properties.c, { const: { type: ["kept"] } });
});

Deno.test("GET /v1/read: the tool list's schemas are portable too (one listing for every face)", async () => {
  const deps = await testDeps();
  try {
    const { createTenant } = await import("../helpers/tenant.ts");
    const { TEST_ADMIN_TOKEN } = await import("../helpers/deps.ts");
    const app = createApp(deps);
    const t = await createTenant(app, TEST_ADMIN_TOKEN);
    const res = await app.request("/v1/read", { headers: { authorization: `Bearer ${t.readKey}` } });
    assert.equal(res.status, 200);
    const { tools } = await res.json();
    assert.ok(tools.length >= 20);
    assert.deepEqual(portabilityProblems(tools), []);
  } finally {
    deps.kv.close();
  }
});
