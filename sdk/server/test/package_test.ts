import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { SDK_NAME, SDK_VERSION } from "../src/index.ts";

/** The package.json next to the sources (test/) or next to the build (dist/test/). */
function packageJson(): { name: string; version: string; dependencies?: Record<string, string> } {
  for (const relative of ["../package.json", "../../package.json"]) {
    const path = fileURLToPath(new URL(relative, import.meta.url));
    if (existsSync(path)) return JSON.parse(readFileSync(path, "utf8"));
  }
  throw new Error("package.json not found");
}

test("package: the name and version sent as `sdk` match package.json, and there are no runtime dependencies", () => {
  const pkg = packageJson();
  assert.equal(SDK_NAME, pkg.name);
  assert.equal(SDK_VERSION, pkg.version);
  assert.deepEqual(Object.keys(pkg.dependencies ?? {}), []);
});
