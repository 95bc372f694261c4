/**
 * Writes lib/crawl/sources/yauaa-robots.tsv from a checkout of nielsbasjes/yauaa (Apache-2.0): the names of its
 * named-robot lookups (NamedRobots, NamedGoogleRobots: a product name → "vendor|robot name" or a description)
 * and of its hacker tool kits (HackerToolKits: scanners), one `name<TAB>lookup<TAB>description` a line, for
 * scripts/build_catalog.ts to filter like the other names-only lists.
 *   deno run -A scripts/extract_yauaa_robots.ts YAUAA_CHECKOUT_DIR COMMIT
 */
const [dir, commit] = Deno.args;
if (!dir || !commit) throw new Error("usage: extract_yauaa_robots.ts YAUAA_CHECKOUT_DIR COMMIT");
const base = `${dir}/analyzer/src/main/resources/UserAgents`;
const LOOKUPS: [string, string][] = [
  ["Robots.yaml", "NamedRobots"],
  ["Robots-Google.yaml", "NamedGoogleRobots"],
  ["Hackers.yaml", "HackerToolKits"],
];
/** A quoted YAML scalar's text ('' or \" inside). */
const unquote = (s: string) => {
  const t = s.trim();
  if (t.startsWith("'")) return t.slice(1, t.lastIndexOf("'")).replace(/''/g, "'");
  if (t.startsWith('"')) return t.slice(1, t.lastIndexOf('"')).replace(/\\"/g, '"');
  return t;
};
const rows: string[] = [];
for (const [file, lookup] of LOOKUPS) {
  const lines = (await Deno.readTextFile(`${base}/${file}`)).split("\n");
  const start = lines.findIndex((l) => new RegExp(`^ +name: ['"]${lookup}['"]`).test(l));
  if (start < 0) throw new Error(`${lookup} not found in ${file}`);
  let inMap = false;
  for (const line of lines.slice(start + 1)) {
    if (/^- /.test(line) || /^\S/.test(line)) break;
    if (/^ {4}map:/.test(line)) inMap = true;
    else if (/^ {4}\S/.test(line)) inMap = false;
    const m = inMap && /^ {6}(['"].*?['"])\s*:\s*(['"].*['"])\s*(?:#.*)?$/.exec(line);
    if (m) rows.push(`${unquote(m[1])}\t${lookup}\t${unquote(m[2])}`);
  }
}
const header = [
  `# nielsbasjes/yauaa (Apache-2.0, Copyright (C) 2013-2026 Niels Basjes), commit ${commit}`,
  "# the named robots and hacker tool kits of its lookups (Robots.yaml NamedRobots, Robots-Google.yaml",
  "# NamedGoogleRobots, Hackers.yaml HackerToolKits); built by scripts/extract_yauaa_robots.ts; name<TAB>lookup<TAB>value",
];
await Deno.writeTextFile(
  new URL("../lib/crawl/sources/yauaa-robots.tsv", import.meta.url),
  [...header, ...rows].join("\n") + "\n",
);
console.log(`${rows.length} names`);
