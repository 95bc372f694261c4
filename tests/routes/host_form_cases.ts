/**
 * Malformed hosts are not the site's subdomains (review #18): a crawler hit's `host` of "*.acme.test", an
 * empty label, a 64-letter label or a port that is none is rejected as invalid, and the web endpoint refuses
 * an Origin that is not scheme://host[:port]. Well-formed ones still count. Real HTTP, real KV file.
 */
import assert from "node:assert/strict";
import { openSite, pageview } from "../helpers/site.ts";
import { isWellFormedHost } from "../../lib/tenancy/domains.ts";

const GPT =
  "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)";

Deno.test("hosts: well-formed ones are, malformed ones are not", () => {
  for (
    const h of [
      "acme.test",
      "www.acme.test:443",
      "acme.test.",
      "[::1]:8080",
      "bücher.example",
      "a-b.acme.test",
    ]
  ) {
    assert.ok(isWellFormedHost(h), h);
  }
  for (
    const h of [
      "*.acme.test",
      "..acme.test",
      "a..acme.test",
      `${"a".repeat(64)}.acme.test`,
      "acme.test:abc",
      "acme.test:99999",
      "acme.test:0",
      "-a.acme.test",
      "a-.acme.test",
      "",
      "acme.test/x",
      "a@acme.test",
    ]
  ) {
    assert.ok(!isWellFormedHost(h), h);
  }
});

Deno.test("crawler hits: a malformed host is rejected as invalid, a subdomain is accepted", async () => {
  const site = await openSite({ now: Date.parse("2026-11-18T09:30:00Z") });
  try {
    const d = site.t.domain;
    const send = async (host: string) => {
      const res = await site.serverEvents([
        { event_type: "$crawl", event_id: crypto.randomUUID(), host, path: "/", user_agent: GPT },
      ]);
      return await res.json();
    };
    for (const host of [`*.${d}`, `..${d}`, `a..${d}`, `${"a".repeat(64)}.${d}`, `${d}:abc`, `${d}:99999`]) {
      const body = await send(host);
      assert.equal(body.accepted, 0, `${host}: ${JSON.stringify(body)}`);
      assert.equal(body.rejected.invalid, 1, `${host}: ${JSON.stringify(body)}`);
    }
    for (const host of [d, `www.${d}`, `${d}:443`, `${d}.`]) {
      const body = await send(host);
      assert.equal(body.accepted, 1, `${host}: ${JSON.stringify(body)}`);
    }
  } finally {
    await site.close();
  }
});

Deno.test("web events: an Origin that is not scheme://host[:port] is refused", async () => {
  const site = await openSite({
    now: Date.parse("2026-11-18T09:30:00Z"),
    config: { publicKeyRatePerMinute: 1e6 },
  });
  try {
    const d = site.t.domain;
    for (const origin of [`https://*.${d}`, `https://a..${d}`, `https://user@${d}`, `https://${d}/path`]) {
      const res = await site.ingest([pageview(1, 0, "/")], { origin });
      assert.notEqual(res.status, 204, origin);
      await res.body?.cancel();
    }
    for (const origin of [`https://${d}`, `https://www.${d}`, `https://${d}:8443`]) {
      const res = await site.ingest([pageview(1, 0, "/")], { origin });
      assert.equal(res.status, 204, `${origin}: ${await res.text()}`);
    }
  } finally {
    await site.close();
  }
});
