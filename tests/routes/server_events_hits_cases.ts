import assert from "node:assert/strict";
import { BROWSER_UA, GPTBOT_UA, hit, setup } from "./server_events_helpers.ts";
import { keys } from "../../lib/store/keys.ts";
import type { PendingMarker } from "../../lib/store/pending_verification.ts";
import { sweepAddresses } from "../../lib/store/address_retention.ts";

const NOW = Date.parse("2026-11-20T12:00:00Z");
const iso = (ms: number) => new Date(ms).toISOString();

Deno.test("server-events: each malformed hit counts as invalid and the rest of the batch is kept", async () => {
  const t = await setup();
  const bad = [
    hit({ event_id: "not-a-uuid" }),
    hit({ path: "pricing" }),
    hit({ user_agent: "" }),
    hit({ user_agent: "   " }),
    hit({ status: 99 }),
    hit({ status: 600 }),
    hit({ status: 200.5 }),
    hit({ method: "G3T" }),
    hit({ method: "VERYLONGMETHOD" }),
    hit({ event_type: "$pageview" }),
    hit({ host: "a".repeat(256) }),
    hit({ path: "/" + "a".repeat(1024) }),
    hit({ timestamp: "yesterday" }),
  ];
  const r = await t.send([...bad, hit()]);
  assert.deepEqual(r, {
    accepted: 1,
    duplicates: 0,
    rejected: { invalid: bad.length, unknown_host: 0, not_crawler: 0 },
  });
});

Deno.test("server-events: status may be null, method defaults to GET and is upper-cased", async () => {
  const t = await setup();
  const a = hit({ status: null, method: undefined }), b = hit({ method: "head" });
  assert.equal((await t.send([a, b])).accepted, 2);
  const byId = new Map((await t.storedHits()).map((h) => [h.id, h]));
  assert.equal(byId.get(a.event_id as string)!.status, null);
  assert.equal(byId.get(a.event_id as string)!.method, "GET");
  assert.equal(byId.get(b.event_id as string)!.method, "HEAD");
});

Deno.test("server-events: host port is stripped, referer_host keeps the host only, long user agents are truncated", async () => {
  const t = await setup();
  const long = GPTBOT_UA + " x".repeat(400);
  await t.send([
    hit({ host: "WWW.Acme.test:8443", referer_host: "https://news.example.org/a/b?c=d", user_agent: long }),
  ]);
  const [h] = await t.storedHits();
  assert.equal(h.host, "www.acme.test");
  assert.equal(h.referer_host, "news.example.org");
  assert.equal(h.user_agent.length, 512);
  assert.equal(h.crawler, "GPTBot");
});

Deno.test("server-events: a browser agent is not_crawler and its address is never stored", async () => {
  const t = await setup();
  const r = await t.send([hit({ user_agent: BROWSER_UA, ip: "81.2.69.160" })]);
  assert.equal(r.rejected.not_crawler, 1);
  assert.equal((await t.storedHits()).length, 0);
  const addrs = await Array.fromAsync(t.deps.kv.list({ prefix: keys.ips() }));
  assert.equal(addrs.length, 0);
});

Deno.test("server-events: an invalid ip is dropped and the hit kept; a valid one is stored apart with geo on the hit", async () => {
  const t = await setup();
  const a = hit({ ip: "999.1.1.1" }), b = hit({ ip: "81.2.69.160", user_agent: "curl/8.4.0" });
  const c = hit({ ip: 12345 }), d = hit({ ip: { v4: "1.2.3.4" } });
  assert.equal((await t.send([a, b, c, d])).accepted, 4);
  const byId = new Map((await t.storedHits()).map((h) => [h.id, h]));
  const ha = byId.get(a.event_id as string)!, hb = byId.get(b.event_id as string)!;
  assert.equal(await t.addressOf(ha), null);
  assert.equal(ha.verification, "unverifiable");
  assert.equal(await t.addressOf(hb), "81.2.69.160");
  assert.equal(hb.geo.country, "DE");
  assert.equal(hb.crawler, "unknown");
  assert.ok(!JSON.stringify(hb).includes("81.2.69.160"), "the address never sits in the hit");
});

Deno.test("server-events: timestamps are corrected by the sender's clock offset (sent_at)", async () => {
  const t = await setup();
  // the sender's clock runs 10 minutes fast
  const a = hit({ timestamp: iso(NOW + 10 * 60_000 - 30_000) });
  await t.send([a], { sent_at: iso(NOW + 10 * 60_000) });
  const [h] = await t.storedHits();
  assert.equal(h.timestamp, NOW - 30_000);
  assert.equal(h.received_at, NOW);
});

Deno.test("server-events: no timestamp means receive time", async () => {
  const t = await setup();
  await t.send([hit({ timestamp: undefined })]);
  assert.equal((await t.storedHits())[0].timestamp, NOW);
});

Deno.test("server-events: a hit older than 7 days counts as invalid", async () => {
  const t = await setup();
  const r = await t.send([
    hit({ timestamp: iso(NOW - 7 * 86_400_000 - 1000) }),
    hit({ timestamp: iso(NOW - 6 * 86_400_000) }),
  ]);
  assert.equal(r.rejected.invalid, 1);
  assert.equal(r.accepted, 1);
});

Deno.test("server-events: a timestamp more than 5 minutes ahead becomes receive time; less is kept", async () => {
  const t = await setup();
  const far = hit({ timestamp: iso(NOW + 6 * 60_000) }), near = hit({ timestamp: iso(NOW + 4 * 60_000) });
  await t.send([far, near]);
  const byId = new Map((await t.storedHits()).map((h) => [h.id, h]));
  assert.equal(byId.get(far.event_id as string)!.timestamp, NOW);
  assert.equal(byId.get(near.event_id as string)!.timestamp, NOW + 4 * 60_000);
});

Deno.test("server-events: the host must be the key's environment domain or a subdomain", async () => {
  const t = await setup();
  const r = await t.send([
    hit({ host: "blog.acme.test" }),
    hit({ host: "evil.test" }),
    hit({ host: "notacme.test" }),
    hit({ host: "" }),
  ]);
  assert.equal(r.accepted, 1);
  assert.equal(r.rejected.unknown_host, 3);
});

Deno.test("server-events: overlapping domains: the most specific decides, another environment's host is unknown_host", async () => {
  const t = await setup(); // production acme.test, staging staging.acme.test, development dev.acme.test
  const prod = await t.send([
    hit({ host: "staging.acme.test" }),
    hit({ host: "x.staging.acme.test" }),
    hit({ host: "www.acme.test" }),
  ]);
  assert.equal(prod.rejected.unknown_host, 2);
  assert.equal(prod.accepted, 1);
  const dev = await t.send(
    [hit({ host: "dev.acme.test" }), hit({ host: "localhost:3000" }), hit({ host: "acme.test" })],
    {},
    t.tenant.devServerKey,
  );
  assert.equal(dev.accepted, 2);
  assert.equal(dev.rejected.unknown_host, 1);
  assert.equal((await t.storedHits("development")).length, 2);
  const prodLocal = await t.send([hit({ host: "localhost" })]);
  assert.equal(prodLocal.rejected.unknown_host, 1);
});

Deno.test("server-events: a repeat inside the batch and a batch sent twice are duplicates, stored once", async () => {
  const t = await setup();
  const a = hit(), b = hit();
  assert.deepEqual(await t.send([a, b, a]), {
    accepted: 2,
    duplicates: 1,
    rejected: { invalid: 0, unknown_host: 0, not_crawler: 0 },
  });
  assert.deepEqual(await t.send([a, b]), {
    accepted: 0,
    duplicates: 2,
    rejected: { invalid: 0, unknown_host: 0, not_crawler: 0 },
  });
  assert.equal((await t.storedHits()).length, 2);
});

Deno.test("server-events: concurrent identical batches store each hit once", async () => {
  const t = await setup();
  const batch = Array.from({ length: 60 }, () => hit());
  const results = await Promise.all([t.send(batch), t.send(batch), t.send(batch)]);
  assert.equal(results.reduce((s, r) => s + r.accepted, 0), 60);
  assert.equal(results.reduce((s, r) => s + r.duplicates, 0), 120);
  assert.equal((await t.storedHits()).length, 60);
});

Deno.test("server-events: robots.txt, llms.txt and sitemaps are site files; a page is crawled on GET 2xx, 304 or unknown", async () => {
  const t = await setup();
  const cases: [Record<string, unknown>, string | null, boolean][] = [
    [{ path: "/robots.txt" }, "robots.txt", false],
    [{ path: "/llms.txt" }, "llms.txt", false],
    [{ path: "/llms-full.txt" }, "llms-full.txt", false],
    [{ path: "/sitemap_index.xml" }, "sitemap", false],
    [{ path: "/sitemaps/post-sitemap.xml?page=2" }, "sitemap", false],
    [{ path: "/feeds/all.xml.gz" }, "sitemap", false],
    [{ path: "/docs/v1.2/intro" }, null, true],
    [{ path: "/a", status: 304 }, null, true],
    [{ path: "/b", status: null }, null, true],
    [{ path: "/c", status: 404 }, null, false],
    [{ path: "/d", status: 301 }, null, false],
    [{ path: "/e", method: "HEAD" }, null, false],
  ];
  const sent = cases.map(([over]) => hit(over));
  await t.send(sent);
  const byId = new Map((await t.storedHits()).map((h) => [h.id, h]));
  cases.forEach(([over, siteFile, crawled], i) => {
    const h = byId.get(sent[i].event_id as string)!;
    assert.equal(h.site_file, siteFile, JSON.stringify(over));
    assert.equal(h.crawled, crawled, JSON.stringify(over));
  });
});

Deno.test("server-events: an address in the vendor's list is verified at arrival, others that can be checked wait as pending; no address or no documented check is unverifiable", async () => {
  const t = await setup();
  const listed = hit({ ip: "20.171.206.10" }),
    checkable = hit({ ip: "203.0.113.9" }),
    noIp = hit({ ip: null }),
    noCheck = hit({ user_agent: "Mozilla/5.0 (compatible; Bytespider; spider-feedback@bytedance.com)" });
  await t.send([listed, checkable, noIp, noCheck]);
  const byId = new Map((await t.storedHits()).map((h) => [h.id, h]));
  assert.equal(byId.get(listed.event_id as string)!.verification, "verified");
  assert.equal(byId.get(checkable.event_id as string)!.verification, "pending");
  assert.equal(byId.get(noIp.event_id as string)!.verification, "unverifiable");
  assert.equal(byId.get(noCheck.event_id as string)!.verification, "unverifiable");
  assert.equal(byId.get(noCheck.event_id as string)!.crawler, "Bytespider");
  const pending = await Array.fromAsync(t.deps.kv.list<PendingMarker>({ prefix: keys.verifyPendingAll() }));
  assert.deepEqual(pending.flatMap((p) => p.value.hits), [[checkable.event_id, "GPTBot"]]);
});

Deno.test("server-events: addresses of hits are cleared after 30 days, the hits stay", async () => {
  const t = await setup();
  await t.send([hit(), hit({ ip: "81.2.69.160" })]);
  t.deps.clock.advance(29 * 86_400_000);
  await sweepAddresses(t.deps.kv, t.deps.clock);
  assert.equal((await Array.fromAsync(t.deps.kv.list({ prefix: keys.ips() }))).length, 1);
  t.deps.clock.advance(2 * 86_400_000);
  await sweepAddresses(t.deps.kv, t.deps.clock);
  assert.equal((await Array.fromAsync(t.deps.kv.list({ prefix: keys.ips() }))).length, 0);
  assert.equal((await t.storedHits()).length, 2);
});

Deno.test("server-events: a UUID sent in upper case is the same hit as in lower case", async () => {
  const t = await setup();
  const h = hit();
  const upper = { ...h, event_id: String(h.event_id).toUpperCase() };
  assert.deepEqual(
    await t.send([upper, h]),
    { accepted: 1, duplicates: 1, rejected: { invalid: 0, unknown_host: 0, not_crawler: 0 } },
  );
  assert.equal((await t.send([h])).duplicates, 1);
  assert.deepEqual((await t.storedHits()).map((s) => s.id), [h.event_id]);
});

Deno.test("server-events: overlapping batches and a retry sent at once store each hit, its address and its pending entry once", async () => {
  const { deps, send, storedHits } = await setup();
  const hits = Array.from({ length: 250 }, (_, i) => ({
    event_type: "$crawl",
    event_id: crypto.randomUUID(),
    host: "acme.test",
    path: `/p/${i}`,
    status: 200,
    user_agent: GPTBOT_UA,
    ip: `20.171.${i >> 8}.${i & 255}`,
  }));
  const a = hits.slice(0, 150), b = hits.slice(100, 250);
  const results = await Promise.all([send(a), send(b), send(a), send(hits.slice(0, 30))]);
  assert.equal(results.reduce((n, r) => n + r.accepted, 0), 250, "each hit accepted by exactly one request");
  assert.equal(results.reduce((n, r) => n + r.accepted + r.duplicates, 0), 150 + 150 + 150 + 30);
  const stored = await storedHits();
  assert.equal(stored.length, 250);
  assert.equal(new Set(stored.map((h) => h.id)).size, 250);

  const addresses = new Map<string, number>();
  for await (const e of deps.kv.list<{ ips?: Record<string, string> }>({ prefix: keys.ips() })) {
    for (const id of Object.keys(e.value.ips ?? {})) addresses.set(id, (addresses.get(id) ?? 0) + 1);
  }
  const pending = new Map<string, number>();
  for await (const e of deps.kv.list<PendingMarker>({ prefix: keys.verifyPendingAll() })) {
    for (const [id] of e.value.hits) pending.set(id, (pending.get(id) ?? 0) + 1);
  }
  for (const h of hits) {
    assert.equal(addresses.get(h.event_id), 1, "one address record holds the hit's address");
    assert.equal(pending.get(h.event_id), 1, "one pending marker names the hit");
  }
});
