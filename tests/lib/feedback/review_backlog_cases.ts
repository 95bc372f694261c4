// A store history longer than a run's MAX_PAGES pages is read over several runs from a cursor kept in KV
// (lib/feedback/walk.ts): a first connection, new reviews past MAX_PAGES after a backoff, a page that failed,
// two runs at once, a connection whose history the old code cut at 10 pages, a cursor the store refuses.
// Real KV file, the tests' store stand-in (store_server.ts) serving App Store Connect's offset cursors.
import assert from "node:assert/strict";
import { exportPKCS8, generateKeyPair } from "jose";
import { testDeps } from "../../helpers/deps.ts";
import { createApp, listReviews, storeReviews } from "../../../lib/feedback/store.ts";
import { saveCredential } from "../../../lib/feedback/credentials.ts";
import { fetchAppReviews, MAX_PAGES } from "../../../lib/feedback/fetch_job.ts";
import { ascReviewsPage } from "../../../lib/feedback/sources/app_store_connect.ts";
import type { FeedbackApp } from "../../../lib/feedback/types.ts";
import { startStoreServer, type StoreServer } from "./store_server.ts";

const KEY = btoa(String.fromCharCode(...new Uint8Array(32).fill(7)));
const HOST = "api.appstoreconnect.apple.com";
const PATH = "/v1/apps/123456789/customerReviews";
const FIRST = `${HOST}${PATH}?limit=200&sort=-createdDate&include=response`;
const at = (o: number) => `${HOST}${PATH}?cursor=o${o}&limit=200`;

const review = (n: number) => ({
  type: "customerReviews",
  id: `r${n}`,
  attributes: {
    rating: 1 + (n % 5),
    title: `t${n}`,
    body: `review number ${n}`,
    reviewerNickname: `n${n}`,
    createdDate: new Date(Date.parse("2026-11-01T00:00:00Z") + n * 60_000).toISOString(),
    territory: "USA",
  },
  relationships: { response: { data: null } },
});

/** The store holds reviews 1..count, newest first, one a page; the cursor is an offset, as Apple's is. */
function publish(server: StoreServer, count: number) {
  for (const k of [...server.routes.keys()]) if (k.startsWith(HOST)) server.routes.delete(k);
  for (let o = 0; o < count; o++) {
    const next = o + 1 < count ? `https://${at(o + 1)}` : undefined;
    server.routes.set(o === 0 ? FIRST : at(o), {
      body: { data: [review(count - o)], links: next ? { self: "x", next } : {} },
    });
  }
}

async function setup() {
  const server = startStoreServer();
  const deps = await testDeps({ fetch: server.fetch });
  deps.config.credentialsKey = KEY;
  const { privateKey } = await generateKeyPair("ES256", { extractable: true });
  const app = await createApp(deps.kv, deps.clock, "org1", {
    store: "app_store",
    store_id: "123456789",
    touchpoint: "tp_ios",
  });
  await saveCredential(deps.kv, KEY, "org1", app.id, {
    kind: "app_store_connect",
    issuer_id: "i",
    key_id: "K",
    private_key: await exportPKCS8(privateKey),
  }, deps.clock.now());
  return { server, deps, app };
}

type Setup = Awaited<ReturnType<typeof setup>>;

/** Runs the fetch until a run reads only the newest page; every run stays within MAX_PAGES pages and succeeds. */
async function drain({ deps, app }: Setup, app2: FeedbackApp = app) {
  let stored = 0;
  for (let run = 0; run < 20; run++) {
    const out = await fetchAppReviews(deps, app2);
    assert.equal(out.error, null, String(out.error));
    assert.ok(out.pages <= MAX_PAGES, `run ${run} read ${out.pages} pages`);
    stored += out.stored;
    if (out.pages === 1 && out.stored === 0) return stored;
  }
  throw new Error("the backlog never drained");
}

const ids = async (s: Setup) => (await listReviews(s.deps.kv, "org1", s.app.id)).map((r) => r.id);

Deno.test("first connection: a history of 25 pages is read over three runs, each review stored once", async () => {
  const s = await setup();
  try {
    publish(s.server, 25);
    assert.equal(await drain(s), 25, "stored once each");
    assert.equal((await ids(s)).length, 25);
    // Drained: the next run is back to the newest page only.
    const again = await fetchAppReviews(s.deps, s.app);
    assert.deepEqual([again.pages, again.stored], [1, 0]);
  } finally {
    await s.server.close();
    s.deps.kv.close();
  }
});

Deno.test("after a backoff: 14 new reviews over 10 pages; the next run reads the rest and stops at stored ones", async () => {
  const s = await setup();
  try {
    publish(s.server, 3);
    assert.equal(await drain(s), 3);
    publish(s.server, 17); // 14 new above the 3 stored
    const first = await fetchAppReviews(s.deps, s.app);
    assert.deepEqual([first.pages, first.stored], [MAX_PAGES, 10]);
    const next = await fetchAppReviews(s.deps, s.app);
    // the newest page (nothing new), offsets 10-13 (new), offset 14 (stored before): not the whole history
    assert.deepEqual([next.pages, next.stored], [6, 4]);
    assert.equal((await ids(s)).length, 17);
  } finally {
    await s.server.close();
    s.deps.kv.close();
  }
});

Deno.test("a page failing below new reviews: the next run goes on from that page", async () => {
  const s = await setup();
  try {
    publish(s.server, 2);
    await drain(s);
    publish(s.server, 8); // 6 new
    const ok = s.server.routes.get(at(3))!;
    s.server.routes.set(at(3), { status: 503, body: { errors: [{ detail: "Service Unavailable" }] } });
    const failed = await fetchAppReviews(s.deps, s.app);
    assert.match(failed.error!, /503/);
    assert.equal(failed.stored, 3);
    s.server.routes.set(at(3), ok);
    s.deps.clock.advance(15 * 60_000);
    const next = await fetchAppReviews(s.deps, s.app);
    assert.equal(next.error, null);
    assert.equal(next.stored, 3);
    assert.equal((await ids(s)).length, 8);
  } finally {
    await s.server.close();
    s.deps.kv.close();
  }
});

Deno.test("two runs at once on a first connection: every review stored once, the backlog still drains", async () => {
  const s = await setup();
  try {
    publish(s.server, 25);
    const [a, b] = await Promise.all([fetchAppReviews(s.deps, s.app), fetchAppReviews(s.deps, s.app)]);
    assert.equal(a.error ?? b.error, null);
    const rest = await drain(s);
    assert.equal(a.stored + b.stored + rest, 25, "no review counted as stored twice");
    assert.equal((await ids(s)).length, 25);
  } finally {
    await s.server.close();
    s.deps.kv.close();
  }
});

Deno.test("a history cut at 10 pages before backlogs were kept is read to its end", async () => {
  const s = await setup();
  try {
    publish(s.server, 14);
    // What the old code left: the newest 10 pages stored, no walk recorded.
    let cursor: string | null = null;
    for (let i = 0; i < 10; i++) {
      const p = await ascReviewsPage(
        s.deps.fetch,
        "https://api.appstoreconnect.apple.com",
        "123456789",
        "t",
        cursor,
      );
      await storeReviews(s.deps.kv, s.app, "app_store_connect", p.reviews);
      cursor = p.next;
    }
    assert.equal((await ids(s)).length, 10);
    assert.equal(await drain(s), 4);
    assert.deepEqual((await ids(s)).sort(), [...Array(14)].map((_, i) => `r${i + 1}`).sort());
  } finally {
    await s.server.close();
    s.deps.kv.close();
  }
});

Deno.test("a backlog cursor the store refuses three runs in a row: the walk starts over from the top", async () => {
  const s = await setup();
  try {
    publish(s.server, 12);
    await fetchAppReviews(s.deps, s.app); // 10 pages; the backlog starts at offset 10
    const ok = s.server.routes.get(at(10))!;
    s.server.routes.set(at(10), { status: 400, body: { errors: [{ detail: "cursor expired" }] } });
    for (let run = 0; run < 3; run++) {
      s.deps.clock.advance(24 * 3_600_000);
      assert.match((await fetchAppReviews(s.deps, s.app)).error!, /cursor expired/);
    }
    // Started over: pages from the top (offsets 0-9, nothing new) to the end; offset 10 now answers again.
    s.server.routes.set(at(10), ok);
    s.deps.clock.advance(24 * 3_600_000);
    const over = await fetchAppReviews(s.deps, s.app);
    assert.deepEqual([over.pages, over.stored], [MAX_PAGES, 0], "the newest page, then offsets 0-8 again");
    assert.equal(await drain(s), 2);
    assert.equal((await ids(s)).length, 12);
  } finally {
    await s.server.close();
    s.deps.kv.close();
  }
});
