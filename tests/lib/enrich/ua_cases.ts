import assert from "node:assert/strict";
import { MAX_AGENT_LENGTH, parseAgent } from "../../../lib/enrich/ua.ts";

const UA = {
  chromeWindows:
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  safariMac:
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15",
  firefoxLinux: "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
  iphone:
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
  ipad:
    "Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1",
  pixel:
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
  cubot:
    "Mozilla/5.0 (Linux; Android 10; CUBOT_X30) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36",
  gptbot:
    "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)",
  googlebot: "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
  headless:
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.0.0 Safari/537.36",
  tv:
    "Mozilla/5.0 (SMART-TV; Linux; Tizen 6.0) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/4.0 Chrome/76.0.3809.146 TV Safari/537.36",
};

Deno.test("ua: desktop browsers give browser, OS and desktop", () => {
  assert.deepEqual(parseAgent(UA.chromeWindows), {
    browser: "Chrome",
    os: "Windows",
    device_type: "desktop",
  });
  assert.deepEqual(parseAgent(UA.safariMac), { browser: "Safari", os: "macOS", device_type: "desktop" });
  assert.deepEqual(parseAgent(UA.firefoxLinux), { browser: "Firefox", os: "Linux", device_type: "desktop" });
});

Deno.test("ua: phones are mobile and iPads are tablets (a phone maker named Cubot is no bot)", () => {
  assert.deepEqual(parseAgent(UA.iphone), { browser: "Mobile Safari", os: "iOS", device_type: "mobile" });
  assert.deepEqual(parseAgent(UA.ipad), { browser: "Mobile Safari", os: "iOS", device_type: "tablet" });
  assert.equal(parseAgent(UA.pixel).device_type, "mobile");
  assert.equal(parseAgent(UA.cubot).device_type, "mobile");
});

Deno.test("ua: crawlers, headless browsers and HTTP libraries are bots", () => {
  assert.deepEqual(parseAgent(UA.gptbot), { browser: null, os: null, device_type: "bot" });
  assert.equal(parseAgent(UA.googlebot).device_type, "bot");
  assert.equal(parseAgent(UA.headless).device_type, "bot");
  assert.equal(parseAgent("curl/8.5.0").device_type, "bot");
  assert.equal(parseAgent("python-requests/2.31.0").device_type, "bot");
  assert.equal(parseAgent("SomeCompanyBot/1.0 (+https://example.org/bot)").device_type, "bot");
});

Deno.test("ua: TVs and unknown agents are other; a missing agent gives nulls", () => {
  assert.equal(parseAgent(UA.tv).device_type, "other");
  assert.deepEqual(parseAgent(null), { browser: null, os: null, device_type: "other" });
  assert.deepEqual(parseAgent(""), { browser: null, os: null, device_type: "other" });
  assert.equal(parseAgent("something odd").device_type, "other");
});

Deno.test("ua: a repeated agent is answered from the cache; an overlong one is cut before parsing", () => {
  assert.equal(parseAgent(UA.chromeWindows), parseAgent(UA.chromeWindows));
  const long = UA.chromeWindows + " x".repeat(MAX_AGENT_LENGTH);
  assert.equal(parseAgent(long), parseAgent(long.slice(0, MAX_AGENT_LENGTH) + " different tail"));
});
