import assert from "node:assert/strict";

/** The modules `entry` loads when it is imported: its static imports, followed; dynamic ones left out. */
async function staticGraph(entry: string): Promise<Set<string>> {
  const out = await new Deno.Command(Deno.execPath(), { args: ["info", "--json", entry], stdout: "piped" })
    .output();
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    roots: string[];
    modules: { specifier: string; dependencies?: { code?: { specifier: string }; isDynamic?: boolean }[] }[];
    redirects: Record<string, string>;
  };
  const bySpecifier = new Map(info.modules.map((m) => [m.specifier, m]));
  const seen = new Set<string>();
  const walk = (s: string) => {
    s = info.redirects[s] ?? s;
    if (seen.has(s)) return;
    seen.add(s);
    for (const d of bySpecifier.get(s)?.dependencies ?? []) {
      if (!d.isDynamic && d.code) walk(d.code.specifier);
    }
  };
  info.roots.forEach(walk);
  return seen;
}

Deno.test("the review analysis and tinyld (~55 MB once evaluated) are not loaded by importing the tools or the app", async () => {
  for (const entry of ["tools/registry.ts", "app.ts"]) {
    const graph = await staticGraph(entry);
    assert.ok(graph.size > 50, `${entry}: the graph was read`);
    const eager = [...graph].filter((s) =>
      s.includes("tinyld") || s.endsWith("/feedback/analysis/analyze.ts")
    );
    assert.deepEqual(eager, [], `${entry} imports the review analysis statically`);
  }
});
