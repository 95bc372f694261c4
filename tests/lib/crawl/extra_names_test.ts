/**
 * The robots two more parsers name (lib/crawl/sources/extra-names.tsv, by scripts/extract_extra_names.ts;
 * twenty-third round): commenthol/ua-parser2's `bot` entries and HttpUserAgentParser's Robots table become catalog
 * names through the curated lists' filters, each with its source; people's software ua-parser2 also files among
 * its bots, plain words, hosts and URL paths stay out.
 */
import assert from "node:assert/strict";
import catalog from "../../../lib/crawl/catalog.json" with { type: "json" };
import tokens from "../../../lib/crawl/human_tokens.json" with { type: "json" };
import { knownHumanProduct, standaloneApp } from "../../../lib/crawl/browser_shape.ts";
import { classifyAgent } from "../../../lib/crawl/classify.ts";

const text = await Deno.readTextFile(new URL("../../../lib/crawl/sources/extra-names.tsv", import.meta.url));
const lines = text.split("\n").filter((l) => l && !l.startsWith("#"));
const SOURCES = [
  ["commenthol/ua-parser2@7f7b77a", "7f7b77ad4d2ab2db8d30769ede218b01d462f188", "Apache-2.0"],
  ["mycsharp/HttpUserAgentParser@01fe87d", "01fe87d30f2d9ad25f75239432af9667151d6631", "MIT"],
];
const byEntry = (token: string) => catalog.crawlers.find((e) => e.token === token);
const matches = new Set(catalog.crawlers.flatMap((e) => e.match));

Deno.test("extra names: the file names each source with its commit and licence, names only", () => {
  for (const [label, commit, licence] of SOURCES) {
    assert(text.includes(`# ${label}: `) && text.includes(commit) && text.includes(licence), label);
  }
  const labels = new Set(SOURCES.map(([l]) => l));
  for (const line of lines) {
    const [name, source, kind] = line.split("\t");
    assert(name.length >= 3 && name.length < 60 && !/[()|?*+[\]{}\\]/.test(name), line);
    assert(labels.has(source), line);
    assert(["browser", "app", "robot"].includes(kind), line);
  }
  // ua-parser2's typed entries: its bots, its mail and podcast apps, its browsers by family
  const kinds = (name: string) => lines.filter((l) => l.startsWith(`${name}\t`)).map((l) => l.split("\t")[2]);
  assert.deepEqual(kinds("IlTrovatore"), ["robot"]);
  assert.deepEqual(kinds("Ghost Inspector"), ["robot"]);
  assert.deepEqual(kinds("Eudora"), ["app"]);
  assert.deepEqual(kinds("gPodder"), ["app"]);
  assert.deepEqual(kinds("Beonex"), ["browser"]);
  // its headless browsers, storage tools and proxies are left out (libraries and tools)
  for (const name of ["PhantomJS", "HeadlessChrome", "rclone", "Privoxy"]) {
    assert.deepEqual(kinds(name), [], name);
  }
});

Deno.test("extra names: robots are catalog names with the category their name or source states", () => {
  for (
    const [token, category] of [
      ["IlTrovatore", "other"],
      ["TLSProber", "other"],
      ["Accoona-AI-Agent", "other"],
      ["Ghost Inspector", "monitoring"],
      ["SiteScope", "monitoring"],
      ["BrightEdge", "other"],
    ]
  ) {
    const entry = byEntry(token);
    assert(entry, token);
    assert.equal(entry.source, "extra parsers' robots", token);
    assert.equal(entry.category, category, token);
  }
  // an optional suffix of ua-parser2's pattern is cut: the crawler's other agent is named too
  assert.equal(
    classifyAgent("IlTrovatore-Setaccio ( http://www.iltrovatore.it)").agent?.token,
    "IlTrovatore",
  );
});

Deno.test("extra names: people's software, plain words, hosts and URL paths stay out", () => {
  // ua-parser2 files a toolbar, a Bing app, a site manager, a VPN client, storage clients and an IDE among bots
  for (
    const name of ["stumbleupon", "bingweb", "sitecon", "pan globalprotect", "s3fs", "jets3t", "jetbrains"]
  ) {
    assert(!matches.has(name), name);
  }
  // plain and all-capital words that do not say bot ("Argus", "WIRE", "FDM", HttpUserAgentParser's "yahoo")
  for (const name of ["argus", "wire", "fdm", "yahoo", "lycos"]) assert(!matches.has(name), name);
  // HttpUserAgentParser matches some robots by a URL path: no token
  for (const path of ["openai.com/gptbot", "openai.com/searchbot"]) assert(!matches.has(path), path);
  assert.equal(
    classifyAgent("Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1; StumbleUpon.com 1.733; SV1)").outcome,
    "human",
  );
});

Deno.test("extra names: ua-parser2's browser and app names are known, not its plain words, fragments or feed services", () => {
  const source = "commenthol/ua-parser2 browser, mail, feed, podcast and media app names (Apache-2.0)";
  const known = tokens.tokens as Record<string, string>;
  // names no earlier source gave: an app, a WebDAV client, browsers of old phones and TVs
  for (const name of ["coursera-mobile", "webdav client", "2345explorer", "espialtvbrowser", "sohunews"]) {
    assert(knownHumanProduct(name), name);
    assert.equal(known[name], source, name);
  }
  assert.equal(standaloneApp("Coursera-Mobile/1.3.0-1192"), "coursera-mobile");
  assert.equal(classifyAgent("WEBDAV Client").outcome, "human");
  // plain words and fragments stay out ("Light", "Spark", "Groups", "Samsung;SmartTV", "iBrowser/Mini")
  for (const name of ["light", "spark", "groups", "messenger", "samsung;smarttv", "ibrowser/mini"]) {
    assert(!(name in known) || known[name] !== source, name);
  }
  // its feed-reader list holds services that fetch for many: no people's names from it
  for (const name of ["feedblitz", "alltop", "aiderss", "feedforall"]) assert(!(name in known), name);
  assert.notEqual(classifyAgent("FeedBlitz/1.0").outcome, "human");
});
