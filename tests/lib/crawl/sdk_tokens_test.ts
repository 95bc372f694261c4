import assert from "node:assert/strict";
import { CATALOG } from "../../../lib/crawl/catalog_data.ts";
import { classifyAgent } from "../../../lib/crawl/classify.ts";
import { CRAWLER_TOKENS } from "../../../sdk/server/src/crawler_tokens.ts";
import { classifyUserAgent as sdkVerdict } from "../../../sdk/server/src/user_agent.ts";

const samples: Record<string, string[]> = JSON.parse(
  await Deno.readTextFile(new URL("./ua_samples.json", import.meta.url)),
);

Deno.test("server SDK: its token list is the catalog's (rebuild both with scripts/build_catalog.ts)", () => {
  const catalogTokens = [...new Set(CATALOG.flatMap((e) => e.match))].sort();
  assert.deepEqual([...CRAWLER_TOKENS], catalogTokens);
});

Deno.test("server SDK: every agent the service calls a known crawler is reported (or is a health probe)", () => {
  let checked = 0;
  for (const [token, uas] of Object.entries(samples)) {
    for (const ua of uas) {
      if (classifyAgent(ua).outcome !== "crawler") continue;
      checked++;
      const monitor = CATALOG.find((e) => e.token === token)?.category === "monitoring";
      assert.ok(
        sdkVerdict(ua) === "automated" || (monitor && sdkVerdict(ua) === "health_probe"),
        `${token}: ${ua} → ${sdkVerdict(ua)}`,
      );
    }
  }
  assert.ok(checked > 200, `checked ${checked}`);
  // a catalog token inside a browser-shaped agent with no other sign of automation
  const inBrowser =
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Google-NotebookLM";
  assert.equal(classifyAgent(inBrowser).outcome, "crawler");
  assert.equal(sdkVerdict(inBrowser), "automated");
});

Deno.test("server SDK: Office for Mac's own link checks, the service's Microsoft Office crawler, are reported", () => {
  // Word, Excel or PowerPoint after the Mac platform (Shopify/browser_sniffer's and browscap's test agents)
  for (
    const product of ["Word/14.38.0", "Excel/14.34.0", "PowerPoint/14.43.0"]
  ) {
    const ua = `Mozilla/5.0 (Macintosh; Intel Mac OS X) ${product}`;
    assert.equal(classifyAgent(ua).agent?.token, "Microsoft Office", ua);
    assert.equal(sdkVerdict(ua), "automated", ua);
  }
  // Safari on the same Mac is a person's for both
  const safari =
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15";
  assert.equal(classifyAgent(safari).outcome, "human");
  assert.equal(sdkVerdict(safari), "browser");
});
