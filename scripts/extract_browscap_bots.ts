/**
 * Writes lib/crawl/sources/browscap-bots.tsv and browscap-people.tsv: the robots and the people's software
 * browscap/browscap (MIT) names, as name<TAB>type lines. A robot is a "browser" of browscap's bot or
 * syndication-reader types (resources/browsers/), people's software one of its browser, application, email-client,
 * multimedia-player and feed-reader types; a name is kept only when it is written, as a word, in one of the agent
 * patterns browscap matches it by (resources/user-agents/**), so every name is one its own agents carry. Also
 * browscap-addons.tsv: the product a people's pattern writes right after a whole browser agent's own product.
 *   git archive <commit> resources | tar -x -C DIR; deno run -A scripts/extract_browscap_bots.ts DIR <commit>
 */
const [dir, commit] = Deno.args;
if (!dir || !commit) throw new Error("usage: extract_browscap_bots.ts <browscap checkout> <commit>");

type Browser = { type: string; properties: { Browser?: string } };
const ROBOT_FILES = ["bot.json", "bot-syndication-reader.json"];
const PEOPLE_FILES = [
  "browser.json",
  "application.json",
  "email-client.json",
  "multimedia-player.json",
  "feed-reader.json",
];
const robots = new Map<string, { name: string; kind: string }>();
for (const file of [...ROBOT_FILES, ...PEOPLE_FILES]) {
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
const people = new Set<string>();
for (const [key, { name, kind }] of robots) {
  const re = new RegExp(`(?<![a-z0-9])${escape(name.toLowerCase())}(?![a-z0-9])`);
  // the literal parts of a pattern, between its wildcards
  const literal = (patterns.get(key) ?? []).some((p) =>
    p.toLowerCase().split(/[*?]/).some((s) => re.test(s))
  );
  if (literal) (/^bot/.test(kind) ? lines : people).add(`${name}\t${kind}`);
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
header[1] =
  "# people's browsers, apps, mail clients, media players and feed readers named in their own agent patterns";
await Deno.writeTextFile(
  new URL("../lib/crawl/sources/browscap-people.tsv", import.meta.url),
  [...header, ...[...people].sort((a, b) => a.localeCompare(b))].join("\n") + "\n",
);
console.log(`${lines.size} robots and ${people.size} people's programs named in their own patterns`);

// A people's browser's add-on: the product a pattern of browscap's people's software writes right after a whole
// browser agent's own product ("… Chrome/* Safari/* Seznam.cz/*", "… Mobile/* Safari/* bingipadclient*"): the
// name the structural rule asks about when it reads such an agent, whatever browscap calls the program.
const BROWSER_END =
  /(?:^|\s)(?:Mobile )?(?:Safari|Firefox|Chrome|Chromium)\/\*\)? ([A-Za-z][\w.-]*[A-Za-z0-9])(?:\/|\*|$)/;
const addOns = new Set<string>();
for (const [key, { name, kind }] of robots) {
  if (/^bot/.test(kind)) continue;
  for (const p of patterns.get(key) ?? []) {
    const m = BROWSER_END.exec(p);
    if (m && !/^(?:Safari|Firefox|Chrome|Chromium|Mobile|Version|Gecko)$/i.test(m[1])) {
      addOns.add(`${m[1]}\t${kind}\t${name}`);
    }
  }
}
header[1] =
  "# the product people's software writes after a whole browser agent's own product in its agent patterns";
header[2] = "# built by scripts/extract_browscap_bots.ts; product<TAB>browscap type<TAB>browscap's name";
await Deno.writeTextFile(
  new URL("../lib/crawl/sources/browscap-addons.tsv", import.meta.url),
  [...header, ...[...addOns].sort((a, b) => a.localeCompare(b))].join("\n") + "\n",
);
console.log(`${addOns.size} products people's software writes after a browser's own`);
