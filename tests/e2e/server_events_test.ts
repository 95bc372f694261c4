import assert from "node:assert/strict";
import { startServer } from "../helpers/server.ts";
import { createTenant } from "../helpers/tenant.ts";

const GPTBOT_UA =
  "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.3; +https://openai.com/gptbot";

const crawl = (over: Record<string, unknown> = {}) => ({
  event_type: "$crawl",
  event_id: crypto.randomUUID(),
  host: "acme.test",
  path: "/pricing",
  status: 200,
  user_agent: GPTBOT_UA,
  ip: "20.171.206.10",
  ...over,
});

Deno.test("e2e server-events: the real server stores crawler hits once and answers every status row", async () => {
  const srv = await startServer();
  try {
    const api = { request: (p: string, i?: RequestInit) => fetch(srv.url + p, i) };
    const t = await createTenant(api, srv.adminToken);
    const post = (body: unknown, key: string | null = t.serverKey, headers: Record<string, string> = {}) =>
      fetch(`${srv.url}/v1/behavior/server-events`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(key ? { authorization: `Bearer ${key}` } : {}),
          ...headers,
        },
        body: typeof body === "string" ? body : JSON.stringify(body),
      });

    const batch = [
      crawl(),
      crawl({ path: "/robots.txt" }),
      crawl({ user_agent: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) Gecko/20100101 Firefox/133.0" }),
      crawl({ host: "elsewhere.test" }),
      crawl({ event_id: "nope" }),
    ];
    const first = await post({ sent_at: new Date().toISOString(), events: batch });
    assert.equal(first.status, 202);
    assert.deepEqual(await first.json(), {
      accepted: 2,
      duplicates: 0,
      rejected: { invalid: 1, unknown_host: 1, not_crawler: 1 },
    });
    const retry = await post({ events: batch });
    assert.equal((await retry.json()).duplicates, 2);

    const statuses: [Response, number][] = [
      [await post({ events: [crawl()] }, null), 401],
      [await post({ events: [crawl()] }, "svc_sk_prod_" + "0".repeat(32)), 401],
      [await post({ events: [crawl()] }, t.publicKey), 401],
      [await post({ events: [crawl()] }, t.serverKey, { origin: "https://acme.test" }), 403],
      [await post({ events: Array.from({ length: 501 }, () => crawl()) }), 413],
      [
        await post(
          JSON.stringify({ events: [crawl({ path: "/" + "x".repeat(1000) })], pad: "y".repeat(1_100_000) }),
        ),
        413,
      ],
      [await post({ events: "none" }), 422],
      [await post("{not json"), 422],
    ];
    for (const [res, want] of statuses) {
      assert.equal(res.status, want);
      const body = await res.json();
      assert.ok(body.code && body.error && body.timestamp, JSON.stringify(body));
    }

    const listed = await fetch(`${srv.url}/admin/v1/orgs/${t.org}/hits?limit=10`, {
      headers: { authorization: `Bearer ${srv.adminToken}` },
    });
    const { hits } = await listed.json();
    assert.equal(hits.length, 2);
    assert.deepEqual(
      hits.map((h: { site_file: string | null }) => h.site_file).sort(),
      ["robots.txt", null].sort(),
    );
    assert.ok(
      hits.every((h: { crawler: string; category: string }) =>
        h.crawler === "GPTBot" && h.category === "ai_training"
      ),
    );
    assert.ok(!JSON.stringify(hits).includes("20.171.206.10"), "no address in stored hits");
  } finally {
    await srv.stop();
  }
});
