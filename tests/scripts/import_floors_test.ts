/** The floors of docs/architecture.md, checked on the real import graph, and the checker on planted faults. */
import assert from "node:assert/strict";
import {
  fileCircles,
  folderCircles,
  importsOf,
  moduleGraph,
  serviceImports,
  wrongWay,
} from "../../scripts/import_floors.ts";

const ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

Deno.test("import floors: the service has no folder circle and no import pointing up a floor", async () => {
  const imports = await serviceImports(ROOT);
  assert.ok(imports.length > 500, `only ${imports.length} imports found: the walk missed files`);
  assert.deepEqual(folderCircles(imports), []);
  assert.deepEqual(wrongWay(imports), []);
});

Deno.test("import floors: the module graph Deno resolves from main.ts has no file circle and no folder circle", async () => {
  const graph = await moduleGraph(ROOT);
  assert.ok(graph.length > 500, `only ${graph.length} imports on the module graph`);
  assert.ok(graph.some((i) => i.from === "tools/registry.ts" && i.to === "tools/behavior_saved.ts"));
  assert.ok(graph.some((i) => i.to === "toolkit/tool.ts"), "type-only imports are part of the graph");
  assert.deepEqual(fileCircles(graph), []);
  assert.deepEqual(folderCircles(graph), []);
});

Deno.test("import floors: a circle of files inside one folder is found, one folder's files are one folder", () => {
  const edges = [
    ...importsOf("tools/registry.ts", 'import saved from "./behavior_saved.ts";'),
    ...importsOf("tools/behavior_saved.ts", 'import { runInsight } from "./saved_insights.ts";'),
    ...importsOf("tools/saved_insights.ts", 'import { TOOLS } from "./registry.ts";'),
    ...importsOf("tools/listing.ts", 'import type { Tool } from "./tool.ts";'),
  ];
  assert.deepEqual(folderCircles(edges), [], "the folder graph folds tools/ into one node");
  assert.deepEqual(fileCircles(edges), [[
    "tools/behavior_saved.ts",
    "tools/registry.ts",
    "tools/saved_insights.ts",
  ]]);
});

Deno.test("import floors: type imports, re-exports and paths count; base names do not", () => {
  const people = importsOf(
    "lib/people/abuse.ts",
    [
      'import type { AppContext } from "../context.ts";',
      'export { ROLES } from "../store/records.ts";',
      "import {\n  a,\n  b,\n} from './members.ts';",
      '// import { nope } from "../../routes/app/members.tsx";',
    ].join("\n"),
  );
  assert.deepEqual(people.map((i) => i.to), [
    "lib/context.ts",
    "lib/store/records.ts",
    "lib/people/members.ts",
  ]);
  assert.deepEqual(wrongWay(people).map((i) => i.to), ["lib/context.ts"]);

  const tenancy = importsOf("lib/tenancy/x.ts", 'import { PeopleCache } from "../people/cache.ts";');
  assert.deepEqual(folderCircles([...people, ...tenancy]), []); // members.ts of people and of routes/app differ
  const back = importsOf("lib/people/cache.ts", 'import { CACHE_MS } from "../tenancy/directory.ts";');
  assert.deepEqual(folderCircles([...tenancy, ...back]), [["lib/people", "lib/tenancy"]]);
  assert.deepEqual(
    wrongWay(importsOf("lib/query/agg.ts", 'import { x } from "../../tests/lib/naive.ts";')).length,
    1,
  );
});
