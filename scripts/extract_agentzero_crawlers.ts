/**
 * Extracts the robots hexydec/agentzero (MIT, https://github.com/hexydec/agentzero) names in its crawler mapping
 * (src/mappings/crawlers.php) into lib/crawl/sources/agentzero-crawlers.tsv, each line name<TAB>category (its own
 * category: search, ads, ai, feed, validator, monitor, crawler, scraper): the literal tokens its `get()` matches
 * (`'Google-CWS' => new props('exact', $fn['validator'])`), with the category their function or array sets, and
 * the lower-case names of its `$category` and `$apps` tables. scripts/build_catalog.ts reads the file as a
 * names-only list with the usual filters (people's software, libraries and plain words stay out).
 *   deno run -A scripts/extract_agentzero_crawlers.ts AGENTZERO_CHECKOUT_DIR COMMIT
 */
const [dir, commit] = Deno.args;
if (!dir || !commit) throw new Error("usage: extract_agentzero_crawlers.ts AGENTZERO_CHECKOUT_DIR COMMIT");
const lines = (await Deno.readTextFile(`${dir}/src/mappings/crawlers.php`)).split("\n");
const names = new Map<string, string>();
const unescape = (s: string) => s.replace(/\\(.)/g, "$1");
let table: "category" | "apps" | null = null;
const categoryOf = new Map<string, string>();
for (let i = 0; i < lines.length; i++) {
  const line = lines[i];
  if (/\$category = \[/.test(line)) table = "category";
  else if (/\$apps = \[/.test(line)) table = "apps";
  else if (table && /^\t*\];/.test(line)) table = null;
  const entry = /^\t+'((?:[^'\\]|\\.)+)' => '(\w[^']*)',?(?:\s*\/\/.*)?$/.exec(line);
  if (table && entry) {
    const name = unescape(entry[1]);
    if (table === "category") categoryOf.set(name.toLowerCase(), entry[2]);
    if (!names.has(name.toLowerCase())) names.set(name.toLowerCase(), name);
    continue;
  }
  // a token of get(): its category from the function it calls or the array it returns, up to the next token
  const token = /^\t\t\t'((?:[^'\\]|\\.)+)' => new props\('\w+'/.exec(line);
  if (!token) continue;
  const name = unescape(token[1]);
  let category = /\$fn\['(\w+)'\]/.exec(line)?.[1] ?? null;
  for (let j = i + 1; category === null && j < lines.length && !/ => new props\(/.test(lines[j]); j++) {
    category = /'category' => '(\w+)'/.exec(lines[j])?.[1] ?? null;
  }
  names.set(name.toLowerCase(), name);
  if (category && category !== "map") categoryOf.set(name.toLowerCase(), category);
}
const out = [
  `# hexydec/agentzero (MIT License, Copyright (c) 2023 Will Earp, https://github.com/hexydec/agentzero) commit ${commit}`,
  "# src/mappings/crawlers.php: the tokens its crawler mapping matches and the names of its category and app tables;",
  "# built by scripts/extract_agentzero_crawlers.ts; each line name<TAB>agentzero's category (crawler when it sets none)",
  ...[...names].map(([lower, name]) => `${name.trim()}\t${categoryOf.get(lower) ?? "crawler"}`),
];
await Deno.writeTextFile(
  new URL("../lib/crawl/sources/agentzero-crawlers.tsv", import.meta.url),
  out.join("\n") + "\n",
);
console.log(`${names.size} names`);
