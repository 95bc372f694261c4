/**
 * Builds the views: one esbuild bundle of views/main.ts, inlined with the style sheet into one HTML document
 * per tool (build/views/<tool>.html). Nothing is fetched from anywhere when a view runs: the host's default
 * CSP (inline script and style only) is all it needs. Run by scripts/build.ts at deploy, so the server only
 * reads these files (Deno Deploy's file system is read-only at run time).
 */
import * as esbuild from "esbuild";
import { VIEW_MAX_BYTES, VIEW_TOOLS, VIEWS_DIR } from "./catalog.ts";
import { STYLE } from "./style.ts";
import { TOOL_TITLES } from "../toolkit/titles.ts";

const escape = (t: string) => t.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

export function viewDocument(tool: string, script: string): string {
  // a "</script" inside the bundle would end the element early
  const safe = script.replaceAll("</script", "<\\/script");
  return `<!DOCTYPE html>
<html lang="en" data-tool="${escape(tool)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${escape(TOOL_TITLES[tool] ?? tool)}</title>
<style>${STYLE}</style>
</head>
<body>
<main id="app" aria-live="polite"><p class="scope">Waiting for the answer…</p></main>
<script>${safe}</script>
</body>
</html>
`;
}

export async function bundleViews(): Promise<string> {
  const out = await esbuild.build({
    entryPoints: [new URL("./main.ts", import.meta.url).pathname],
    bundle: true,
    write: false,
    format: "iife",
    minify: true,
    target: "es2022",
    platform: "browser",
    legalComments: "none",
  });
  await esbuild.stop();
  return out.outputFiles[0].text;
}

/** Writes every view; returns each file and its size. Refuses a view over the size limit. */
export async function buildViews(dir: URL = VIEWS_DIR): Promise<{ file: string; bytes: number }[]> {
  const script = await bundleViews();
  await Deno.mkdir(dir, { recursive: true });
  const written = [];
  for (const tool of VIEW_TOOLS) {
    const html = viewDocument(tool, script);
    const bytes = new TextEncoder().encode(html).length;
    if (bytes > VIEW_MAX_BYTES) throw new Error(`view ${tool} is ${bytes} bytes, over ${VIEW_MAX_BYTES}`);
    const file = new URL(`${tool}.html`, dir);
    await Deno.writeTextFile(file, html);
    written.push({ file: file.pathname, bytes });
  }
  return written;
}
