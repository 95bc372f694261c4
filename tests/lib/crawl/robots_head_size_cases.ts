/**
 * The robots.txt head record is sized as KV stores it: a file of ~35,000 characters holding one character past
 * U+00FF (a typographic apostrophe in a comment) takes two bytes a character in V8's form, ~70 KB, though its
 * UTF-8 size is under the head record's bound. It must be stored (its body kept in the version history), and
 * behavior_crawler_access must read it. The 6-hourly job on a real KV file, then the read API.
 */
import assert from "node:assert/strict";
import { createApp } from "../../../app.ts";
import { type FakeDns, TEST_ADMIN_TOKEN, testDeps } from "../../helpers/deps.ts";
import { createTenant } from "../../helpers/tenant.ts";
import { readRobots, refreshAllRobots } from "../../../lib/crawl/robots.ts";
import { keys } from "../../../lib/store/keys.ts";

Deno.test("robots: a 35,000-character robots.txt with one curly apostrophe is stored and read", async () => {
  const dir = await Deno.makeTempDir();
  const deps = await testDeps({ kv: await Deno.openKv(`${dir}/kv.sqlite3`) });
  try {
    const app = createApp(deps);
    const t = await createTenant(app, TEST_ADMIN_TOKEN);
    (deps.dns as FakeDns).a.set("acme.test", ["93.184.216.34"]);
    let body = "# Don’t crawl the private area\nUser-agent: GPTBot\nDisallow: /\n\nUser-agent: *\n";
    while (body.length < 35_000) body += `Disallow: /archive/${body.length}/\n`;
    assert.ok(new TextEncoder().encode(body).length < 40_000, "its UTF-8 size is well under 60,000");
    deps.fetch = ((input: string | URL | Request) =>
      Promise.resolve(
        String(input instanceof Request ? input.url : input).endsWith("/robots.txt")
          ? new Response(body, { status: 200, headers: { "content-type": "text/plain" } })
          : new Response("", { status: 404 }),
      )) as typeof fetch;
    await refreshAllRobots(deps);
    assert.deepEqual(deps.log.lines.filter((l) => l.includes("robots")), [], "no refresh failed");
    const head =
      (await deps.kv.get<{ body_in_history?: boolean }>(keys.robots(t.org, t.touchpoint, "production")))
        .value;
    assert.ok(head, "the head record is stored");
    assert.equal(head.body_in_history, true, "its body is read from the version history");
    assert.equal((await readRobots(deps.kv, t.org, t.touchpoint, "production"))?.body, body);

    const res = await app.request("/v1/read/behavior_crawler_access", {
      method: "POST",
      headers: { authorization: `Bearer ${t.readKey}`, "content-type": "application/json" },
      body: JSON.stringify({ period: "today" }),
    });
    const answer = await res.json();
    assert.equal(res.status, 200, JSON.stringify(answer));
    assert.equal(answer.robots_txt.outcome, "ok", JSON.stringify(answer.robots_txt));
    const gpt = answer.crawlers.find((c: { crawler: string }) => c.crawler === "GPTBot");
    assert.equal(gpt?.access, "blocked", JSON.stringify(gpt));
  } finally {
    deps.kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
