/**
 * One home for the process's state: createContext builds every long-lived object, and no lib/ module keeps
 * one of its own (a module-level map keyed by deps or a store, or an instance made at load). Two contexts over
 * the same deps (as two apps in one test) therefore share nothing.
 */
import assert from "node:assert/strict";
import { createContext } from "../../lib/context.ts";
import { testDeps } from "../helpers/deps.ts";

const ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

async function* sources(dir: string): AsyncGenerator<string> {
  for await (const e of Deno.readDir(dir)) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory) yield* sources(path);
    else if (/\.tsx?$/.test(e.name)) yield path;
  }
}

Deno.test("context: two contexts over one deps share no long-lived object", async () => {
  const deps = await testDeps();
  const a = createContext(deps), b = createContext(deps);
  const held = Object.keys(a).filter((k) => k !== "deps") as (keyof typeof a)[];
  assert.ok(held.length >= 9, `only ${held.join(", ")}`);
  for (const k of held) assert.notEqual(a[k], b[k], `${k} is shared: some module keeps it for these deps`);
  assert.notEqual(a.verifier.ranges, b.verifier.ranges, "the crawler lists are the verifier's own");
  deps.kv.close();
});

/** The constructors createContext calls (`new X(` and `createX(`), read from its source. */
export function contextMakers(source: string): string[] {
  const body = source.slice(source.indexOf("export function createContext"));
  return [
    ...new Set([...body.matchAll(/\b(?:new\s+([A-Z]\w*)|(create[A-Z]\w*))\s*\(/g)].map((m) => m[1] ?? m[2])),
  ];
}

/**
 * Module-level state in one file: a map at the top level keyed by the process's outside world (Deps, a KV
 * store, a clock, a context), or one of createContext's objects made at the top level. Memos keyed by a
 * value's own object (a batch, a rollup, a tool) are not process state and pass.
 */
export function moduleState(path: string, source: string, makers: string[]): string[] {
  const found: string[] = [];
  const keyedByProcess =
    /^(?:export\s+)?(?:const|let|var)\s+(\w+)\s*(?::[^=]+)?=\s*new\s+(?:Weak)?(?:Map|Set)\s*<\s*(?:Deps|Deno\.Kv|Clock|Config|AppContext)\b/;
  const made = new RegExp(
    `^(?:export\\s+)?(?:const|let|var)\\s+(\\w+)[^=]*=\\s*(?:new\\s+)?(?:${makers.join("|")})\\s*\\(`,
  );
  source.split("\n").forEach((line, i) => {
    const m = keyedByProcess.exec(line) ?? made.exec(line);
    if (m) found.push(`${path}:${i + 1} ${m[1]}`);
  });
  return found;
}

Deno.test("context: no lib/ module keeps process state of its own (maps keyed by deps or a store, objects made at load)", async () => {
  const makers = contextMakers(await Deno.readTextFile(`${ROOT}/lib/context.ts`));
  for (const m of ["Directory", "createVerifier", "createEngine", "createCommitter", "ReviewCache"]) {
    assert.ok(makers.includes(m), `createContext makes ${m}: ${makers.join(", ")}`);
  }
  const found: string[] = [];
  let files = 0;
  for await (const path of sources(`${ROOT}/lib`)) {
    if (path.endsWith("/lib/context.ts")) continue;
    files++;
    found.push(...moduleState(path.slice(ROOT.length + 1), await Deno.readTextFile(path), makers));
  }
  assert.ok(files > 100, `only ${files} files under lib/`);
  assert.deepEqual(found, []);
});

Deno.test("context: the scan finds a verifier kept per store, a directory per deps, and an engine made at load", () => {
  const makers = ["Directory", "createVerifier", "createEngine"];
  const planted = [
    "const verifiers = new WeakMap<Deno.Kv, Verifier>();",
    "export const directories: WeakMap<Deps, Directory> = new WeakMap<Deps, Directory>();",
    "let shared = createEngine(deps);",
    "const zeros = new WeakMap<EvBatch, Int32Array>(); // a memo on a batch: fine",
    "const refused = new WeakSet<Deno.Kv>();",
    "  const local = new Directory(kv, clock); // inside a function: fine",
  ].join("\n");
  assert.deepEqual(moduleState("lib/x.ts", planted, makers), [
    "lib/x.ts:1 verifiers",
    "lib/x.ts:2 directories",
    "lib/x.ts:3 shared",
    "lib/x.ts:5 refused",
  ]);
});
