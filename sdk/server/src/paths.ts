/** Rule 2 of the sender-side reporting rules: which paths are page-like. */

export type PathKind = "page" | "crawler_file" | "asset" | "ignored";

/** A configured exclusion: a string is a path prefix, a RegExp is tested against the path. */
export type IgnorePath = string | RegExp;

/** Application and infrastructure endpoints that are never pages (a segment prefix: "/api" and "/api/..."). */
const SKIPPED_PREFIXES = [
  "/api",
  "/graphql",
  "/health",
  "/healthz",
  "/livez",
  "/readyz",
  "/ping",
];

/** Extensions of files that are not documents. `.html`, `.php` and the like are absent on purpose. */
// deno-fmt-ignore
const ASSET_EXTENSIONS = new Set([
  // scripts, styles, data
  "js", "mjs", "cjs", "jsx", "ts", "tsx", "map", "css", "scss", "less", "json", "jsonld", "xml", "rss", "atom",
  "txt", "csv", "tsv", "yaml", "yml", "wasm", "webmanifest", "ics", "vcf",
  // images
  "png", "jpg", "jpeg", "gif", "webp", "avif", "svg", "ico", "bmp", "tif", "tiff", "heic", "heif", "apng", "cur",
  // fonts
  "woff", "woff2", "ttf", "otf", "eot",
  // audio and video
  "mp4", "webm", "m4v", "mov", "avi", "mkv", "ogv", "mp3", "m4a", "wav", "ogg", "oga", "flac", "aac", "opus",
  "m3u8", "vtt", "srt",
  // documents and archives
  "pdf", "doc", "docx", "xls", "xlsx", "ppt", "pptx", "odt", "ods", "odp", "rtf", "epub", "zip", "gz", "tgz",
  "bz2", "xz", "7z", "rar", "tar", "br", "zst", "dmg", "exe", "msi", "apk", "ipa", "deb", "rpm", "iso", "bin",
]);

const CRAWLER_FILES = new Set(["robots.txt", "llms.txt", "llms-full.txt"]);

/** Classifies a URL path (without its query) for reporting. */
export function classifyPath(
  path: string,
  ignorePaths: readonly IgnorePath[] = [],
): PathKind {
  if (isIgnored(path, ignorePaths)) return "ignored";
  const last = path.slice(path.lastIndexOf("/") + 1).toLowerCase();
  if (isCrawlerFile(last)) return "crawler_file";
  const dot = last.lastIndexOf(".");
  if (dot > 0 && ASSET_EXTENSIONS.has(last.slice(dot + 1))) return "asset";
  return "page";
}

/** robots.txt, llms.txt, llms-full.txt and sitemap files: reported whatever their content type. */
function isCrawlerFile(lastSegment: string): boolean {
  if (CRAWLER_FILES.has(lastSegment)) return true;
  if (lastSegment.endsWith(".xml.gz")) return true;
  return lastSegment.endsWith(".xml") && lastSegment.includes("sitemap");
}

function isIgnored(path: string, ignorePaths: readonly IgnorePath[]): boolean {
  const lower = path.toLowerCase();
  if (lower.startsWith("/_next/")) return true;
  for (const prefix of SKIPPED_PREFIXES) {
    if (lower === prefix || lower.startsWith(prefix + "/")) return true;
  }
  for (const rule of ignorePaths) {
    if (
      typeof rule === "string" ? path.startsWith(rule) : testRegExp(rule, path)
    ) return true;
  }
  return false;
}

/** A global or sticky RegExp keeps state between calls; reset it so every path is tested from the start. */
function testRegExp(re: RegExp, path: string): boolean {
  re.lastIndex = 0;
  return re.test(path);
}
