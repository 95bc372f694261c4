/**
 * Extracts the names more permissively licensed parsers, bot checks and Debian's package data give people's
 * browsers and apps and robots into lib/crawl/sources/more-names.tsv, one line name<TAB>source<TAB>kind (browser,
 * app or robot), names only (twenty-first round; the names ua-parser-js, agentzero and bowser give are in
 * human-names.tsv, by scripts/extract_human_names.ts):
 * - HaraldWalker/user-agent-utils (BSD-3-Clause): src/main/java/eu/bitwalker/useragentutils/Browser.java, each
 *   entry's name and the strings it matches, by its BrowserType (web, mobile and text browsers → browser, e-mail
 *   clients and apps → app, robots → robot; tools and unknowns left out);
 * - bestiejs/platform.js (MIT): platform.js, the browser names its getName list detects;
 * - shon/httpagentparser (MIT): httpagentparser/__init__.py, each Browser detector's name and look_for strings
 *   (robot when the detector says `bot = True`);
 * - sinergi/php-browser-detector (MIT): src/Browser.php, its browser name constants (its robots' names, "MSN Bot",
 *   are display names and left out);
 * - woothee/woothee (Apache-2.0): dataset.yaml, names of category crawler → robot when woothee's own test agents
 *   (testsets/*.yaml targets) hold the name, browsers of the pc, smartphone, mobilephone and appliance categories
 *   → browser (systems and misc left out);
 * - alaz/legitbot (Apache-2.0): lib/legitbot/*.rb, the names each `rule` matches → robot;
 * - arp242/isbot (MIT): user_agent.go, knownBots → robot, knownBrowsers → browser;
 * - Debian 12 (bookworm) main, the Packages index: the packages that provide www-browser, and those of a
 *   desktop section whose short description says web, gemini or WAP browser, e-mail client, mail user agent, feed
 *   reader, podcast client or media player (a server-side aggregator, a plugin, extension or integration left
 *   out) → browser or app, by their package name with a packaging suffix cut (`netsurf-gtk` → `netsurf`, `xemacs21-mule` → `xemacs`).
 * scripts/build_catalog.ts reads the people's names like human-names.tsv (the same filters: no catalog name, no
 * crawler vendor's name, no automation sign, no own-part bot's name) and the robots like the other names-only
 * crawler lists (a plain word must say bot).
 *   deno run -A scripts/extract_more_names.ts DIR PACKAGES_FILE
 * where DIR holds checkouts named as below (`git archive <commit> | tar -x -C DIR/<name>`) and PACKAGES_FILE is
 * bookworm's main amd64 Packages index (`/usr/lib/apt/apt-helper cat-file /var/lib/apt/lists/*_bookworm_main_*`).
 */
const [dir, packagesFile] = Deno.args;
if (!dir || !packagesFile) throw new Error("usage: extract_more_names.ts DIR PACKAGES_FILE");

/** Each checkout, its commit and licence, as the header names them. */
const SOURCES = {
  "user-agent-utils": [
    "HaraldWalker/user-agent-utils",
    "7f954514298f76afff8a75723bc25205bfe30d1b",
    "BSD-3-Clause",
  ],
  "platform.js": ["bestiejs/platform.js", "44978b28a5eaa992cf3e0d57d3fa5d4fb6e1026e", "MIT"],
  "httpagentparser": ["shon/httpagentparser", "389296c66b2183addb1a53add3ec0c71e16cddfa", "MIT"],
  "php-browser-detector": ["sinergi/php-browser-detector", "b63c08bf40e90d1ddb80ef8fbe69b25f554a0f0c", "MIT"],
  "woothee": ["woothee/woothee", "998c6ecd1c6b0df770210ba18ca55ee3600e5b80", "Apache-2.0"],
  "legitbot": ["alaz/legitbot", "2fbea800e2e16c6601b2be7f2d5a27dd77f8be6a", "Apache-2.0"],
  "isbot-go": ["arp242/isbot", "305a021896f64c75ccbd18f5ba89183e8bdcdb07", "MIT"],
} as const;
type Key = keyof typeof SOURCES;
const label = (k: Key) => `${SOURCES[k][0]}@${SOURCES[k][1].slice(0, 7)}`;
const read = (k: Key, path: string) => Deno.readTextFile(`${dir}/${k}/${path}`);

type Kind = "browser" | "app" | "robot";
/** Words the tables hold that name no product: agent parts, versions, generic robot words, platforms. */
const NOT_NAMES = new Set([
  ...[
    "bot",
    "crawler",
    "spider",
    "robot",
    "version",
    "mobile",
    "mobile safari",
    "applewebkit",
    "webkit",
    "gecko",
  ],
  ...[
    "mozilla",
    "safari",
    "ie",
    "msie",
    "trident",
    "java",
    "web preview",
    "phantom",
    "browser",
    "unknown",
    "other",
  ],
  ...["mobile app", "headless chrome", "like gecko", "like android", "strings", "regexp", "sections", "rim"],
]);
const out = new Map<string, [string, string, Kind]>(); // lower-case name + source -> [name, source, kind]
const add = (raw: string, source: string, kind: Kind) => {
  // a matched string's name: cut a version ("Thunderbird/10", "MSOffice 12", "IE 11.") and a trailing slash
  const n = raw.trim().replace(/[/ ]+v?\d[\w.]*$/, "").replace(/\/.*$/, "").replace(/[/ ._-]+$/, "");
  if (NOT_NAMES.has(n.toLowerCase())) return;
  if (!/^[A-Za-z][\w .+!:-]*[\w+!]$/.test(n) || n.replace(/[^a-z0-9]/gi, "").length < 3) return;
  const key = `${n.toLowerCase()}\t${source}`;
  if (!out.has(key)) out.set(key, [n, source, kind]);
};

// user-agent-utils: NAME(Manufacturer.X, parent, id, "Name", new String[] { aliases }, excludes, BrowserType.T, …)
const UAU_KIND: Record<string, Kind | undefined> = {
  WEB_BROWSER: "browser",
  MOBILE_BROWSER: "browser",
  TEXT_BROWSER: "browser",
  EMAIL_CLIENT: "app",
  APP: "app",
  ROBOT: "robot",
};
const uau = await read("user-agent-utils", "src/main/java/eu/bitwalker/useragentutils/Browser.java");
for (
  const m of uau.matchAll(
    /^\s*[A-Z_0-9]+\(\s*Manufacturer\.\w+,\s*[\w.]+,\s*\d+,\s*"([^"]+)",\s*new String\[\]\s*\{([^}]*)\}.*?BrowserType\.(\w+)/gm,
  )
) {
  const kind = UAU_KIND[m[3]];
  if (!kind) continue;
  // a versioned entry's display name ("Firefox 3", "Outlook 2007") is its family's; the strings are what it matches
  add(m[1].replace(/ \d[\w.]*(?: .*)?$/, ""), label("user-agent-utils"), kind);
  for (const s of m[2].matchAll(/"([^"]+)"/g)) add(s[1], label("user-agent-utils"), kind);
}

// platform.js: getName([ 'Adobe AIR', …, { 'label': 'Samsung Internet', 'pattern': 'SamsungBrowser' }, … ])
const platform = await read("platform.js", "platform.js");
const getName = platform.slice(platform.indexOf("var name = getName(["));
for (
  const m of getName.slice(0, getName.indexOf("]);")).matchAll(
    /'(?:label|pattern)':\s*'([^']+)'|^\s*'([^']+)'/gm,
  )
) {
  const s = m[1] ?? m[2];
  if (!/[\\()|?]/.test(s)) add(s, label("platform.js"), "browser");
}

// httpagentparser: class X(Browser): look_for = "…" | [...], name = "…", bot = True
const hap = await read("httpagentparser", "httpagentparser/__init__.py");
for (const cls of hap.matchAll(/^class \w+\(Browser\):\n((?:[ \t]+.*\n|\n)*)/gm)) {
  const body = cls[1];
  const kind: Kind = /^\s+bot = True/m.test(body) ? "robot" : "browser";
  const first = /^ {4}look_for = (.*)$/m.exec(body)?.[1] ?? "";
  for (const s of first.matchAll(/["']([^"']+)["']/g)) add(s[1], label("httpagentparser"), kind);
  const name = /^ {4}name = ["']([^"']+)["']/m.exec(body)?.[1];
  if (name) add(name, label("httpagentparser"), kind);
}

// php-browser-detector: const NAME = 'Name';
const sinergi = await read("php-browser-detector", "src/Browser.php");
for (const m of sinergi.matchAll(/const \w+ = '([^']+)';/g)) {
  // display names ("MSN Bot", "W3C Validator"): its robots' names are no agent's tokens, only its browsers' kept
  if (!/bot|slurp|validator|appliance|wkhtml/i.test(m[1])) {
    add(m[1], label("php-browser-detector"), "browser");
  }
}

// woothee: "- label: …\n  name: …\n  type: …\n  category: …" blocks; its names are display names ("misc
// crawler", "topsy Butterfly"), so a robot's is kept only when woothee's own test agents (testsets/) hold it
const woothee = await read("woothee", "dataset.yaml");
let wootheeAgents = "";
for await (const entry of Deno.readDir(`${dir}/woothee/testsets`)) {
  if (!entry.name.endsWith(".yaml")) continue;
  const text = await read("woothee", `testsets/${entry.name}`);
  for (const m of text.matchAll(/^\s*- target: *['"]?(.*?)['"]?$/gm)) {
    wootheeAgents += m[1].toLowerCase() + "\n";
  }
}
for (const block of woothee.split(/\n(?=- )/)) {
  const field = (f: string) => new RegExp(`^\\s*-?\\s*${f}: *['"]?([^'"\\n]+)`, "m").exec(block)?.[1].trim();
  const name = field("name"), category = field("category"), type = field("type");
  if (!name) continue;
  if (category === "crawler") {
    if (wootheeAgents.includes(name.toLowerCase())) add(name, label("woothee"), "robot");
  } else if (
    (type === "browser" || type === "full") &&
    ["pc", "smartphone", "mobilephone", "appliance"].includes(category ?? "")
  ) add(name, label("woothee"), "browser");
}

// legitbot: rule Legitbot::X, %w[ Name Name … ]
for await (const entry of Deno.readDir(`${dir}/legitbot/lib/legitbot`)) {
  if (!entry.name.endsWith(".rb")) continue;
  const rb = await read("legitbot", `lib/legitbot/${entry.name}`);
  for (const m of rb.matchAll(/rule\s+Legitbot::\w+,\s*%w\[([^\]]*)\]/g)) {
    for (const n of m[1].split(/\s+/)) if (n) add(n, label("legitbot"), "robot");
  }
}

// arp242/isbot: var knownBots = []string{ "…", … } and knownBrowsers
const goIsbot = await read("isbot-go", "user_agent.go");
for (const [list, kind] of [["knownBots", "robot"], ["knownBrowsers", "browser"]] as const) {
  const at = goIsbot.indexOf(`var ${list} = []string{`);
  const body = goIsbot.slice(at, goIsbot.indexOf("\n}", at));
  for (const m of body.matchAll(/"([^"]+)"/g)) add(m[1].replace(/[_ ]$/, ""), label("isbot-go"), kind);
}

// Debian bookworm main: browsers, mail clients, feed readers and media players people run, by package name
const DEBIAN = "debian-bookworm";
const DESKTOP_SECTIONS = new Set(["web", "net", "mail", "news", "sound", "video", "gnome", "kde", "x11"]);
const PEOPLE_SAYS =
  /\b(?:(?:web|www|gemini|gopher|wap) ?browser|webbrowser|e-?mail client|mail user agent|feed reader|news feeds reader|feed aggregator|podcast client|media player)\b/i;
const NOT_PEOPLE_SAYS =
  /web-based|server|plugin|plug-in|extension|integration|handling|backend|dependency|driver|sandbox|shell|transitional|bridge|interface|utility|submitter|documentation|compiler|filter|frontend for|smtp/i;
const PACKAGING_SUFFIX = /-(?:gtk|fb|esr|qt|nox|bin)$|21-(?:mule.*|nomule)$/;
for (const stanza of (await Deno.readTextFile(packagesFile)).split("\n\n")) {
  const field = (f: string) => new RegExp(`^${f}: (.*)$`, "m").exec(stanza)?.[1] ?? "";
  const pkg = field("Package"), section = field("Section"), description = field("Description");
  if (
    !pkg ||
    /^(?:lib|python3?-|node-|ruby-|golang-|r-cran|php-|perl|gir1|elpa-|fonts-|webext-|xul-ext)/.test(pkg)
  ) {
    continue;
  }
  if (
    /-(?:dev|doc|data|common|dbg|dbgsym|l10n.*|locale.*|plugins?.*|tests?|driver|sandbox|shell|img|el.*)$/
      .test(pkg)
  ) {
    continue;
  }
  const browser = /(?:^|, )www-browser\b/.test(field("Provides"));
  if (!browser && !(DESKTOP_SECTIONS.has(section) && PEOPLE_SAYS.test(description))) continue;
  if (!browser && NOT_PEOPLE_SAYS.test(description)) continue;
  const kind: Kind = browser || /browser/i.test(description) ? "browser" : "app";
  add(pkg.replace(PACKAGING_SUFFIX, ""), DEBIAN, kind);
}

const lines = [
  "# Names people's browsers and apps and robots go by, as more parsers, bot checks and Debian's package data name",
  "# them (names only, no agents); built by scripts/extract_more_names.ts; each line name<TAB>source<TAB>kind",
  "# (browser, app, robot).",
  ...(Object.keys(SOURCES) as Key[]).map((k) =>
    `# ${label(k)}: ${SOURCES[k][0]} commit ${SOURCES[k][1]}, ${SOURCES[k][2]}.`
  ),
  `# ${DEBIAN}: Debian 12 (bookworm) main amd64 Packages index: package names and short descriptions.`,
  ...[...out.values()].map(([name, source, kind]) => `${name}\t${source}\t${kind}`),
];
await Deno.writeTextFile(
  new URL("../lib/crawl/sources/more-names.tsv", import.meta.url),
  lines.join("\n") + "\n",
);
console.log(`${out.size} names`);
