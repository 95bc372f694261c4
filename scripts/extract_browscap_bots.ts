/**
 * Writes lib/crawl/sources/browscap-bots.tsv: the robots browscap/browscap (MIT) names, as name<TAB>kind lines.
 * A robot is a "browser" of browscap's bot or syndication-reader types (resources/browsers/); its name is kept
 * only when it is written, as a word, in one of the agent patterns browscap matches it by
 * (resources/user-agents/**), so every name is one the robot's own agents carry.
 *   git archive <commit> resources | tar -x -C DIR; deno run -A scripts/extract_browscap_bots.ts DIR <commit>
 */
const [dir, commit] = Deno.args;
if (!dir || !commit) throw new Error("usage: extract_browscap_bots.ts <browscap checkout> <commit>");

type Browser = { type: string; properties: { Browser?: string } };
const robots = new Map<string, { name: string; kind: string }>();
for (const file of ["bot.json", "bot-syndication-reader.json"]) {
  const defs = JSON.parse(await Deno.readTextFile(`${dir}/resources/browsers/${file}`)) as Record<
    string,
    Browser
  >;
  for (const [key, b] of Object.entries(defs)) {
    if (b.properties.Browser) robots.set(key, { name: b.properties.Browser, kind: b.type });
  }
}

type Child = { match: string; browser?: string };
type Group = { userAgent: string; browser?: string; children?: Child[] };
const patterns = new Map<string, string[]>();
async function walk(path: string) {
  for await (const entry of Deno.readDir(path)) {
    const p = `${path}/${entry.name}`;
    if (entry.isDirectory) await walk(p);
    else if (entry.name.endsWith(".json")) {
      const doc = JSON.parse(await Deno.readTextFile(p)) as { userAgents?: Group[] };
      for (const g of doc.userAgents ?? []) {
        for (const c of [{ match: g.userAgent, browser: g.browser }, ...(g.children ?? [])]) {
          const key = c.browser ?? g.browser;
          if (!key || !robots.has(key)) continue;
          const list = patterns.get(key) ?? [];
          list.push(c.match.replace(/#[A-Z_]+#/g, "*"));
          patterns.set(key, list);
        }
      }
    }
  }
}
await walk(`${dir}/resources/user-agents`);

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const lines = new Set<string>();
for (const [key, { name, kind }] of robots) {
  const re = new RegExp(`(?<![a-z0-9])${escape(name.toLowerCase())}(?![a-z0-9])`);
  // the literal parts of a pattern, between its wildcards
  const literal = (patterns.get(key) ?? []).some((p) =>
    p.toLowerCase().split(/[*?]/).some((s) => re.test(s))
  );
  if (literal) lines.add(`${name}\t${kind}`);
}
const header = [
  `# browscap/browscap (MIT, Copyright (c) 1998-2017 Browser Capabilities Project), commit ${commit}`,
  "# robots of its bot and syndication-reader types whose name is written in their own agent patterns",
  "# built by scripts/extract_browscap_bots.ts; name<TAB>browscap type",
];
await Deno.writeTextFile(
  new URL("../lib/crawl/sources/browscap-bots.tsv", import.meta.url),
  [...header, ...[...lines].sort((a, b) => a.localeCompare(b))].join("\n") + "\n",
);
console.log(`${lines.size} of ${robots.size} robots named in their own patterns`);
