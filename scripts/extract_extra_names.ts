/**
 * Extracts the names two more permissively licensed parsers give robots and people's software into
 * lib/crawl/sources/extra-names.tsv, one line name<TAB>source<TAB>kind (browser, app or robot), names only
 * (twenty-third round; the same format as more-names.tsv, read by scripts/build_catalog.ts the same way):
 * - commenthol/ua-parser2 0.5.1 (npm `ua-parser2@0.5.1`, commit 7f7b77a; its regexes.yaml is Apache-2.0, the
 *   code MIT or Apache-2.0): a fork of uap-core's parsers that types each entry (`bot`, `bot::monitor`,
 *   `bot::healthcheck`, `app`, `mail`, `podcast`, `mediaplayer`, `app::webdav`; an entry without a type is a
 *   browser; `headless`, `storage` and `proxy`, libraries and tools, are left out, and so is `feedreader`, whose
 *   list mixes desktop readers with services that fetch for many). The names are the
 *   literal alternatives of each entry's first capture group (an optional suffix group `(?:-Setaccio|)` cut, an
 *   alternative still holding a pattern left out), or the entry's family where the group gives none;
 * - mycsharp/HttpUserAgentParser (MIT, commit 01fe87d): src/HttpUserAgentParser/HttpUserAgentStatics.cs, the
 *   strings its `Robots` table matches.
 * scripts/build_catalog.ts reads the robots as a parser's curated robots (the names-only filters, a plain word must
 * say bot, EXTRA_SKIPPED) and the people's names like more-names.tsv's.
 *   deno run -A scripts/extract_extra_names.ts UA_PARSER2_REGEXES_YAML HTTPUSERAGENTSTATICS_CS
 * where the first is `package/regexes.yaml` of `npm pack ua-parser2@0.5.1` and the second the file above at the
 * commit named (`git show 01fe87d:src/HttpUserAgentParser/HttpUserAgentStatics.cs`).
 */
import { splitAlternatives } from "./regex_words.ts";

const [yamlFile, csFile] = Deno.args;
if (!yamlFile || !csFile) throw new Error("usage: extract_extra_names.ts REGEXES_YAML STATICS_CS");

const UAP2 = "commenthol/ua-parser2@7f7b77a";
const MYCSHARP = "mycsharp/HttpUserAgentParser@01fe87d";
const HEADER = [
  "# Names robots and people's software go by, as two more parsers name them (names only, no agents); built by",
  "# scripts/extract_extra_names.ts; each line name<TAB>source<TAB>kind (browser, app, robot).",
  `# ${UAP2}: commenthol/ua-parser2 0.5.1 (npm ua-parser2@0.5.1), commit 7f7b77ad4d2ab2db8d30769ede218b01d462f188,` +
  " regexes.yaml Apache-2.0.",
  `# ${MYCSHARP}: mycsharp/HttpUserAgentParser commit 01fe87d30f2d9ad25f75239432af9667151d6631, MIT.`,
];

type Kind = "browser" | "app" | "robot";
type Entry = { regex: string; type?: string; family?: string; parent?: Entry };

/** A YAML scalar as regexes.yaml writes them: single-quoted, double-quoted (escapes, folded lines) or plain. */
function scalar(lines: string[], at: number, value: string): [string, number] {
  if (value.startsWith("'")) {
    let text = value.slice(1);
    while (!/(^|[^'])'(?:'')*$/.test(text) || /^'*$/.test(text) && text.length % 2 === 0) {
      text += " " + lines[++at].trim();
    }
    return [text.slice(0, -1).replaceAll("''", "'"), at];
  }
  if (value.startsWith('"')) {
    let raw = value.slice(1);
    // a double-quoted scalar ends at an unescaped quote; a line break inside it folds to a space, or to nothing
    // after a trailing backslash
    while (!/(^|[^\\])(?:\\\\)*"\s*$/.test(raw)) {
      const next = lines[++at].trim();
      raw = raw.endsWith("\\") ? raw.slice(0, -1) + next : raw + " " + next;
    }
    raw = raw.replace(/"\s*$/, "");
    return [raw.replace(/\\(.)/g, (_, c: string) => c === "n" ? "\n" : c === "t" ? "\t" : c), at];
  }
  return [value.trim(), at];
}

/** The entries of user_agent_parsers with the entry each is a group member of (its type is inherited). */
function uap2Entries(text: string): Entry[] {
  const lines = text.split("\n");
  const start = lines.findIndex((l) => l.startsWith("user_agent_parsers:"));
  const entries: Entry[] = [];
  const groups: { indent: number; entry: Entry }[] = [];
  let current: Entry | null = null;
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i];
    if (/^\S/.test(line)) break; // the next top-level section
    const item = /^(\s*)- regex: (.*)$/.exec(line);
    const key = /^(\s*)(\w+): ?(.*)$/.exec(line);
    if (item) {
      const indent = item[1].length;
      while (groups.length && groups[groups.length - 1].indent > indent) groups.pop();
      const [regex, end] = scalar(lines, i, item[2]);
      i = end;
      current = { regex, parent: groups[groups.length - 1]?.entry };
      entries.push(current);
    } else if (key && current) {
      if (key[2] === "group") groups.push({ indent: key[1].length, entry: current });
      else if (key[2] === "type" || key[2] === "family") {
        const [value, end] = scalar(lines, i, key[3]);
        i = end;
        current[key[2]] = value;
      }
    }
  }
  return entries;
}

/** The text of a pattern's first capturing group, or null. */
function firstGroup(re: string): string | null {
  for (let i = 0; i < re.length; i++) {
    if (re[i] === "\\") {
      i++;
      continue;
    }
    if (re[i] !== "(" || re[i + 1] === "?") continue;
    let depth = 0;
    for (let j = i; j < re.length; j++) {
      if (re[j] === "\\") {
        j++;
        continue;
      }
      if (re[j] === "(") depth++;
      if (re[j] === ")" && --depth === 0) return re.slice(i + 1, j);
    }
    return null;
  }
  return null;
}

/** An alternative as a literal name (optional suffix groups cut), or null while it holds a pattern. */
function literal(alt: string): string | null {
  const text = alt.trim()
    .replace(/\(\?:[^()]*\|\)/g, "") // an optional suffix: "IlTrovatore(?:-Setaccio|)"
    .replace(/\\s\{0,\d+\}/g, "")
    .replaceAll("\\b", "").replace(/^\^|\$$/g, "")
    .replace(/\\([./\-!:% ])/g, "$1");
  if (/[[\]{}()?*+|\\^$]/.test(text) || text.includes("__")) return null;
  const name = text.replace(/^[ _/]+|[ _/]+$/g, "");
  return name.length >= 3 ? name : null;
}

function kindOf(e: Entry): Kind | null {
  let type: string | undefined;
  for (let at: Entry | undefined = e; at && type === undefined; at = at.parent) type = at.type;
  if (type === undefined) return "browser";
  if (type.startsWith("bot")) return "robot";
  if (["headless", "storage", "proxy"].includes(type)) return null; // libraries, storage tools, proxies
  // its feed readers mix people's desktop readers with services that fetch for many (FeedBlitz, Alltop, AideRSS,
  // Digg Feed Fetcher, a PHP script's rss2html): no people's names from there
  if (type === "feedreader") return null;
  return "app";
}

const rows: [string, string, Kind][] = [];
const seen = new Set<string>();
const add = (name: string, source: string, kind: Kind) => {
  const key = `${name.toLowerCase()}\t${kind}`;
  if (seen.has(key)) return;
  seen.add(key);
  rows.push([name, source, kind]);
};

const entries = uap2Entries(await Deno.readTextFile(yamlFile));
const parents = new Set(entries.flatMap((e) => e.parent ? [e.parent] : []));
for (const e of entries) {
  if (parents.has(e)) continue; // a group's own pattern only picks the agents its members read
  const kind = kindOf(e);
  if (!kind) continue;
  const group = firstGroup(e.regex);
  const names = group === null ? [] : splitAlternatives(group).map(literal).filter((n) => n !== null);
  if (!names.length && e.family && !e.family.includes("$") && e.family.length >= 3) names.push(e.family);
  for (const n of names) add(n, UAP2, kind);
}

const cs = await Deno.readTextFile(csFile);
const robots = /Robots\s*=\s*\[([\s\S]*?)\];/.exec(cs)?.[1] ?? "";
for (const m of robots.matchAll(/\(\s*"([^"]+)"\s*,/g)) add(m[1], MYCSHARP, "robot");

const out = [...HEADER, ...rows.map((r) => r.join("\t"))].join("\n") + "\n";
await Deno.writeTextFile(new URL("../lib/crawl/sources/extra-names.tsv", import.meta.url), out);
const counts = rows.reduce((c, r) => ({ ...c, [r[2]]: (c[r[2]] ?? 0) + 1 }), {} as Record<string, number>);
console.log(`extra-names.tsv: ${rows.length} names`, counts);
