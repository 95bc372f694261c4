/**
 * Builds the web SDK: sdk/web/dist/sdk.js (ES module) and sdk/web/dist/sdk.iife.js (classic script),
 * minified, with web-vitals inside. Prints each file's gzipped size and fails past the 10 KB budget.
 *   deno run -A scripts/build_web.ts
 */
import * as esbuild from "esbuild";
import { gzipSync } from "node:zlib";

const LIMIT_BYTES = 10 * 1024;
const root = new URL("../sdk/web/", import.meta.url).pathname;

const common = {
  bundle: true,
  minify: true,
  target: "es2020",
  platform: "browser" as const,
  legalComments: "none" as const,
  logLevel: "warning" as const,
  nodePaths: [new URL("../node_modules/", import.meta.url).pathname],
};

const builds = [
  { entry: "src/index.ts", out: "dist/sdk.js", format: "esm" as const },
  { entry: "src/iife.ts", out: "dist/sdk.iife.js", format: "iife" as const },
];

let failed = false;
for (const b of builds) {
  await esbuild.build({ ...common, entryPoints: [root + b.entry], outfile: root + b.out, format: b.format });
  const bytes = await Deno.readFile(root + b.out);
  const gz = gzipSync(bytes, { level: 9 }).length;
  const over = gz > LIMIT_BYTES;
  failed ||= over;
  console.log(
    `sdk/web/${b.out}: ${bytes.length} bytes, ${gz} bytes gzipped (${(gz / 1024).toFixed(2)} KB of 10 KB)` +
      (over ? "  OVER BUDGET" : ""),
  );
}
await esbuild.stop();
if (failed) Deno.exit(1);
