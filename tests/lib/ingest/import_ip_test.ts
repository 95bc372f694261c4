import assert from "node:assert/strict";
import { createApp } from "../../../app.ts";
import { keys } from "../../../lib/store/keys.ts";
import { unpackEvent } from "../../../lib/store/event_codec.ts";
import { type FakeDns, TEST_ADMIN_TOKEN, testDeps } from "../../helpers/deps.ts";
import { sweepAddresses } from "../../../lib/store/address_retention.ts";
import { sweepPendingVerifications } from "../../../lib/jobs/verify.ts";
import { createTenant } from "../../helpers/tenant.ts";
import { event } from "../../helpers/events.ts";
import type { StoredHit, VerificationRecord } from "../../../lib/store/records.ts";

const DAY = 86_400_000;

Deno.test("import: an event older than 30 days gets its geo but its address is not stored", async () => {
  const deps = await testDeps();
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN);
  try {
    const now = deps.clock.now();
    const line = (days: number, ip: string, anonymous_id: string) =>
      JSON.stringify({
        kind: "event",
        received_at: new Date(now - days * DAY).toISOString(),
        ip,
        ...event({ anonymous_id, session_id: `s-${anonymous_id}` }),
      });
    const body = [line(200, "81.2.69.160", "old"), line(1, "81.2.69.142", "recent")].join("\n");
    const res = await app.request(`/admin/v1/orgs/${t.org}/import?touchpoint=${t.touchpoint}`, {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      body,
    });
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal((await res.json()).imported, 2);
    const addresses: string[] = [];
    for await (const e of deps.kv.list<{ ips: Record<string, string> }>({ prefix: keys.ips() })) {
      addresses.push(...Object.values(e.value.ips));
    }
    assert.deepEqual(addresses, ["81.2.69.142"]);
    const events = [];
    for await (const e of deps.kv.list({ prefix: keys.rawEvents(t.org, "production") })) {
      events.push(unpackEvent(e.value));
    }
    const old = events.find((e) => e.anonymous_id === "old")!;
    assert.deepEqual(old.geo, deps.geo.lookup("81.2.69.160"));
    assert.ok(old.geo.country, "geo is still derived from the address");
  } finally {
    deps.kv.close();
  }
});

Deno.test("import: a crawler hit older than 30 days gets its geo but its address is not stored", async () => {
  const deps = await testDeps();
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN);
  try {
    const now = deps.clock.now();
    const line = (days: number, ip: string) =>
      JSON.stringify({
        kind: "hit",
        event_type: "$crawl",
        event_id: crypto.randomUUID(),
        timestamp: new Date(now - days * DAY).toISOString(),
        host: t.domain,
        path: "/docs",
        user_agent:
          "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)",
        ip,
      });
    const body = [line(200, "81.2.69.160"), line(1, "81.2.69.142")].join("\n");
    const res = await app.request(`/admin/v1/orgs/${t.org}/import?touchpoint=${t.touchpoint}`, {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      body,
    });
    assert.equal(res.status, 200, await res.clone().text());
    const answer = await res.json();
    assert.equal(answer.imported, 2, JSON.stringify(answer));
    const addresses: string[] = [];
    for await (const e of deps.kv.list<{ ips: Record<string, string> }>({ prefix: keys.ips() })) {
      addresses.push(...Object.values(e.value.ips));
    }
    assert.deepEqual(addresses, ["81.2.69.142"]);
    const hits: StoredHit[] = [];
    for await (const e of deps.kv.list<StoredHit>({ prefix: keys.rawHits(t.org, "production") })) {
      hits.push(e.value);
    }
    const old = hits.find((h) => h.timestamp < now - 100 * DAY)!;
    assert.deepEqual(old.geo, deps.geo.lookup("81.2.69.160"));
    assert.equal(old.verification, "unverifiable", "no address to check");
  } finally {
    deps.kv.close();
  }
});

Deno.test("import: crawler hits imported together keep each address no longer than 30 days from its own hit", async () => {
  const dir = await Deno.makeTempDir();
  const deps = await testDeps({ kv: await Deno.openKv(`${dir}/kv.sqlite3`) });
  const dns = deps.dns as FakeDns;
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN);
  try {
    // two hits of one 6-day import group (lib/ingest/import.ts): the older 29 days old, the newer 25
    const spanStart = Math.floor(Date.parse("2026-10-20T00:00:00Z") / (6 * DAY)) * 6 * DAY;
    const older = spanStart + 3_600_000, newer = spanStart + 5 * DAY;
    deps.clock.set(older + 29 * DAY);
    const addresses = { [older]: "192.0.2.10", [newer]: "192.0.2.11" };
    for (const ip of Object.values(addresses)) {
      const name = `crawl-${ip.replaceAll(".", "-")}.googlebot.com`;
      dns.ptr.set(ip, [name]);
      dns.a.set(name, [ip]);
    }
    const body = [older, newer].map((at) =>
      JSON.stringify({
        kind: "hit",
        event_type: "$crawl",
        event_id: crypto.randomUUID(),
        timestamp: new Date(at).toISOString(),
        host: t.domain,
        path: "/docs",
        user_agent: "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
        ip: addresses[at],
      })
    ).join("\n");
    const res = await app.request(`/admin/v1/orgs/${t.org}/import?touchpoint=${t.touchpoint}`, {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      body,
    });
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal((await res.json()).imported, 2);
    const stored = async () => {
      const out: string[] = [];
      for await (const e of deps.kv.list<{ ips: Record<string, string> }>({ prefix: keys.ips() })) {
        out.push(...Object.values(e.value.ips));
      }
      return out.sort();
    };
    assert.deepEqual(await stored(), ["192.0.2.10", "192.0.2.11"]);
    // verification still finds the group's addresses
    deps.clock.advance(2 * 60_000);
    await sweepPendingVerifications(app.ctx);
    for await (const e of deps.kv.list<StoredHit>({ prefix: keys.rawHits(t.org, "production") })) {
      const v = (await deps.kv.get<VerificationRecord>(keys.verification(t.org, e.value.id))).value;
      assert.equal(v?.outcome, "verified", JSON.stringify(v));
    }
    // a day and a half later the older hit is past its 30 days: the hourly sweep clears its address
    deps.clock.advance(DAY + DAY / 2);
    await sweepAddresses(deps.kv, deps.clock);
    assert.ok(!(await stored()).includes("192.0.2.10"), "the older hit's address outlived its 30 days");
  } finally {
    deps.kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
