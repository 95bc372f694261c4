/**
 * The names ua-parser-js 1.0.41, agentzero and bowser give people's browsers, engines and apps
 * (lib/crawl/sources/human-names.tsv, by scripts/extract_human_names.ts) as known people's names
 * (human_tokens.json, by scripts/build_catalog.ts): each with its source, none a crawler's or a tool's.
 */
import assert from "node:assert/strict";
import tokens from "../../../lib/crawl/human_tokens.json" with { type: "json" };
import catalog from "../../../lib/crawl/catalog.json" with { type: "json" };
import { knownHumanProduct, standaloneApp } from "../../../lib/crawl/browser_shape.ts";
import { classifyAgent } from "../../../lib/crawl/classify.ts";

const text = await Deno.readTextFile(new URL("../../../lib/crawl/sources/human-names.tsv", import.meta.url));
const lines = text.split("\n").filter((l) => l && !l.startsWith("#"));
const PARSER_SOURCE =
  /^(?:ua-parser-js 1\.0\.41 browser, engine and OS names|hexydec\/agentzero browser and app mappings|bowser browser names) /;
const fromParsers = Object.entries(tokens.tokens as Record<string, string>).filter(([, s]) =>
  PARSER_SOURCE.test(s)
);

Deno.test("parser names: the file names its three sources with licence and commit, names only", () => {
  for (
    const needle of [
      "ua-parser-js@1.0.41",
      "MIT License",
      "83c4b5e5c36c11b0cf6f9ce208de31b9112d4fc5",
      "bowser@",
    ]
  ) {
    assert(text.includes(needle), needle);
  }
  for (const line of lines) {
    const [name, source, kind] = line.split("\t");
    assert(/^[A-Za-z]/.test(name) && name.length < 40, line);
    assert(/^(?:ua-parser-js@1\.0\.41|hexydec\/agentzero@83c4b5e|bowser@[\d.]+)$/.test(source), line);
    assert(["browser", "engine", "os", "app"].includes(kind), line);
  }
});

Deno.test("parser names: the known names they add come from the file, none is a crawler's", () => {
  const inFile = new Set(lines.map((l) => l.split("\t")[0].toLowerCase()));
  assert(fromParsers.length > 100, `${fromParsers.length}`);
  const matches = new Set(catalog.crawlers.flatMap((e) => e.match));
  for (const [name] of fromParsers) {
    assert(inFile.has(name), name);
    assert(!matches.has(name), name);
  }
  // browsers and apps only these lists name, now known: a self-naming browser, engines, apps
  for (
    const name of ["dooble", "webpositive", "k-ninja", "servo", "libweb", "androiddownloadmanager", "fb4a"]
  ) {
    assert(knownHumanProduct(name), name);
  }
  // bots and headless browsers the lists name too, and a crawler vendor's own name, stay out
  for (
    const name of ["googlebot", "pingdombot", "flipboardproxy", "phantomjs", "slimerjs", "yandex", "baidu"]
  ) {
    assert(
      !(name in tokens.tokens) || !PARSER_SOURCE.test((tokens.tokens as Record<string, string>)[name]),
      name,
    );
  }
  assert.equal(standaloneApp("Dooble/0.07 (de_CH) WebKit"), "dooble");
  // an engine starts no agent of its own: known after a browser's product, not as an app's first word
  assert.equal(standaloneApp("Servo/1.0"), null);
});

Deno.test("parser names: agents naming only themselves are people's, bots beside them are not", () => {
  // browscap's and opawg's test agents (MIT): flagged by the generic bare-name pattern or nothing recognised before
  for (const ua of ["Dooble/0.07 (de_CH) WebKit", "AndroidDownloadManager", "FB4A/Facebook"]) {
    assert.equal(classifyAgent(ua).outcome, "human", ua);
  }
  // bowser's own test agents of the bots it lists among browsers
  assert.equal(classifyAgent("Pingdom.com_bot_version_1.4_(http://www.pingdom.com/)").outcome, "crawler");
  assert.equal(
    classifyAgent("Mozilla/5.0 (X11; Linux x86_64; rv:21.0) Gecko/20100101 SlimerJS/0.7").outcome,
    "automation",
  );
});
