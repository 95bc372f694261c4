/** A read over parts that keep changing is repeated until it sees one list, and fails rather than guess. */
import assert from "node:assert/strict";
import { Source } from "../../../lib/query/columns/source.ts";
import { keys } from "../../../lib/store/keys.ts";
import { touchIndex } from "../../../lib/parts/store.ts";
import { testDeps } from "../../helpers/deps.ts";
import { compact } from "../../../lib/jobs/compact.ts";
import { ev, store } from "./fixtures.ts";

/** An index entry only, written as every writer of the index writes it: enough to change the part list a read sees. */
const publishEntry = (kv: Deno.Kv, id: string) =>
  touchIndex(kv.atomic(), "org1", "production", "ev")
    .set(keys.part("org1", "production", "ev", id), { id, kind: "ev", rows: 0, chunks: 0 }).commit();

Deno.test("source: a read during which a part is published is done again; a list that settles gives its answer", async () => {
  const deps = await testDeps();
  const source = new Source(deps);
  const seen: number[] = [];
  const out = await source.consistent("org1", "production", "ev", async (parts) => {
    seen.push(parts.length);
    if (seen.length <= 3) await publishEntry(deps.kv, `p${seen.length}`);
    return parts.length;
  });
  assert.deepEqual(seen, [0, 1, 2, 3]);
  assert.equal(out, 3);
  deps.kv.close();
});

Deno.test("source: questions asked at once share the look at the index before their reads, each looks again after its own", async () => {
  const deps = await testDeps();
  const source = new Source(deps);
  await publishEntry(deps.kv, "p1");
  const prefix = JSON.stringify(keys.parts("org1", "production", "ev"));
  const stampKey = JSON.stringify(keys.partsVersion("org1", "production", "ev"));
  let listings = 0, looks = 0;
  const list = deps.kv.list.bind(deps.kv);
  deps.kv.list = ((sel: { prefix?: Deno.KvKey }, opts?: Deno.KvListOptions) => {
    if (JSON.stringify(sel.prefix) === prefix) listings++;
    return list(sel as Deno.KvListSelector, opts);
  }) as typeof deps.kv.list;
  const getMany = deps.kv.getMany.bind(deps.kv);
  deps.kv.getMany = ((ks: Deno.KvKey[], opts?: { consistency?: Deno.KvConsistencyLevel }) => {
    if (ks.some((k) => JSON.stringify(k) === stampKey)) looks++;
    return getMany(ks, opts);
  }) as typeof deps.kv.getMany;
  const seen = await Promise.all(
    [0, 1, 2, 3, 4].map(() =>
      source.consistent("org1", "production", "ev", async (parts) => {
        await new Promise((r) => setTimeout(r, 5));
        return parts.length;
      })
    ),
  );
  assert.deepEqual(seen, [1, 1, 1, 1, 1]);
  // one look before the five reads, then one after each (a look started before a read ended cannot tell
  // whether the parts changed during it); the unchanged index is listed once
  assert.equal(looks, 6);
  assert.equal(listings, 1);
  deps.kv.close();
});

Deno.test("source: a look at the index started before a read ended is never that read's check after it", async () => {
  // Question A's read ends first and starts its look after, which is held (its stamp taken from KV, given
  // later); question B's read then publishes a part and ends while A's look is still under way. B must look
  // again: taking A's (a snapshot from before the publish) would accept a read the part changed.
  const deps = await testDeps();
  const source = new Source(deps);
  await publishEntry(deps.kv, "p1");
  const stampKey = JSON.stringify(keys.partsVersion("org1", "production", "ev"));
  const getMany = deps.kv.getMany.bind(deps.kv);
  let hold: Promise<void> | null = null;
  let lookStarted = () => {};
  deps.kv.getMany = ((ks: Deno.KvKey[], opts?: { consistency?: Deno.KvConsistencyLevel }) => {
    if (!ks.some((k) => JSON.stringify(k) === stampKey)) return getMany(ks, opts);
    const gate = hold;
    const taken = getMany(ks, opts);
    lookStarted();
    return (async () => {
      const got = await taken;
      if (gate) await gate;
      return got;
    })();
  }) as typeof deps.kv.getMany;
  let openGate = () => {}, endA = () => {};
  const aEnds = new Promise<void>((r) => (endA = r));
  const bSaw: number[] = [];
  const a = source.consistent("org1", "production", "ev", async (parts) => {
    await aEnds;
    return parts.length;
  });
  const b = source.consistent("org1", "production", "ev", async (parts) => {
    bSaw.push(parts.length);
    if (bSaw.length > 1) return parts.length;
    const aLook = new Promise<void>((r) => (lookStarted = r));
    hold = new Promise<void>((r) => (openGate = r));
    endA();
    await aLook;
    hold = null;
    await publishEntry(deps.kv, "p2");
    setTimeout(() => openGate(), 20);
    return parts.length;
  });
  const [aSaw, bAnswer] = await Promise.all([a, b]);
  assert.equal(bAnswer, 2, `B's reads saw ${bSaw}`);
  assert.deepEqual(bSaw, [1, 2], "B read again");
  // A's read ended before the publish: its answer stands, or it reads again when its held look comes back
  // to an index kept anew meanwhile (a listing is only kept under the stamp read before it)
  assert.ok(aSaw === 1 || aSaw === 2);
  deps.kv.close();
});

Deno.test("source: a part list that changes during every read fails the question instead of answering inexactly", async () => {
  const deps = await testDeps();
  const source = new Source(deps);
  let reads = 0;
  await assert.rejects(
    source.consistent("org1", "production", "ev", async () => {
      await publishEntry(deps.kv, `p${++reads}`);
      return reads;
    }),
    /changed during each of 8 reads/,
  );
  assert.equal(reads, 8);
  deps.kv.close();
});

Deno.test("source: decoded parts are cached within config.partCacheBytes (PART_CACHE_MB), not beyond", async () => {
  const deps = await testDeps();
  const t0 = Date.parse("2026-11-19T10:00:00Z");
  await store(deps.kv, {
    events: Array.from(
      { length: 300 },
      (_, i) => ev({ received_at: t0 + i * 60_000, anonymous_id: `v${i % 40}` }),
    ),
  });
  await compact(deps, "org1", "production", "ev", { graceMs: 0 });
  const read = async (partCacheBytes: number) => {
    const source = new Source({ ...deps, config: { ...deps.config, partCacheBytes } });
    const { parts } = await source.events("org1", "production", t0, t0 + 86_400_000);
    assert.ok(parts > 0);
    return source.cacheBytes;
  };
  const roomy = await read(256 * 1024 * 1024);
  assert.ok(roomy > 0, "a part is kept when it fits");
  assert.equal(await read(Math.floor(roomy / 2)), 0, "a part larger than the limit is not kept");
  deps.kv.close();
});

Deno.test("source: an unchanged raw tail is built once, kept with what questions derive (up to half the budget)", async () => {
  const deps = await testDeps();
  try {
    const t0 = Date.parse("2026-11-19T10:00:00Z");
    deps.clock.set(t0 + 3_600_000);
    await store(deps.kv, {
      events: Array.from(
        { length: 10 },
        (_, i) => ev({ received_at: t0 + i * 1_000, anonymous_id: `v${i}` }),
      ),
    });
    // 10 records weigh 15,000 bytes: more than a quarter of this budget, less than half
    const source = new Source({ ...deps, config: { ...deps.config, partCacheBytes: 40_000 } });
    const read = async () => {
      const load = await source.events("org1", "production", t0, t0 + 86_400_000);
      assert.equal(load.rawRows, load.batches.at(-1)!.n);
      return load.batches.at(-1)!;
    };
    const first = await read(), again = await read();
    assert.equal(again.b, first.b, "the same records: the batch built from them is reused");
    assert.notEqual(again.scopeMasks, first.scopeMasks, "each question masks the tail itself");
    await store(deps.kv, { events: [ev({ received_at: t0 + 20_000, anonymous_id: "v99" })] });
    const changed = await read();
    assert.notEqual(changed.b, first.b);
    assert.equal(changed.n, 11);
  } finally {
    deps.kv.close();
  }
});

Deno.test("source: a stream keeps its parts when they all fit the budget, none when they do not", async () => {
  const deps = await testDeps();
  try {
    const t0 = Date.parse("2026-11-16T10:00:00Z");
    await store(deps.kv, {
      events: Array.from(
        { length: 600 },
        (_, i) => ev({ received_at: t0 + i * 7 * 60_000, anonymous_id: `v${i % 50}` }),
      ),
    });
    await compact(deps, "org1", "production", "ev", { graceMs: 0 });
    const stream = async (partCacheBytes: number) => {
      const source = new Source({ ...deps, config: { ...deps.config, partCacheBytes } });
      let visited = 0, largest = 0;
      const { parts } = await source.stream("org1", "production", t0, t0 + 4 * 86_400_000, {
        begin: () => visited = 0,
        visit: (e) => {
          visited += e.n;
          largest = Math.max(largest, e.bytes);
        },
      });
      return { parts, visited, largest, kept: source.cacheBytes };
    };
    const roomy = await stream(256 * 1024 * 1024);
    assert.ok(roomy.parts >= 2, `${roomy.parts} parts`);
    assert.equal(roomy.visited, 600);
    assert.ok(roomy.kept > 0, "parts that all fit are kept");
    // room for each part, not for all of them (170 bytes a row is what a stream counts them at)
    const tight = await stream(Math.max(roomy.largest * 2, 170 * 600 - 1));
    assert.equal(tight.visited, 600);
    assert.equal(tight.kept, 0, "parts that do not all fit are let go once visited");
  } finally {
    deps.kv.close();
  }
});
