import assert from "node:assert/strict";
import { exportPKCS8, exportSPKI, generateKeyPair, importSPKI, jwtVerify } from "jose";
import { testDeps } from "../../helpers/deps.ts";
import { createApp, getStatus, listReviews, setListing } from "../../../lib/feedback/store.ts";
import { saveCredential } from "../../../lib/feedback/credentials.ts";
import { fetchAppReviews, fetchDueReviews, refreshListing } from "../../../lib/feedback/fetch_job.ts";
import { getListing } from "../../../lib/feedback/store.ts";
import { startStoreServer } from "./store_server.ts";

const KEY = btoa(String.fromCharCode(...new Uint8Array(32).fill(7)));

async function setup() {
  const server = startStoreServer();
  const deps = await testDeps({ fetch: server.fetch });
  deps.config.credentialsKey = KEY;
  return { server, deps };
}

const ascReview = (id: string, rating: number, body: string, created: string, response?: string) => ({
  type: "customerReviews",
  id,
  attributes: {
    rating,
    title: `t ${id}`,
    body,
    reviewerNickname: `nick-${id}`,
    createdDate: created,
    territory: "USA",
  },
  relationships: { response: { data: response ? { type: "customerReviewResponses", id: response } : null } },
});

Deno.test("App Store Connect: ES256 JWT, two pages, developer responses joined, author never stored in clear", async () => {
  const { server, deps } = await setup();
  try {
    const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
    const app = await createApp(deps.kv, deps.clock, "org1", {
      store: "app_store",
      store_id: "123456789",
      touchpoint: "tp_ios",
    });
    await saveCredential(deps.kv, KEY, "org1", app.id, {
      kind: "app_store_connect",
      issuer_id: "issuer-1",
      key_id: "KEY123",
      private_key: await exportPKCS8(privateKey),
    }, deps.clock.now());
    const first =
      "api.appstoreconnect.apple.com/v1/apps/123456789/customerReviews?limit=200&sort=-createdDate&include=response";
    const next =
      "https://api.appstoreconnect.apple.com/v1/apps/123456789/customerReviews?cursor=abc&limit=200";
    server.routes.set(first, {
      body: {
        data: [
          ascReview("r1", 1, "Crashes on launch, mail me at jo@example.com", "2026-11-19T10:00:00Z", "resp1"),
        ],
        included: [{
          type: "customerReviewResponses",
          id: "resp1",
          attributes: { responseBody: "Fixed in 2.1", lastModifiedDate: "2026-11-19T12:00:00Z" },
        }],
        links: { self: "x", next },
      },
    });
    server.routes.set(
      "api.appstoreconnect.apple.com/v1/apps/123456789/customerReviews?cursor=abc&limit=200",
      {
        body: { data: [ascReview("r2", 5, "Love it", "2026-11-18T10:00:00Z")], links: {} },
      },
    );
    const out = await fetchAppReviews(deps, app);
    assert.equal(out.error, null);
    assert.equal(out.source, "app_store_connect");
    assert.equal(out.pages, 2);
    assert.equal(out.stored, 2);
    const auth = server.seen[0].headers.get("authorization")!.slice(7);
    const { payload, protectedHeader } = await jwtVerify(
      auth,
      await importSPKI(await exportSPKI(publicKey), "ES256"),
      {
        audience: "appstoreconnect-v1",
        issuer: "issuer-1",
        currentDate: new Date(deps.clock.now()),
      },
    );
    assert.equal(protectedHeader.kid, "KEY123");
    assert.ok(payload.exp! - payload.iat! <= 20 * 60, "Apple allows tokens of at most 20 minutes");
    const stored = await listReviews(deps.kv, "org1", app.id);
    const r1 = stored.find((r) => r.id === "r1")!;
    assert.equal(r1.reply?.text, "Fixed in 2.1");
    assert.equal(r1.country, "US");
    assert.ok(!JSON.stringify(stored).includes("nick-r1"), "the author is kept only as a hash");
    // A second run finds nothing new on the first page and stops there.
    const again = await fetchAppReviews(deps, app);
    assert.equal(again.stored, 0);
    assert.equal(again.pages, 1);
    assert.equal((await listReviews(deps.kv, "org1", app.id)).length, 2);
  } finally {
    await server.close();
    deps.kv.close();
  }
});

Deno.test("Google Play API: RS256 service-account JWT exchanged for a token, token pagination, edit replaces", async () => {
  const { server, deps } = await setup();
  try {
    const { privateKey, publicKey } = await generateKeyPair("RS256", { extractable: true });
    const app = await createApp(deps.kv, deps.clock, "org1", {
      store: "google_play",
      store_id: "com.acme.app",
      touchpoint: "tp_android",
    });
    await saveCredential(deps.kv, KEY, "org1", app.id, {
      kind: "google_play",
      client_email: "svc@acme.iam.gserviceaccount.com",
      private_key: await exportPKCS8(privateKey),
      token_uri: "https://oauth2.googleapis.com/token",
    }, deps.clock.now());
    server.routes.set("oauth2.googleapis.com/token", {
      body: { access_token: "ya29.token", expires_in: 3600 },
    });
    const review = (id: string, stars: number, text: string, secs: number) => ({
      reviewId: id,
      authorName: "Some Person",
      comments: [{
        userComment: {
          text,
          starRating: stars,
          lastModified: { seconds: String(secs) },
          reviewerLanguage: "en_US",
          appVersionName: "3.2.0",
        },
      }],
    });
    const base =
      "androidpublisher.googleapis.com/androidpublisher/v3/applications/com.acme.app/reviews?maxResults=100";
    server.routes.set(base, {
      body: {
        reviews: [review("g1", 2, "Title\tSync loses my notes", 1_790_000_000)],
        tokenPagination: { nextPageToken: "p2" },
      },
    });
    server.routes.set(`${base}&token=p2`, { body: { reviews: [review("g2", 4, "Nice", 1_789_000_000)] } });
    const out = await fetchAppReviews(deps, app);
    assert.equal(out.error, null, String(out.error));
    assert.equal(out.stored, 2);
    const token = server.seen.find((s) => s.url.startsWith("oauth2"))!;
    const assertion = new URLSearchParams(token.body).get("assertion")!;
    const { payload } = await jwtVerify(assertion, await importSPKI(await exportSPKI(publicKey), "RS256"), {
      audience: "https://oauth2.googleapis.com/token",
      currentDate: new Date(deps.clock.now()),
    });
    assert.equal(payload.scope, "https://www.googleapis.com/auth/androidpublisher");
    assert.equal(
      server.seen.find((s) => s.url.startsWith("androidpublisher"))!.headers.get("authorization"),
      "Bearer ya29.token",
    );
    const g1 = (await listReviews(deps.kv, "org1", app.id)).find((r) => r.id === "g1")!;
    assert.equal(g1.title, "Title");
    assert.equal(g1.text, "Sync loses my notes");
    assert.equal(g1.version, "3.2.0");
    // The user edits the review: same id, new text and rating; the stored review is replaced, not added.
    server.routes.set(base, {
      body: { reviews: [review("g1", 5, "Title\tSync works again", 1_790_100_000)] },
    });
    const edit = await fetchAppReviews(deps, app);
    assert.equal(edit.updated, 1);
    const all = await listReviews(deps.kv, "org1", app.id);
    assert.equal(all.length, 2);
    const g1b = all.find((r) => r.id === "g1")!;
    assert.equal(g1b.rating, 5);
    assert.equal(g1b.text, "Sync works again");
  } finally {
    await server.close();
    deps.kv.close();
  }
});

Deno.test("App Store feed: pages until nothing new; an error is recorded with backoff; Retry-After honoured", async () => {
  const { server, deps } = await setup();
  try {
    const app = await createApp(deps.kv, deps.clock, "org1", {
      store: "app_store",
      store_id: "555000111",
      touchpoint: null,
    });
    const entry = (id: string, rating: number, text: string) => ({
      id: { label: id },
      title: { label: `title ${id}` },
      content: { label: text, attributes: { type: "text" } },
      author: { name: { label: `author ${id}` } },
      updated: { label: "2026-11-18T08:00:00-07:00" },
      "im:rating": { label: String(rating) },
      "im:version": { label: "4.1" },
    });
    const page = (n: number) =>
      `itunes.apple.com/us/rss/customerreviews/page=${n}/id=555000111/sortby=mostrecent/json`;
    server.routes.set(page(1), {
      body: { feed: { entry: [entry("f1", 1, "Too many ads"), entry("f2", 5, "Great")] } },
    });
    server.routes.set(page(2), { body: { feed: { entry: entry("f3", 3, "Okay") } } }); // one entry: an object
    server.routes.set(page(3), { body: { feed: {} } });
    const out = await fetchAppReviews(deps, app);
    assert.equal(out.error, null);
    assert.equal(out.stored, 3);
    assert.equal(out.pages, 3);
    let status = await getStatus(deps.kv, "org1", app.id);
    assert.equal(status.last_success_at, deps.clock.now());

    server.routes.set(page(1), { status: 503, body: { errors: [{ detail: "Service Unavailable" }] } });
    const failed = await fetchAppReviews(deps, app);
    assert.match(failed.error!, /HTTP 503/);
    status = await getStatus(deps.kv, "org1", app.id);
    assert.equal(status.failures, 1);
    assert.equal(status.next_attempt_at, deps.clock.now() + 15 * 60_000);
    assert.match(status.last_error!, /503/);
    // While backing off, the cron leaves the app alone.
    const before = server.seen.length;
    assert.equal(await fetchDueReviews(deps), 0);
    assert.equal(server.seen.length, before);
    deps.clock.advance(15 * 60_000);
    server.routes.set(page(1), { status: 429, body: "slow down", headers: { "retry-after": "7200" } });
    assert.equal(await fetchDueReviews(deps), 1);
    status = await getStatus(deps.kv, "org1", app.id);
    assert.equal(status.failures, 2);
    assert.equal(status.next_attempt_at, deps.clock.now() + 7200_000, "Retry-After beats the 30 min backoff");
    assert.equal((await listReviews(deps.kv, "org1", app.id)).length, 3, "a failure loses nothing");
  } finally {
    await server.close();
    deps.kv.close();
  }
});

Deno.test("listings: App Store lookup and the Google Play page give developer website; a 404 is recorded", async () => {
  const { server, deps } = await setup();
  try {
    const ios = await createApp(deps.kv, deps.clock, "org1", {
      store: "app_store",
      store_id: "123456789",
      touchpoint: "tp",
    });
    server.routes.set("itunes.apple.com/lookup?id=123456789&country=us", {
      body: {
        resultCount: 1,
        results: [{
          trackName: "Acme",
          sellerName: "Acme Inc.",
          sellerUrl: "https://www.acme.test/app",
          version: "2.1",
        }],
      },
    });
    assert.equal(await refreshListing(deps, ios), null);
    const l = (await getListing(deps.kv, "org1", ios.id))!;
    assert.deepEqual([l.name, l.developer, l.developer_website, l.version], [
      "Acme",
      "Acme Inc.",
      "https://www.acme.test/app",
      "2.1",
    ]);

    const play = await createApp(deps.kv, deps.clock, "org1", {
      store: "google_play",
      store_id: "com.rival.app",
      touchpoint: null,
    });
    const html =
      `<html><script type="application/ld+json">{"@type":"SoftwareApplication","name":"Rival","author":{"@type":"Person","name":"Rival GmbH"}}</script>
      <div><a class="x" href="https://www.google.com/url?q=https://rival.example/&amp;sa=D" aria-label="Website, opens in a new tab"><span>Website</span></a></div></html>`;
    server.routes.set("play.google.com/store/apps/details?id=com.rival.app&hl=en&gl=us", {
      body: html,
      headers: { "content-type": "text/html" },
    });
    assert.equal(await refreshListing(deps, play), null);
    const p = (await getListing(deps.kv, "org1", play.id))!;
    assert.equal(p.name, "Rival");
    assert.equal(p.developer, "Rival GmbH");
    assert.equal(p.developer_website, "https://rival.example/");

    server.routes.set("itunes.apple.com/lookup?id=123456789&country=us", {
      body: { resultCount: 0, results: [] },
    });
    assert.match((await refreshListing(deps, ios))!, /no app 123456789/);
    assert.equal((await getListing(deps.kv, "org1", ios.id))!.name, "Acme", "the last good listing is kept");
    assert.match((await getStatus(deps.kv, "org1", ios.id)).listing_error!, /no app/);
    await setListing(deps.kv, "org1", ios.id, l);
  } finally {
    await server.close();
    deps.kv.close();
  }
});

Deno.test("sources: Google Play without a service account is import only; a bad key is a clear error", async () => {
  const { server, deps } = await setup();
  try {
    const followed = await createApp(deps.kv, deps.clock, "org1", {
      store: "google_play",
      store_id: "com.other.app",
      touchpoint: null,
    });
    const out = await fetchAppReviews(deps, followed);
    assert.equal(out.source, null);
    assert.equal(server.seen.length, 0);
    const own = await createApp(deps.kv, deps.clock, "org1", {
      store: "app_store",
      store_id: "987654321",
      touchpoint: "tp",
    });
    await saveCredential(deps.kv, KEY, "org1", own.id, {
      kind: "app_store_connect",
      issuer_id: "i",
      key_id: "k",
      private_key: "-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----",
    }, 0);
    const bad = await fetchAppReviews(deps, own);
    assert.match(bad.error!, /not a PKCS#8 ES256 key/);
  } finally {
    await server.close();
    deps.kv.close();
  }
});
