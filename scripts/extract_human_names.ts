/**
 * Extracts the names three permissively licensed parsers give people's browsers, engines, systems and apps into
 * lib/crawl/sources/human-names.tsv, one line name<TAB>source<TAB>kind (browser, engine, os or app), names only:
 * - ua-parser-js 1.0.41 (MIT; its last MIT release, the 2.x line is AGPL and never used): the literal names in
 *   its browser, engine and OS rules' regexes and the names those rules report (`[NAME, 'Sogou Explorer']`,
 *   `[NAME, OPERA+' GX']`), from src/ua-parser.js of the npm package (`npm pack ua-parser-js@1.0.41`);
 * - hexydec/agentzero (MIT, commit 83c4b5e): the tokens its browser and app mappings match
 *   (src/mappings/browsers.php, apps.php: `'Dooble/' => new props('start', …)`) and the browser and app names
 *   they report (`'app' => 'Todoist'`, getApp's and getBrowser's `$map`);
 * - bowser 2.15.1 (MIT, npm package): its browser names (src/constants.js BROWSER_ALIASES_MAP) and the literal
 *   names its browser tests match (src/parser-browsers.js `test: [/sailfish/i]`).
 * scripts/build_catalog.ts reads the file into the known human product names (lib/crawl/human_tokens.json),
 * leaving out any name the catalog holds, an automation sign claims, or an own corpus part's crawler or
 * automation agent is known by (bots the parsers also name: bowser's Googlebot, agentzero's FlipboardProxy).
 *   deno run -A scripts/extract_human_names.ts UAPJS_PACKAGE_DIR AGENTZERO_CHECKOUT_DIR BOWSER_PACKAGE_DIR
 * (AGENTZERO_CHECKOUT_DIR at commit 83c4b5e; the package dirs are the unpacked npm tarballs' `package/`.)
 */
import { regexWords } from "./regex_words.ts";

const AGENTZERO_COMMIT = "83c4b5e5c36c11b0cf6f9ce208de31b9112d4fc5";
const [uapjsDir, agentzeroDir, bowserDir] = Deno.args;
if (!uapjsDir || !agentzeroDir || !bowserDir) {
  throw new Error(
    "usage: extract_human_names.ts UAPJS_PACKAGE_DIR AGENTZERO_CHECKOUT_DIR BOWSER_PACKAGE_DIR",
  );
}
const pkg = async (dir: string) => JSON.parse(await Deno.readTextFile(`${dir}/package.json`));
const uapjs = await pkg(uapjsDir), bowser = await pkg(bowserDir);
if (uapjs.version !== "1.0.41" || uapjs.license !== "MIT") {
  throw new Error("ua-parser-js must be 1.0.41 (MIT)");
}
if (bowser.license !== "MIT") throw new Error("bowser must be MIT");

type Kind = "browser" | "engine" | "os" | "app";
/** Words the rules and tables hold that name no product: agent parts, platforms, makers, a parser's fallback. */
const NOT_NAMES = new Set([
  ...["browser", "version", "engine", "explorer", "generic", "player", "app", "android", "ios", "windows"],
  ...["apple", "google", "ipad", "samsung", "huawei", "vivo", "line", "applewebkit", "webkit", "gecko"],
  // pieces of the OS rules: editions, makers, architectures, words around a name ("red ?hat", "like mac")
  ...[
    "microsoft",
    "vista",
    "phone",
    "iot",
    "arm",
    "win",
    "win 9x",
    "windows nt 6",
    "like mac",
    "like android",
  ],
  ...["iphone", "fbsv", "tablet", "series", "watch", "red", "hat", "enterprise", "package", "x86", "amd"],
  ...["open", "chrom", "mmh", "wos", "arch", "panasonic", "mac_powerpc", "android x86", "s60", "bsd"],
]);
const out = new Map<string, [string, string, Kind]>(); // lower-case name -> [name, source, kind]
const add = (name: string, source: string, kind: Kind) => {
  const n = name.trim().replace(/[/ ]+$/, "");
  if (NOT_NAMES.has(n.toLowerCase())) return;
  // a name as agents write it: a letter first, then letters, digits and the joiners names use
  if (!/^[A-Za-z][\w .+!-]*[\w+!]$/.test(n) || n.replace(/[^a-z0-9]/gi, "").length < 3) return;
  const key = `${n.toLowerCase()}\t${source}`;
  if (!out.has(key)) out.set(key, [n, source, kind]);
};

// ua-parser-js: the browser and engine rules (the regex literals that start a line, and the names they report)
const uaSrc = await Deno.readTextFile(`${uapjsDir}/src/ua-parser.js`);
const constants = new Map<string, string>();
for (const m of uaSrc.slice(0, uaSrc.indexOf("browser : [[")).matchAll(/\b([A-Z_]+)\s*=\s*'([^']*)'/g)) {
  constants.set(m[1], m[2]);
}
/** A reported name: a quoted string or constants joined with "+" (`OPERA+' GX'`, `'MIUI' + SUFFIX_BROWSER`). */
const reported = (expr: string): string | null => {
  let s = "";
  for (const part of expr.split("+").map((p) => p.trim())) {
    const quoted = /^'([^']*)'$/.exec(part);
    if (quoted) s += quoted[1];
    else if (constants.has(part)) s += constants.get(part);
    else return null; // a replacement pattern ('$1 Secure '+BROWSER) reports no fixed name
  }
  return s;
};
const UAPJS = "ua-parser-js@1.0.41";
const RULES = [
  ["browser : [[", "cpu : [[", "browser"],
  ["engine : [[", "os : [[", "engine"],
  ["os : [[", "// Constructor", "os"],
] as const;
for (const [start, end, kind] of RULES) {
  const rules = uaSrc.slice(uaSrc.indexOf(start), uaSrc.indexOf(end));
  for (const literal of rules.match(/^\s*\/(?:[^/\n\\]|\\.)+\/[gi]*/gm) ?? []) {
    for (const word of regexWords(literal.trim())) add(word, UAPJS, kind);
  }
  for (const m of rules.matchAll(/\[NAME, ([^\]/]+)\]/g)) {
    const name = reported(m[1]);
    if (name) add(name, UAPJS, kind);
  }
}

// agentzero: the tokens its browser and app mappings match, and the names they report
const AGENTZERO = `hexydec/agentzero@${AGENTZERO_COMMIT.slice(0, 7)}`;
/** Tokens that are parts of every agent or an app's settings, not a product's name. */
const AGENTZERO_PARTS =
  /^(?:Mozilla|rv|Trident|MSIE|App|AppName|app_version|AppVersion|AppTheme|isDarkMode|dark-mode|Android App|com\.google\.)$/;
for (const [file, kind] of [["browsers", "browser"], ["apps", "app"]] as const) {
  const php = await Deno.readTextFile(`${agentzeroDir}/src/mappings/${file}.php`);
  for (const m of php.matchAll(/^\t+'([^'\\]+)' => new props\(/gm)) {
    // a product token ("Dooble/", "Maxthon "), the name before any slash ("Sanoma/app", "Player/LG")
    const name = m[1].trim().split("/")[0].trim();
    if (!AGENTZERO_PARTS.test(name)) add(name, AGENTZERO, kind);
  }
  for (const m of php.matchAll(/'(?:browser|app|appname)' => '([^'\\]+)'/g)) add(m[1], AGENTZERO, kind);
  // getApp's and getBrowser's maps: a token and the name it reports ("'YaApp_iOS' => 'Yandex'")
  for (const block of php.matchAll(/\$map = \[\n([^\]]*)\];/g)) {
    for (const m of block[1].matchAll(/^\t+'([^'\\]+)' => '([^'\\]+)',?$/gm)) {
      add(m[1], AGENTZERO, kind);
      add(m[2], AGENTZERO, kind);
    }
  }
}

// bowser: its browser names and the literal names its browser tests match
const BOWSER = `bowser@${bowser.version}`;
const bowserConstants = await Deno.readTextFile(`${bowserDir}/src/constants.js`);
const aliases = bowserConstants.slice(
  bowserConstants.indexOf("BROWSER_ALIASES_MAP"),
  bowserConstants.indexOf("BROWSER_MAP"),
);
for (const m of aliases.matchAll(/^\s+'?([^':]+)'?: '[^']*',$/gm)) add(m[1], BOWSER, "browser");
const bowserTests = await Deno.readTextFile(`${bowserDir}/src/parser-browsers.js`);
for (const m of bowserTests.matchAll(/test: \[([^\]]*)\]/g)) {
  for (const literal of m[1].match(/\/(?:[^/\\]|\\.)+\/[gi]*/g) ?? []) {
    for (const word of regexWords(literal)) add(word, BOWSER, "browser");
  }
}

const lines = [
  "# Names people's browsers, engines, systems and apps go by, as three parsers name them (names only, no",
  "# agents); built by scripts/extract_human_names.ts; each line name<TAB>source<TAB>kind (browser, engine, os, app).",
  `# ${UAPJS}: faisalman/ua-parser-js, MIT License, Copyright (c) 2012-2025 Faisal Salman; src/ua-parser.js`,
  "#   browser, engine and OS rules (the last MIT release; the 2.x line is AGPL and is not used).",
  `# ${AGENTZERO}: hexydec/agentzero commit ${AGENTZERO_COMMIT}, MIT License, Copyright (c) 2023`,
  "#   Will Earp; src/mappings/browsers.php and apps.php.",
  `# ${BOWSER}: bowser-js/bowser (npm bowser ${bowser.version}), MIT License, Copyright 2015 Dustin Diaz;`,
  "#   src/constants.js BROWSER_ALIASES_MAP and src/parser-browsers.js tests.",
  ...[...out.values()].map(([name, source, kind]) => `${name}\t${source}\t${kind}`),
];
await Deno.writeTextFile(
  new URL("../lib/crawl/sources/human-names.tsv", import.meta.url),
  lines.join("\n") + "\n",
);
console.log(`${out.size} names`);
