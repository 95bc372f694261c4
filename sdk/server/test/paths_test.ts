import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { classifyPath, type PathKind } from "../src/index.ts";

/** Rule 2: every kind of path, with the kind it must get. */
const PATHS: Array<[string, PathKind]> = [
  // HTML documents, with or without extension, and paths that merely contain a dot
  ["/", "page"],
  ["/pricing", "page"],
  ["/blog/2026/11/hello-world/", "page"],
  ["/index.html", "page"],
  ["/docs/page.htm", "page"],
  ["/legacy/index.php", "page"],
  ["/shop/item.aspx", "page"],
  ["/releases/v1.2.3", "page"],
  ["/users/jane.doe", "page"],
  ["/blog/node.js-tips", "page"],
  ["/apiary", "page"],
  ["/pings-and-pongs", "page"],
  ["/healthy-recipes", "page"],
  // crawler files, at the root or deeper, any case
  ["/robots.txt", "crawler_file"],
  ["/llms.txt", "crawler_file"],
  ["/llms-full.txt", "crawler_file"],
  ["/docs/llms.txt", "crawler_file"],
  ["/ROBOTS.TXT", "crawler_file"],
  ["/sitemap.xml", "crawler_file"],
  ["/sitemap_index.xml", "crawler_file"],
  ["/post-sitemap2.xml", "crawler_file"],
  ["/sitemaps/sitemap-products-1.xml", "crawler_file"],
  ["/sitemap-1.xml.gz", "crawler_file"],
  ["/exports/pages.xml.gz", "crawler_file"],
  // assets: a known extension on the last segment
  ["/assets/app.3f9a1c.js", "asset"],
  ["/app.mjs", "asset"],
  ["/styles/main.css", "asset"],
  ["/main.css.map", "asset"],
  ["/favicon.ico", "asset"],
  ["/images/hero.webp", "asset"],
  ["/img/logo.SVG", "asset"],
  ["/photo.jpeg", "asset"],
  ["/fonts/inter.woff2", "asset"],
  ["/video/intro.mp4", "asset"],
  ["/whitepaper.pdf", "asset"],
  ["/download/app.zip", "asset"],
  ["/manifest.webmanifest", "asset"],
  ["/data.json", "asset"],
  ["/feed.xml", "asset"],
  ["/rss.xml", "asset"],
  ["/ads.txt", "asset"],
  ["/.well-known/security.txt", "asset"],
  // application and infrastructure endpoints
  ["/api", "ignored"],
  ["/api/v1/users", "ignored"],
  ["/graphql", "ignored"],
  ["/_next/static/chunks/main.js", "ignored"],
  ["/_next/data/build/index.json", "ignored"],
  ["/health", "ignored"],
  ["/healthz", "ignored"],
  ["/livez", "ignored"],
  ["/readyz", "ignored"],
  ["/ping", "ignored"],
  ["/API/v2", "ignored"],
];

describe("path rule: each kind of path", () => {
  for (const [path, kind] of PATHS) {
    test(`${path} is ${kind}`, () => assert.equal(classifyPath(path), kind));
  }
});

test("path rule: configured ignorePaths take prefixes and regular expressions", () => {
  const ignore = ["/admin", /^\/preview\//, /\/draft-[0-9]+$/g];
  assert.equal(classifyPath("/admin", ignore), "ignored");
  assert.equal(classifyPath("/admin/users", ignore), "ignored");
  assert.equal(classifyPath("/preview/post-1", ignore), "ignored");
  assert.equal(classifyPath("/blog/draft-12", ignore), "ignored");
  // a global RegExp keeps lastIndex between calls; the result must not flip
  assert.equal(classifyPath("/blog/draft-12", ignore), "ignored");
  assert.equal(classifyPath("/blog/final", ignore), "page");
  assert.equal(classifyPath("/previews", ignore), "page");
  assert.equal(classifyPath("/robots.txt", ["/robots"]), "ignored");
});
