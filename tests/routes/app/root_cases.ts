/** The service's own address, opened in a browser, leads to the app (it answered a JSON 404 before). */
import assert from "node:assert/strict";
import { createApp } from "../../../app.ts";
import { testDeps } from "../../helpers/deps.ts";

Deno.test("app root: GET / redirects to the app; other unknown paths still answer a JSON 404", async () => {
  const deps = await testDeps();
  try {
    const app = createApp(deps);
    const root = await app.request("/");
    assert.equal(root.status, 302);
    assert.equal(root.headers.get("location"), "/app");
    const other = await app.request("/nowhere");
    assert.equal(other.status, 404);
    assert.match((await other.json()).error, /no route GET \/nowhere/);
  } finally {
    deps.kv.close();
  }
});
