import assert from "node:assert/strict";
import { type FakeDns, testDeps } from "../../helpers/deps.ts";
import { addDomain, removeDomain, txtRecordOf, verifyDomain } from "../../../lib/tenancy/verified_domains.ts";
import { createApp, deleteApp, listReviews, stampOf, storeReviews } from "../../../lib/feedback/store.ts";
import { importReviews } from "../../../lib/feedback/import_reviews.ts";
import { decideOwnership, verifiedDomainsOf } from "../../../lib/feedback/ownership.ts";
import { keys } from "../../../lib/store/keys.ts";
import { loadCredential, saveCredential } from "../../../lib/feedback/credentials.ts";
import type { IncomingReview } from "../../../lib/feedback/types.ts";

const review = (over: Partial<IncomingReview> = {}): IncomingReview => ({
  id: "r1",
  rating: 4,
  title: null,
  text: "Nice app",
  language: null,
  country: null,
  version: "1.0",
  created_at: Date.UTC(2026, 10, 1),
  updated_at: null,
  reply: null,
  author: "Jane Q",
  ...over,
});

Deno.test("reviews: storing again writes nothing; an edit replaces; the stamp moves only on change", async () => {
  const deps = await testDeps();
  const app = await createApp(deps.kv, deps.clock, "o", {
    store: "app_store",
    store_id: "12345678",
    touchpoint: null,
  });
  assert.deepEqual(await storeReviews(deps.kv, app, "import", [review(), review({ id: "r2" })]), {
    stored: 2,
    updated: 0,
    unchanged: 0,
  });
  const s1 = await stampOf(deps.kv, "o", app.id);
  assert.deepEqual(await storeReviews(deps.kv, app, "import", [review()]), {
    stored: 0,
    updated: 0,
    unchanged: 1,
  });
  assert.equal(await stampOf(deps.kv, "o", app.id), s1);
  const edited = await storeReviews(deps.kv, app, "import", [
    review({ rating: 1, text: "Broke after 1.1", created_at: Date.UTC(2026, 10, 5) }),
  ]);
  assert.deepEqual(edited, { stored: 0, updated: 1, unchanged: 0 });
  assert.ok((await stampOf(deps.kv, "o", app.id)) > s1);
  const all = await listReviews(deps.kv, "o", app.id);
  assert.equal(all.length, 2);
  const r1 = all.find((r) => r.id === "r1")!;
  assert.equal(r1.rating, 1);
  assert.equal(r1.created_at, Date.UTC(2026, 10, 1), "an edit keeps the first date");
  assert.ok(!JSON.stringify(all).includes("Jane"));
  await assert.rejects(
    createApp(deps.kv, deps.clock, "o", { store: "app_store", store_id: "12345678", touchpoint: null }),
    /already added/,
  );
  await assert.rejects(
    createApp(deps.kv, deps.clock, "o", {
      store: "google_play",
      store_id: "not a package",
      touchpoint: null,
    }),
    /package name/,
  );
  // More reviews than one KV read or commit takes, at once.
  const many = Array.from({ length: 45 }, (_, i) => review({ id: `m${i}` }));
  assert.equal((await storeReviews(deps.kv, app, "import", many)).stored, 45);
  assert.equal((await storeReviews(deps.kv, app, "import", many)).unchanged, 45);
  await deleteApp(deps.kv, "o", app.id);
  assert.equal((await listReviews(deps.kv, "o", app.id)).length, 0);
  deps.kv.close();
});

Deno.test("import: NDJSON and the Play Console's UTF-16 CSV; bad lines named; a re-import stores nothing", async () => {
  const deps = await testDeps();
  const app = await createApp(deps.kv, deps.clock, "o", {
    store: "google_play",
    store_id: "com.acme.app",
    touchpoint: null,
  });
  const ndjson = [
    JSON.stringify({ reviewId: "a", score: 5, content: "Great", at: "2026-11-01T10:00:00Z", userName: "X" }),
    "{not json",
    JSON.stringify({ reviewId: "b", score: 9, content: "??", at: "2026-11-01T10:00:00Z" }),
    JSON.stringify({ reviewId: "c", score: 2, content: "Slow", at: "yesterday-ish" }),
    JSON.stringify({ score: 3, content: "no id, no problem", date: 1_793_000_000_000 }),
  ].join("\n");
  const r = await importReviews(deps.kv, app, new TextEncoder().encode(ndjson), "application/x-ndjson");
  assert.equal(r.imported, 2);
  assert.deepEqual(r.rejected.map((x) => x.line), [2, 3, 4]);
  assert.match(r.rejected[1].error, /rating: must be a whole number 1 to 5/);
  assert.match(r.rejected[2].error, /date: not a date/);
  const again = await importReviews(deps.kv, app, new TextEncoder().encode(ndjson), "application/x-ndjson");
  assert.equal(again.imported, 0);
  assert.equal(again.duplicates, 2);

  const csv =
    "Package Name,App Version Name,Reviewer Language,Review Submit Millis Since Epoch,Star Rating,Review Title,Review Text,Developer Reply Text,Review Link\n" +
    'com.acme.app,2.0,en,1793000000000,1,Bad,"Crashes, every ""time""\nsecond line",,https://play.google.com/apps/publish?account=1&reviewId=gp:xyz\n' +
    "com.acme.app,2.0,en,1793000000000,5\n";
  const utf16 = new Uint8Array([
    0xff,
    0xfe,
    ...new Uint8Array(new Uint16Array([...csv].map((c) => c.charCodeAt(0))).buffer),
  ]);
  const c = await importReviews(deps.kv, app, utf16, "text/csv");
  assert.equal(c.imported, 1);
  assert.deepEqual(c.rejected, [{ line: 4, error: "5 columns, the header has 9" }]);
  const gp = (await listReviews(deps.kv, "o", app.id)).find((x) => x.id === "gp:xyz")!;
  assert.equal(gp.text, 'Crashes, every "time"\nsecond line');
  assert.equal(gp.version, "2.0");
  deps.kv.close();
});

Deno.test("ownership: developer website on a verified domain; an unverified website or a suffix is not own", async () => {
  const listing = (w: string | null) => ({
    name: "A",
    developer: "D",
    developer_website: w,
    version: "1",
    fetched_at: 0,
  });
  assert.equal(decideOwnership(listing("https://www.acme.test/app"), [], ["acme.test"]).own, true);
  assert.equal(decideOwnership(listing("https://acme.test"), [], ["www.acme.test"]).own, true);
  assert.equal(decideOwnership(listing("https://support.acme.dev"), ["acme.test"], ["acme.dev"]).own, true);
  // The organization's own website, not verified: followed, and the reason says what to verify.
  const site = decideOwnership(listing("https://www.acme.test/app"), ["acme.test"], []);
  assert.equal(site.own, false);
  assert.match(site.reason, /website acme\.test, but acme\.test is not verified/);
  const no = decideOwnership(listing("https://rival.example"), ["acme.test"], ["acme.dev"]);
  assert.equal(no.own, false);
  assert.match(no.reason, /neither a site of the organization nor on a verified domain/);
  assert.equal(
    decideOwnership(listing("https://notacme.test"), [], ["acme.test"]).own,
    false,
    "a suffix is no subdomain",
  );
  // a public suffix stored before it was refused never makes anything own
  assert.equal(decideOwnership(listing("https://www.bigco.co.uk"), [], ["co.uk"]).own, false);
  assert.equal(decideOwnership(listing(null), [], ["acme.test"]).own, false);
  assert.equal(decideOwnership(null, [], ["acme.test"]).own, false);

  // The people module's own records: one domain proven by its TXT record, one still waiting for it.
  const deps = await testDeps();
  const proven = await addDomain(deps.kv, deps.clock, "o", "acme.dev");
  await addDomain(deps.kv, deps.clock, "o", "pending.dev");
  const { name, value } = txtRecordOf(proven);
  (deps.dns as FakeDns).txtRecords.set(name, [value]);
  assert.equal((await verifyDomain(deps.kv, deps.dns, deps.clock, "o", "acme.dev")).verified, true);
  assert.equal((await verifyDomain(deps.kv, deps.dns, deps.clock, "o", "pending.dev")).verified, false);
  assert.deepEqual(await verifiedDomainsOf(deps.kv, "o"), ["acme.dev"]);
  await removeDomain(deps.kv, "o", "acme.dev");
  assert.deepEqual(await verifiedDomainsOf(deps.kv, "o"), []);
  deps.kv.close();
});

Deno.test("credentials: sealed at rest, bound to their app, unreadable without the key", async () => {
  const deps = await testDeps();
  const key = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));
  const cred = {
    kind: "google_play" as const,
    client_email: "a@b.c",
    private_key: "SECRET-PEM",
    token_uri: "https://t",
  };
  await saveCredential(deps.kv, key, "o", "app_1", cred, 0);
  const raw = JSON.stringify((await deps.kv.get(keys.feedbackCredential("o", "app_1"))).value);
  assert.ok(!raw.includes("SECRET-PEM"));
  assert.deepEqual(await loadCredential(deps.kv, key, "o", "app_1"), cred);
  const other = btoa(String.fromCharCode(...new Uint8Array(32)));
  await assert.rejects(loadCredential(deps.kv, other, "o", "app_1"));
  await assert.rejects(saveCredential(deps.kv, "", "o", "app_1", cred, 0), /CREDENTIALS_KEY/);
  const copied = (await deps.kv.get(keys.feedbackCredential("o", "app_1"))).value;
  await deps.kv.set(keys.feedbackCredential("o", "app_2"), copied);
  await assert.rejects(
    loadCredential(deps.kv, key, "o", "app_2"),
    "a value copied to another app does not open",
  );
  deps.kv.close();
});
