/**
 * The names more parsers, bot checks and Debian's package data give people's browsers and apps and robots
 * (lib/crawl/sources/more-names.tsv, by scripts/extract_more_names.ts; twenty-first round): people's names become
 * known names (human_tokens.json) through the same filters as human-names.tsv, robots catalog names through the
 * mixed lists' filters, each with its source; display names, plain words and people's add-ons stay out.
 */
import assert from "node:assert/strict";
import tokens from "../../../lib/crawl/human_tokens.json" with { type: "json" };
import catalog from "../../../lib/crawl/catalog.json" with { type: "json" };
import { knownHumanProduct, standaloneApp } from "../../../lib/crawl/browser_shape.ts";
import { classifyAgent } from "../../../lib/crawl/classify.ts";

const text = await Deno.readTextFile(new URL("../../../lib/crawl/sources/more-names.tsv", import.meta.url));
const lines = text.split("\n").filter((l) => l && !l.startsWith("#"));
const SOURCES = [
  ["HaraldWalker/user-agent-utils@7f95451", "7f954514298f76afff8a75723bc25205bfe30d1b", "BSD-3-Clause"],
  ["bestiejs/platform.js@44978b2", "44978b28a5eaa992cf3e0d57d3fa5d4fb6e1026e", "MIT"],
  ["shon/httpagentparser@389296c", "389296c66b2183addb1a53add3ec0c71e16cddfa", "MIT"],
  ["sinergi/php-browser-detector@b63c08b", "b63c08bf40e90d1ddb80ef8fbe69b25f554a0f0c", "MIT"],
  ["woothee/woothee@998c6ec", "998c6ecd1c6b0df770210ba18ca55ee3600e5b80", "Apache-2.0"],
  ["alaz/legitbot@2fbea80", "2fbea800e2e16c6601b2be7f2d5a27dd77f8be6a", "Apache-2.0"],
  ["arp242/isbot@305a021", "305a021896f64c75ccbd18f5ba89183e8bdcdb07", "MIT"],
];
const byEntry = (token: string) => catalog.crawlers.find((e) => e.token === token);

Deno.test("more names: the file names each source with its commit and licence, names only", () => {
  for (const [label, commit, licence] of SOURCES) {
    assert(text.includes(`# ${label}: `) && text.includes(commit) && text.includes(licence), label);
  }
  assert(text.includes("Debian 12 (bookworm)"));
  const labels = new Set([...SOURCES.map(([l]) => l), "debian-bookworm"]);
  for (const line of lines) {
    const [name, source, kind] = line.split("\t");
    assert(/^[A-Za-z]/.test(name) && name.length < 40, line);
    assert(labels.has(source), line);
    assert(["browser", "app", "robot"].includes(kind), line);
  }
});

Deno.test("more names: people's names are known, robots are catalog names with their source's category", () => {
  // browsers and apps these sources name that no earlier list did
  for (
    const name of [
      "netpositive",
      "akregator",
      "newsboat",
      "eudora",
      "kristall",
      "angelfish",
      "netrik",
      "edbrowse",
    ]
  ) {
    assert(knownHumanProduct(name), name);
    assert(!(tokens.tokens as Record<string, string>)[name].startsWith("nielsbasjes"), name);
  }
  assert.equal(standaloneApp("Akregator/4.12.3; syndication SUSE"), "akregator");
  for (
    const [token, category] of [["RuxitRecorder", "monitoring"], ["SensikaBot", "other"], [
      "wsr-agent",
      "other",
    ]]
  ) {
    const entry = byEntry(token);
    assert(entry, token);
    assert.equal(entry.source, "more parsers' robots", token);
    assert.equal(entry.category, category, token);
  }
  // App Engine's URL fetch service fetches for any hosted app: other, not search_engine
  assert.equal(byEntry("AppEngine-Google")?.category, "other");
});

Deno.test("more names: display names, plain words, hosts and people's add-ons stay out", () => {
  const matches = new Set(catalog.crawlers.flatMap((e) => e.match));
  // woothee's and user-agent-utils' plain or display names, a host a URL sign reads, a browser add-on
  for (const name of ["google", "yandex", "hatena", "facebook", "misc crawler", "burpcollaborator.net"]) {
    assert(!matches.has(name), name);
  }
  assert(!matches.has("alexatoolbar"), "the Alexa Toolbar is a browser add-on (Yauaa)");
  assert(knownHumanProduct("alexatoolbar"));
  // user-agent-utils' "Moozilla", a misspelling browscap files as a bot, is no known name
  assert(!("moozilla" in tokens.tokens) && !("moozilla" in tokens.standalone));
  assert.notEqual(classifyAgent("Moozilla").outcome, "human");
});
