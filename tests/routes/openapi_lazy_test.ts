/**
 * The OpenAPI document's module (routes/openapi/document.ts) is loaded on the first GET /openapi.json, not
 * when the service starts: no static import chain from main.ts reaches it (it held ~10 MB of every process
 * from start on), and the document is still served.
 */
import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { testDeps } from "../helpers/deps.ts";

interface Dep {
  code?: { specifier: string };
  type?: { specifier: string };
  isDynamic?: boolean;
}

/** The modules main.ts loads at start: reached over static imports of code (type-only imports load nothing). */
async function loadedAtStart(): Promise<Set<string>> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "main.ts"],
    cwd: new URL("../../", import.meta.url).pathname,
    stdout: "piped",
    stderr: "null",
  }).output();
  assert.ok(out.success, "deno info ran");
  const graph = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    roots: string[];
    modules: { specifier: string; dependencies?: Dep[] }[];
  };
  const deps = new Map(graph.modules.map((m) => [m.specifier, m.dependencies ?? []]));
  const seen = new Set<string>(), stack = [...graph.roots];
  while (stack.length) {
    const m = stack.pop()!;
    if (seen.has(m)) continue;
    seen.add(m);
    for (const d of deps.get(m) ?? []) if (d.code && !d.isDynamic) stack.push(d.code.specifier);
  }
  return seen;
}

Deno.test("openapi: the document's module is not loaded at start, and is served on the first ask", async () => {
  const atStart = [...await loadedAtStart()];
  assert.ok(atStart.some((m) => m.endsWith("/routes/openapi.ts")), "the route itself is loaded at start");
  assert.ok(atStart.some((m) => m.endsWith("/routes/read.ts")), "the graph was walked");
  assert.deepEqual(atStart.filter((m) => m.includes("/routes/openapi/")), []);

  const deps = await testDeps();
  try {
    const app = createApp(deps);
    for (let i = 0; i < 2; i++) {
      const res = await app.request("/openapi.json");
      assert.equal(res.status, 200);
      const doc = await res.json();
      assert.equal(doc.openapi, "3.1.0");
      assert.ok(doc.paths["/v1/read"]);
    }
  } finally {
    deps.kv.close();
  }
});
