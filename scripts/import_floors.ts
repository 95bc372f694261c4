/**
 * Checks the floors of docs/architecture.md on the import graph: no circle between folders, no circle between
 * files, no import that points up a floor, nothing in the service importing tests/, bench/ or scripts/.
 * Paths are resolved from each relative import (`import`, `import type`, `export … from`, `import("…")`),
 * never matched by base name. File circles are looked for on the real module graph as Deno resolves it from
 * main.ts (`deno info --json main.ts`), type-only imports included.
 *
 *   deno run -A scripts/import_floors.ts    # prints what it finds; exits 1 when anything is wrong
 */

/** Where a file sits, top (0) to bottom; a file may import its own floor or any floor below. */
export function floorOf(file: string): { floor: number; name: string } {
  const parts = file.split("/");
  if (file === "main.ts") return { floor: 0, name: "main.ts" };
  if (file === "app.ts") return { floor: 1, name: "app.ts" };
  if (parts[0] === "routes") return { floor: 2, name: "routes/" };
  // the pipeline answers a call with the tool list it is given; tools are built from the toolkit
  if (parts[0] === "pipeline") return { floor: 3, name: "pipeline/" };
  if (parts[0] === "tools") return { floor: 4, name: "tools/" };
  if (parts[0] === "toolkit") return { floor: 5, name: "toolkit/" };
  if (file === "lib/context.ts") return { floor: 6, name: "lib/context.ts" };
  if (file === "lib/deps.ts" || file === "lib/config.ts") return { floor: 8, name: "lib/deps.ts,config.ts" };
  if (parts[0] === "lib" && parts[1] === "store") return { floor: 9, name: "lib/store/" };
  if (parts[0] === "lib" && parts[1] === "time") return { floor: 10, name: "leaf utilities" };
  if (parts[0] === "lib" && parts.length > 2) return { floor: 7, name: "lib/<domain>/" };
  return { floor: 10, name: "leaf utilities" }; // lib/*.ts: clock, log, errors, …
}

/** The node a file counts for in the folder graph: lib/<domain> (its subfolders folded in), a top folder, or a lone file. */
export function folderOf(file: string): string {
  const parts = file.split("/");
  if (parts[0] === "lib") return parts.length > 2 ? `lib/${parts[1]}` : file;
  return parts.length > 1 ? parts[0] : file;
}

const SERVICE = /^(main\.ts|app\.ts|routes\/|pipeline\/|tools\/|toolkit\/|lib\/)/;
const OUTSIDE = /^(tests|bench|scripts)\//;
const SPECIFIERS = [
  /\b(?:import|export)\s+(?:type\s+)?[^'";]*?\bfrom\s*["']([^"']+)["']/gs,
  /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g,
  /^\s*import\s+["']([^"']+)["']/gm,
];

export interface Import {
  from: string;
  to: string;
}

function join(dir: string, spec: string): string {
  const out: string[] = [];
  for (const part of `${dir}/${spec}`.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") out.pop();
    else out.push(part);
  }
  return out.join("/");
}

/** The relative imports in one file's text, resolved against its path (comments stripped first). */
export function importsOf(file: string, text: string): Import[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  const dir = file.includes("/") ? file.slice(0, file.lastIndexOf("/")) : "";
  const found: Import[] = [];
  for (const re of SPECIFIERS) {
    for (const m of code.matchAll(re)) {
      if (m[1].startsWith(".")) found.push({ from: file, to: join(dir, m[1]) });
    }
  }
  return found;
}

/** Every relative import of the service's own source files (main.ts, app.ts, routes/, pipeline/, tools/, toolkit/, lib/). */
export async function serviceImports(root: string): Promise<Import[]> {
  const all: Import[] = [];
  async function walk(rel: string) {
    for await (const e of Deno.readDir(rel ? `${root}/${rel}` : root)) {
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory && (rel || ["lib", "routes", "pipeline", "tools", "toolkit"].includes(e.name))) {
        await walk(path);
      } else if (e.isFile && /\.tsx?$/.test(e.name) && SERVICE.test(path)) {
        all.push(...importsOf(path, await Deno.readTextFile(`${root}/${path}`)));
      }
    }
  }
  await walk("");
  return all;
}

/**
 * The imports between the project's own files on the module graph Deno resolves from `entry` (code and type
 * imports; packages left out), as paths relative to `root`.
 */
export async function moduleGraph(root: string, entry = "main.ts"): Promise<Import[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(`deno info ${entry} failed: ${new TextDecoder().decode(out.stderr)}`);
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    modules: {
      specifier: string;
      dependencies?: { code?: { specifier?: string }; type?: { specifier?: string } }[];
    }[];
  };
  const base = new URL(`file://${root}/`).href;
  const local = (spec: string | undefined) => spec?.startsWith(base) ? spec.slice(base.length) : null;
  const imports: Import[] = [];
  for (const m of info.modules) {
    const from = local(m.specifier);
    if (!from) continue;
    for (const d of m.dependencies ?? []) {
      for (const to of new Set([local(d.code?.specifier), local(d.type?.specifier)])) {
        if (to && to !== from) imports.push({ from, to });
      }
    }
  }
  return imports;
}

/** Groups of files that import each other, directly or round a circle (components of more than one file). */
export function fileCircles(imports: Import[]): string[][] {
  return circles(imports.map(({ from, to }) => [from, to]));
}

/** Groups of folders that import each other (strongly connected components of more than one folder). */
export function folderCircles(imports: Import[]): string[][] {
  return circles(imports.map(({ from, to }) => [folderOf(from), folderOf(to)]));
}

/** Strongly connected components of more than one node (Tarjan's algorithm). */
function circles(edges: [string, string][]): string[][] {
  const graph = new Map<string, Set<string>>();
  for (const [a, b] of edges) {
    if (!graph.has(a)) graph.set(a, new Set());
    if (!graph.has(b)) graph.set(b, new Set());
    if (a !== b) graph.get(a)!.add(b);
  }
  // Recursion depth is the longest import chain: a few dozen files, so recursion is fine.
  let next = 0;
  const index = new Map<string, number>(), low = new Map<string, number>();
  const stack: string[] = [], onStack = new Set<string>(), circles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next), low.set(v, next++), stack.push(v), onStack.add(v);
    for (const w of graph.get(v)!) {
      if (!index.has(w)) visit(w), low.set(v, Math.min(low.get(v)!, low.get(w)!));
      else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    for (let w = ""; w !== v;) w = stack.pop()!, onStack.delete(w), group.push(w);
    if (group.length > 1) circles.push(group.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return circles;
}

/** Imports that point up a floor, or out of the service into tests/, bench/ or scripts/. */
export function wrongWay(imports: Import[]): Import[] {
  return imports.filter(({ from, to }) => OUTSIDE.test(to) || floorOf(to).floor < floorOf(from).floor);
}

if (import.meta.main) {
  const root = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
  const imports = await serviceImports(root);
  const graph = await moduleGraph(root);
  const folders = folderCircles([...imports, ...graph]);
  const files = fileCircles(graph);
  const wrong = wrongWay([...imports, ...graph.filter((i) => SERVICE.test(i.from))]);
  console.log(
    `${imports.length} relative imports; ${graph.length} between files on the module graph of main.ts`,
  );
  for (const group of folders) {
    console.log(`folder circle: ${group.join(" ↔ ")}`);
    for (const i of imports) {
      if (
        group.includes(folderOf(i.from)) && group.includes(folderOf(i.to)) &&
        folderOf(i.from) !== folderOf(i.to)
      ) {
        console.log(`  ${i.from} → ${i.to}`);
      }
    }
  }
  for (const group of files) {
    console.log(`file circle: ${group.join(" ↔ ")}`);
    for (const i of graph) {
      if (group.includes(i.from) && group.includes(i.to)) console.log(`  ${i.from} → ${i.to}`);
    }
  }
  for (const i of wrong) {
    console.log(`up a floor: ${i.from} (${floorOf(i.from).name}) → ${i.to} (${floorOf(i.to).name})`);
  }
  const bad = folders.length + files.length + wrong.length;
  if (!bad) console.log("no folder circle, no file circle, no import up a floor");
  if (bad) Deno.exit(1);
}
