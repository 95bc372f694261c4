/**
 * Builds the web SDK: sdk/web/dist/sdk.js (ES module) and sdk/web/dist/sdk.iife.js (classic script),
 * minified, with web-vitals inside. Prints each file's gzipped size and fails past the 10 KB budget.
 *   deno run -A scripts/build_web.ts
 * Browser tests call buildWebSdk() to bundle from source into memory.
 */
import * as esbuild from "esbuild";
import { gzipSync } from "node:zlib";

export const LIMIT_BYTES = 10 * 1024;
const root = new URL("../sdk/web/", import.meta.url).pathname;

export interface Bundle {
  file: "sdk.js" | "sdk.iife.js";
  code: Uint8Array;
  gzipped: number;
}

/** Bundles both entries from source; nothing is written. */
export async function buildWebSdk(): Promise<Bundle[]> {
  const entries = [
    { file: "sdk.js" as const, entry: "src/index.ts", format: "esm" as const },
    { file: "sdk.iife.js" as const, entry: "src/iife.ts", format: "iife" as const },
  ];
  try {
    const out: Bundle[] = [];
    for (const e of entries) {
      const result = await esbuild.build({
        entryPoints: [root + e.entry],
        format: e.format,
        bundle: true,
        minify: true,
        write: false,
        target: "es2020",
        platform: "browser",
        legalComments: "none",
        logLevel: "warning",
        nodePaths: [new URL("../node_modules/", import.meta.url).pathname],
      });
      const code = result.outputFiles[0].contents;
      out.push({ file: e.file, code, gzipped: gzipSync(code, { level: 9 }).length });
    }
    return out;
  } finally {
    await esbuild.stop();
  }
}

if (import.meta.main) {
  await Deno.mkdir(root + "dist", { recursive: true });
  let over = false;
  for (const b of await buildWebSdk()) {
    await Deno.writeFile(root + "dist/" + b.file, b.code);
    over ||= b.gzipped > LIMIT_BYTES;
    console.log(
      `sdk/web/dist/${b.file}: ${b.code.length} bytes, ${b.gzipped} bytes gzipped ` +
        `(${(b.gzipped / 1024).toFixed(2)} KB of ${LIMIT_BYTES / 1024} KB)` +
        (b.gzipped > LIMIT_BYTES ? "  OVER BUDGET" : ""),
    );
  }
  if (over) Deno.exit(1);
}
