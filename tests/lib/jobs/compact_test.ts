import assert from "node:assert/strict";
import { compact, type CompactStep } from "../../../lib/jobs/compact.ts";
import { createEngine } from "../../../lib/query/api.ts";
import type { AggregateOptions, Scope } from "../../../lib/query/api.ts";
import type { HitAggregateOptions, HitScope } from "../../../lib/query/api.ts";
import { naiveAggregate, naiveHitsAggregate } from "../query/reference.ts";
import { listParts, partColumns, type PartKind, readBlob } from "../../../lib/parts/store.ts";
import { decodeBatch, inflate } from "../../../lib/parts/codec.ts";
import { keys } from "../../../lib/store/keys.ts";
import type { StoredEvent, StoredHit } from "../../../lib/store/records.ts";
import { ingestWebEvents } from "../../../lib/ingest/web.ts";
import { ingestHits } from "../../../lib/ingest/hits.ts";
import { testDeps } from "../../helpers/deps.ts";
import { createContext } from "../../../lib/context.ts";
import { ev, hit, store } from "../query/fixtures.ts";

const NOW = Date.parse("2026-11-20T12:00:00Z");
const DAY = 86_400_000;
const scope: Scope = {
  org: "org1",
  env: "production",
  from: NOW - 10 * DAY,
  to: NOW,
  timezone: "Europe/Berlin",
};
const q: AggregateOptions = {
  metrics: ["visitors", "sessions", "pageviews", "events", "bounce_rate"],
  breakdown: ["page"],
};

function site(n: number, dayOffset: number, tag: string): StoredEvent[] {
  return Array.from({ length: n }, (_, i) =>
    ev({
      received_at: NOW - dayOffset * DAY + i * 1000,
      anonymous_id: `v${i % 37}`,
      session_id: `${tag}-s${i % 53}`,
      path: ["/", "/pricing", "/blog", "/signup"][i % 4],
      event_type: i % 5 === 0 ? "$pageleave" : "$pageview",
    }));
}

const hitScope: HitScope = { org: "org1", env: "production", from: NOW - 10 * DAY, to: NOW, timezone: "UTC" };
const hitQ: HitAggregateOptions = {
  metrics: ["requests", "crawled_requests", "pages", "last_crawl_at", "first_seen_at"],
  breakdown: ["page", "crawler"],
};

/** Hits of several crawlers, paths and statuses on one closed day. */
function crawl(n: number, dayOffset: number): StoredHit[] {
  return Array.from({ length: n }, (_, i) =>
    hit({
      timestamp: NOW - dayOffset * DAY + i * 1000,
      path: ["/", "/pricing", "/docs", "/blog"][i % 4],
      crawler: i % 3 === 0 ? "ClaudeBot" : "GPTBot",
      status: i % 7 === 0 ? 404 : 200,
      crawled: i % 7 !== 0,
    }));
}

async function chunkCount(kv: Deno.Kv) {
  let n = 0;
  for await (const _ of kv.list({ prefix: ["part_chunk"] })) n++;
  return n;
}

async function rawCount(kv: Deno.Kv, kind: PartKind = "ev") {
  let raw = 0;
  const prefix = kind === "ev" ? keys.rawEvents("org1", "production") : keys.rawHits("org1", "production");
  for await (const _ of kv.list({ prefix })) raw++;
  return raw;
}

async function assertClean(kv: Deno.Kv, kind: PartKind = "ev") {
  const parts = await listParts(kv, "org1", "production", kind);
  assert.ok(parts.every((p) => !p.meta.pending), "no part left pending");
  assert.equal(await chunkCount(kv), parts.reduce((s, p) => s + p.meta.chunks, 0), "no orphan chunks");
  assert.equal(await rawCount(kv, kind), 0, "raw keys of compacted windows are gone");
}

const fail = (at: CompactStep) => (step: CompactStep) => {
  if (step === at) throw new Error(`crash at ${step}`);
};

for (const step of ["chunks_written", "published", "raw_partly_deleted", "raw_deleted"] as const) {
  Deno.test(`compaction: a crash after "${step}" loses nothing and counts nothing twice, and a rerun finishes`, async () => {
    const deps = await testDeps();
    deps.clock.set(NOW);
    const all = site(450, 3, "a");
    await store(deps.kv, { events: all });
    const expected = naiveAggregate(all, scope, q);
    await assert.rejects(
      compact(deps, "org1", "production", "ev", { graceMs: 0, failAt: fail(step) }),
      /crash/,
    );
    assert.deepEqual(await createEngine(deps).aggregate(scope, q), expected);
    await compact(deps, "org1", "production", "ev", { graceMs: 0 });
    assert.deepEqual(await createEngine(deps).aggregate(scope, q), expected);
    await assertClean(deps.kv);
    deps.kv.close();
  });
}

for (const step of ["merge_chunks_written", "merge_swapped"] as const) {
  Deno.test(`compaction: a crash after "${step}" of a merge keeps answers exact and leaves no garbage after a rerun`, async () => {
    const deps = await testDeps();
    deps.clock.set(NOW);
    const first = site(120, 3, "a");
    await store(deps.kv, { events: first });
    await compact(deps, "org1", "production", "ev", { graceMs: 0 });
    const late = site(80, 3, "b").map((e) => ({ ...e, received_at: e.received_at + 500 })); // same closed day
    await store(deps.kv, { events: late });
    const expected = naiveAggregate([...first, ...late], scope, q);
    await assert.rejects(
      compact(deps, "org1", "production", "ev", { graceMs: 0, failAt: fail(step) }),
      /crash/,
    );
    assert.deepEqual(await createEngine(deps).aggregate(scope, q), expected);
    await compact(deps, "org1", "production", "ev", { graceMs: 0 });
    assert.deepEqual(await createEngine(deps).aggregate(scope, q), expected);
    assert.equal(
      (await listParts(deps.kv, "org1", "production", "ev")).length,
      1,
      "the day's parts merged into one",
    );
    await assertClean(deps.kv);
    deps.kv.close();
  });
}

// The same crash points for crawler hits: 450 hits make the raw deletion span several commits.
for (const step of ["chunks_written", "published", "raw_partly_deleted", "raw_deleted"] as const) {
  Deno.test(`compaction of hits: a crash after "${step}" loses no hit and counts none twice, and a rerun finishes`, async () => {
    const deps = await testDeps();
    deps.clock.set(NOW);
    const all = crawl(450, 3);
    await store(deps.kv, { hits: all });
    const expected = naiveHitsAggregate(all, new Map(), hitScope, hitQ);
    assert.equal(expected.totals.requests, 450);
    await assert.rejects(
      compact(deps, "org1", "production", "hit", { graceMs: 0, failAt: fail(step) }),
      /crash/,
    );
    assert.deepEqual(await createEngine(deps).hitsAggregate(hitScope, hitQ), expected);
    await compact(deps, "org1", "production", "hit", { graceMs: 0 });
    assert.deepEqual(await createEngine(deps).hitsAggregate(hitScope, hitQ), expected);
    await assertClean(deps.kv, "hit");
    deps.kv.close();
  });
}

for (const step of ["merge_chunks_written", "merge_swapped"] as const) {
  Deno.test(`compaction of hits: a crash after "${step}" of a merge keeps answers exact and leaves no garbage after a rerun`, async () => {
    const deps = await testDeps();
    deps.clock.set(NOW);
    const first = crawl(120, 3);
    await store(deps.kv, { hits: first });
    await compact(deps, "org1", "production", "hit", { graceMs: 0 });
    const late = crawl(80, 3).map((h) => ({
      ...h,
      timestamp: h.timestamp + 500,
      received_at: h.received_at + 500,
    }));
    await store(deps.kv, { hits: late });
    const expected = naiveHitsAggregate([...first, ...late], new Map(), hitScope, hitQ);
    await assert.rejects(
      compact(deps, "org1", "production", "hit", { graceMs: 0, failAt: fail(step) }),
      /crash/,
    );
    assert.deepEqual(await createEngine(deps).hitsAggregate(hitScope, hitQ), expected);
    await compact(deps, "org1", "production", "hit", { graceMs: 0 });
    assert.deepEqual(await createEngine(deps).hitsAggregate(hitScope, hitQ), expected);
    assert.equal(
      (await listParts(deps.kv, "org1", "production", "hit")).length,
      1,
      "the day's parts merged into one",
    );
    await assertClean(deps.kv, "hit");
    deps.kv.close();
  });
}

Deno.test("compaction: open windows stay raw; a late arrival in a compacted window lands in a later part", async () => {
  const deps = await testDeps();
  deps.clock.set(NOW);
  const old = site(50, 2, "a");
  const fresh = ev({ received_at: NOW - 30_000, anonymous_id: "new" });
  await store(deps.kv, { events: [...old, fresh] });
  await compact(deps, "org1", "production", "ev");
  assert.equal(await rawCount(deps.kv), 1, "younger than the grace period");
  const late = ev({ received_at: NOW - 2 * DAY + 10, anonymous_id: "late", path: "/late" });
  await store(deps.kv, { events: [late] });
  const want = naiveAggregate([...old, fresh, late], scope, q);
  assert.deepEqual(await createEngine(deps).aggregate(scope, q), want);
  deps.clock.advance(10 * 60_000);
  await compact(deps, "org1", "production", "ev");
  assert.deepEqual(await createEngine(deps).aggregate(scope, q), want);
  assert.equal(await rawCount(deps.kv), 0);
  deps.kv.close();
});

Deno.test("compaction: addresses never enter parts", async () => {
  const deps = await testDeps();
  deps.clock.set(NOW);
  const org = {
    id: "org1",
    name: "A",
    plan: "professional" as const,
    timezone: "UTC",
    active: true,
    created_at: "",
  };
  const tp = {
    id: "tp1",
    org: "org1",
    name: "s",
    kind: "website" as const,
    archived: false,
    environments: { production: { domain: "acme.test", enabled: true } },
    created_at: "",
  };
  await ingestWebEvents(createContext(deps), { org, touchpoint: tp, env: "production" }, [{
    event_id: "00000000-0000-4000-8000-000000000001",
    anonymous_id: "a",
    session_id: "s",
    sequence_no: 0,
    platform: "web",
    event_type: "$pageview",
    screen: "/",
    properties: { path: "/", url: "https://acme.test/" },
    device_time: new Date(NOW - DAY).toISOString(),
  }], { receivedAt: NOW - DAY, ip: "81.2.69.142", userAgent: "Mozilla/5.0 Chrome/131.0.0.0" });
  await compact(deps, "org1", "production", "ev", { graceMs: 0 });
  const parts = await listParts(deps.kv, "org1", "production", "ev");
  assert.equal(parts.length, 1);
  const b = await decodeBatch(
    { n: parts[0].meta.rows, columns: await partColumns(deps.kv, parts[0].meta) },
    await readBlob(deps.kv, parts[0].meta),
  );
  const text = JSON.stringify(Object.values(b.cols).map((c) => (c.kind === "str" ? c.dict : [])));
  assert.ok(text.includes("Berlin"), "derived location is kept");
  assert.ok(!text.includes("81.2.69.142"), "the address is not");
  deps.kv.close();
});

/** Every byte a part is made of, as text: chunks as written, each column inflated, the directory and index entry. */
async function partText(kv: Deno.Kv, kind: PartKind): Promise<{ text: string; numbers: number[] }> {
  const latin1 = new TextDecoder("latin1");
  const utf8 = new TextDecoder();
  const out: string[] = [];
  const numbers: number[] = [];
  for (const { meta } of await listParts(kv, "org1", "production", kind)) {
    const columns = await partColumns(kv, meta);
    const blob = await readBlob(kv, meta);
    out.push(JSON.stringify(meta), JSON.stringify(columns), latin1.decode(blob));
    for (const c of columns) {
      const seg = blob.subarray(c.off, c.off + c.len);
      const bytes = c.stored ? seg : inflate(seg);
      out.push(latin1.decode(bytes), utf8.decode(bytes));
    }
    const b = await decodeBatch({ n: meta.rows, columns }, blob);
    for (const col of Object.values(b.cols)) {
      if (col.kind === "str") out.push(JSON.stringify(col.dict));
      else numbers.push(...col.values);
    }
  }
  return { text: out.join("\n"), numbers };
}

Deno.test("compaction: crawler addresses never enter hit parts", async () => {
  const deps = await testDeps();
  deps.clock.set(NOW);
  const tp = {
    id: "tp1",
    org: "org1",
    name: "s",
    kind: "website" as const,
    archived: false,
    environments: { production: { domain: "acme.test", enabled: true } },
    created_at: "",
  };
  const crawlHit = (n: number, ip: string) => ({
    event_type: "$crawl",
    event_id: `00000000-0000-4000-8000-00000000000${n}`,
    timestamp: new Date(NOW - DAY + n).toISOString(),
    host: "acme.test",
    path: `/page-${n}`,
    user_agent:
      "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)",
    ip,
  });
  const v4 = "81.2.69.142", v6 = "2001:db8:85a3::8a2e:370:7334";
  const r = await ingestHits(createContext(deps), {
    org: "org1",
    touchpoint: "tp1",
    env: "production",
    touchpoints: [tp],
    receivedAt: NOW - DAY,
    clockOffsetMs: 0,
  }, [crawlHit(1, v4), crawlHit(2, v6)]);
  assert.equal(r.accepted, 2);
  let kept = "";
  for await (const e of deps.kv.list({ prefix: keys.ips() })) kept += JSON.stringify(e.value);
  assert.ok(kept.includes(v4) && kept.includes(v6), "the addresses were received, and are kept apart");

  await compact(deps, "org1", "production", "hit", { graceMs: 0 });
  assert.equal((await listParts(deps.kv, "org1", "production", "hit")).length, 1);
  const { text, numbers } = await partText(deps.kv, "hit");
  assert.ok(text.includes("Berlin") && text.includes("/page-2"), "derived location and the hits are kept");
  for (const ip of [v4, v6, "81.2.69", "2001:db8"]) assert.ok(!text.includes(ip), `${ip} is not in the part`);
  const v4AsNumber = ((81 << 24) >>> 0) + (2 << 16) + (69 << 8) + 142;
  assert.ok(!numbers.includes(v4AsNumber), "nor the address as a number");
  deps.kv.close();
});

Deno.test("compaction: a verification outcome stored after the hit was compacted still wins, and survives a merge", async () => {
  const deps = await testDeps();
  deps.clock.set(NOW);
  const h = hit({ timestamp: NOW - DAY, verification: "pending" });
  await store(deps.kv, { hits: [h, hit({ timestamp: NOW - DAY + 5 })] });
  await compact(deps, "org1", "production", "hit", { graceMs: 0 });
  await deps.kv.set(keys.verification("org1", h.id), {
    outcome: "spoofed",
    method: "reverse_dns",
    reason: "no match",
    checked_at: NOW,
  });
  const hs = { org: "org1", env: "production" as const, from: NOW - 2 * DAY, to: NOW, timezone: "UTC" };
  const byOutcome = async () =>
    (await createEngine(deps).hitsAggregate(hs, { metrics: ["requests"], breakdown: ["verification"] })).rows
      .map((r) => [r.key.verification, r.metrics.requests]);
  assert.deepEqual(await byOutcome(), [["spoofed", 1], ["verified", 1]]);
  await store(deps.kv, { hits: [hit({ timestamp: NOW - DAY + 9 })] });
  await compact(deps, "org1", "production", "hit", { graceMs: 0 });
  assert.equal((await listParts(deps.kv, "org1", "production", "hit")).length, 1);
  assert.deepEqual(await byOutcome(), [["verified", 2], ["spoofed", 1]]);
  deps.kv.close();
});
