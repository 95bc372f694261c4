import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { classifyUserAgent } from "../src/index.ts";
import {
  BROWSERS,
  CRAWLERS,
  HEADLESS,
  HEALTH_PROBES,
  HTTP_CLIENTS,
  SELF_CONTRADICTING,
} from "./fixtures/user_agents.ts";

/** Rule 4: one table per kind of agent, each row a real agent string. */
const TABLES: Array<[string, Record<string, string>, string]> = [
  ["crawler catalog samples are automated", CRAWLERS, "automated"],
  [
    "HTTP clients (no Mozilla/ prefix) are automated",
    HTTP_CLIENTS,
    "automated",
  ],
  ["headless and automated browsers are automated", HEADLESS, "automated"],
  [
    "self-contradicting browser agents are automated",
    SELF_CONTRADICTING,
    "automated",
  ],
  ["real browsers on every platform are not reported", BROWSERS, "browser"],
  ["health-check probes are never reported", HEALTH_PROBES, "health_probe"],
];

for (const [title, table, expected] of TABLES) {
  describe(`user agent rule: ${title}`, () => {
    for (const [name, ua] of Object.entries(table)) {
      test(`${name}`, () => assert.equal(classifyUserAgent(ua), expected, ua));
    }
  });
}

describe("user agent rule: missing agents are never reported", () => {
  for (const ua of [null, undefined, "", "   "]) {
    test(`agent ${JSON.stringify(ua)} is missing`, () => assert.equal(classifyUserAgent(ua), "missing"));
  }
});

test("user agent rule: Chrome 78 beside a legacy Edge/ token is not yet a contradiction", () => {
  const ua =
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/78.0.3904.108 Safari/537.36 Edge/18.18363";
  assert.equal(classifyUserAgent(ua), "browser");
});

test("user agent rule: Safari Version equal to its iOS (major.minor) is genuine, one minor ahead is forged", () => {
  const at = (ios: string, version: string) =>
    `Mozilla/5.0 (iPhone; CPU iPhone OS ${ios} like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/${version} Mobile/15E148 Safari/604.1`;
  assert.equal(classifyUserAgent(at("17_4_1", "17.4.1")), "browser");
  assert.equal(classifyUserAgent(at("17_4", "17.5")), "automated");
  assert.equal(classifyUserAgent(at("18_6", "27.0")), "browser");
  assert.equal(classifyUserAgent(at("18_7_1", "26.2")), "browser");
  assert.equal(classifyUserAgent(at("26_1", "26.1")), "browser");
  assert.equal(classifyUserAgent(at("19_0", "26.0")), "automated"); // there never was an iOS 19
});

test("user agent rule: Office for Mac's own link checks are reported, as the service counts them", () => {
  // Shopify/browser_sniffer's and browscap's test agents (MIT): Word, Excel or PowerPoint after the Mac platform
  for (
    const ua of [
      "Mozilla/5.0 (Macintosh; Intel Mac OS X) Word/14.38.0",
      "Mozilla/5.0 (Macintosh; Intel Mac OS X) Excel/14.34.0",
      "Mozilla/5.0 (Macintosh; Intel Mac OS X) PowerPoint/14.43.0",
    ]
  ) assert.equal(classifyUserAgent(ua), "automated", ua);
  // Safari on the same Mac, and the product after a WebKit engine (an app's webview), are people's
  for (
    const ua of [
      "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15",
      "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Word/16.80",
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
    ]
  ) assert.equal(classifyUserAgent(ua), "browser", ua);
});
