/**
 * Settings → Store credentials over HTTP: owners and admins enter and remove the store API credentials of
 * their own apps (sealed with CREDENTIALS_KEY, never shown back), members only see which apps have one,
 * followed apps take none, and every form needs the session's CSRF token.
 */
import assert from "node:assert/strict";
import { orgUrl, peopleWorld } from "../../helpers/people.ts";
import { adminCall } from "../../helpers/tenant.ts";
import { TEST_ADMIN_TOKEN } from "../../helpers/deps.ts";
import { keys } from "../../../lib/store/keys.ts";
import { loadCredential } from "../../../lib/feedback/credentials.ts";

const P8 =
  "-----BEGIN PRIVATE KEY-----\nMIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQg-P8-SECRET\n-----END PRIVATE KEY-----";
const SA_KEY =
  "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC-SA-SECRET\n-----END PRIVATE KEY-----\n";

async function world() {
  const w = await peopleWorld();
  const admin = (method: string, path: string, body?: unknown) =>
    adminCall(w.app, TEST_ADMIN_TOKEN, method, path, body);
  const ios = await admin("POST", `/orgs/${w.org}/touchpoints`, { name: "Acme iOS", kind: "ios" });
  const android = await admin("POST", `/orgs/${w.org}/touchpoints`, {
    name: "Acme Android",
    kind: "android",
  });
  const iosApp = await admin("POST", `/orgs/${w.org}/apps`, {
    store: "app_store",
    store_id: "123456789",
    touchpoint: ios.id,
    name: "Acme for iPhone",
  });
  const playApp = await admin("POST", `/orgs/${w.org}/apps`, {
    store: "google_play",
    store_id: "com.acme.app",
    touchpoint: android.id,
    name: "Acme for Android",
  });
  const rival = await admin("POST", `/orgs/${w.org}/apps`, {
    store: "google_play",
    store_id: "com.rival.app",
    name: "Rival",
  });
  return { w, iosApp, playApp, rival, page: orgUrl(w.org, "settings/store-credentials") };
}

Deno.test("store credentials page: an admin saves, replaces and removes them; they are sealed and never shown", async () => {
  const { w, iosApp, playApp, rival, page } = await world();
  try {
    const key = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));
    w.deps.config.credentialsKey = key;
    const c = await w.join("ann@example.com", "admin");
    let html = (await c.open(page)).html;
    assert.match(html, /Acme for iPhone/);
    assert.match(html, /Acme for Android/);
    assert.ok(!html.includes("Rival"), "followed apps are not listed");
    assert.equal(html.split("no credential").length - 1, 2);
    assert.match(html, /aria-current="page">Store credentials/, "the section is in the nav");

    // Bad input: the flash names the field; nothing is stored.
    html =
      (await c.submit(`${page}/${iosApp.id}`, { issuer_id: "iss", key_id: "K1", private_key: "nope" })).html;
    assert.match(html, /Private key \(the .p8 file(&#39;|')s text\): paste the whole key file/);
    html = (await c.submit(`${page}/${playApp.id}`, { service_account: "{not json" })).html;
    assert.match(html, /Service account key \(the JSON key file(&#39;|')s text\): paste the JSON key file/);
    html = (await c.submit(`${page}/${playApp.id}`, { service_account: '{"client_email":"x"}' })).html;
    assert.match(html, /client_email/);
    assert.equal((await w.deps.kv.get(keys.feedbackCredential(w.org, iosApp.id))).value, null);

    // Good input: stored sealed, readable with the key, never in a page.
    html =
      (await c.submit(`${page}/${iosApp.id}`, { issuer_id: "iss-1", key_id: "K1", private_key: P8 })).html;
    assert.match(html, /Credential of Acme for iPhone saved/);
    html = (await c.submit(`${page}/${playApp.id}`, {
      service_account: JSON.stringify({
        type: "service_account",
        client_email: "reader@acme.iam.gserviceaccount.com",
        private_key: SA_KEY,
        token_uri: "https://oauth2.googleapis.com/token",
      }),
    })).html;
    assert.match(html, /Credential of Acme for Android saved/);
    assert.equal(html.split("credential stored").length - 1, 2);
    assert.deepEqual(await loadCredential(w.deps.kv, key, w.org, iosApp.id), {
      kind: "app_store_connect",
      issuer_id: "iss-1",
      key_id: "K1",
      private_key: P8,
    });
    const play = await loadCredential(w.deps.kv, key, w.org, playApp.id);
    assert.equal(play?.kind === "google_play" && play.client_email, "reader@acme.iam.gserviceaccount.com");
    for (const secret of ["P8-SECRET", "SA-SECRET"]) {
      assert.ok(!c.seen.some((p) => p.includes(secret)), "never shown back");
      assert.ok(!w.deps.log.lines.some((l) => l.includes(secret)), "never logged");
      for await (const e of w.deps.kv.list({ prefix: [] })) {
        assert.ok(!JSON.stringify(e.value, (_, v) => typeof v === "bigint" ? String(v) : v).includes(secret));
      }
    }

    // Entered anew, a credential replaces the stored one.
    assert.match((await c.open(page)).html, />Replace</);
    await c.submit(`${page}/${iosApp.id}`, { issuer_id: "iss-1", key_id: "K2", private_key: P8 });
    const replaced = await loadCredential(w.deps.kv, key, w.org, iosApp.id);
    assert.equal(replaced?.kind === "app_store_connect" && replaced.key_id, "K2");

    // A followed app takes none, even posted by hand.
    html = (await c.submit(`${page}/${rival.id}`, { service_account: "{}" })).html;
    assert.match(html, /Credentials belong to your own apps/);

    // Remove.
    html = (await c.submit(`${page}/${iosApp.id}/remove`, {})).html;
    assert.match(html, /Credential of Acme for iPhone removed/);
    assert.equal(await loadCredential(w.deps.kv, key, w.org, iosApp.id), null);
    assert.notEqual(await loadCredential(w.deps.kv, key, w.org, playApp.id), null, "the other app's stays");

    // Without the session's CSRF token nothing changes.
    const forged = await c.post(`${page}/${playApp.id}/remove`, {}, { csrf: "forged" });
    assert.equal(forged.status, 403);
    assert.notEqual(await loadCredential(w.deps.kv, key, w.org, playApp.id), null);
  } finally {
    w.close();
  }
});

Deno.test("store credentials page: members see the state only; without CREDENTIALS_KEY nothing is stored", async () => {
  const { w, iosApp, page } = await world();
  try {
    const m = await w.join("mia@example.com", "member");
    const html = (await m.open(page)).html;
    assert.match(html, /Acme for iPhone/);
    assert.ok(!html.includes('name="private_key"'), "no form for a member");
    const refused = await m.post(`${page}/${iosApp.id}`, { issuer_id: "i", key_id: "k", private_key: P8 });
    assert.equal(refused.status, 403);

    const a = await w.join("ann@example.com", "owner");
    assert.match((await a.open(page)).html, /no CREDENTIALS_KEY/);
    const res = await a.submit(`${page}/${iosApp.id}`, { issuer_id: "i", key_id: "k", private_key: P8 });
    assert.match(res.html, /CREDENTIALS_KEY/);
    assert.equal((await w.deps.kv.get(keys.feedbackCredential(w.org, iosApp.id))).value, null);
  } finally {
    w.close();
  }
});

Deno.test("store credentials page: a refusal names the field by its label and keeps what was typed, never the key", async () => {
  const { w, iosApp, playApp, page } = await world();
  try {
    w.deps.config.credentialsKey = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));
    const c = await w.join("ann@example.com", "admin");
    const typed = { issuer_id: "69a6de7e-iss", key_id: "ABC123KEY", private_key: "-----BEGIN nope-SECRET" };
    const res = await c.submit(`${page}/${iosApp.id}`, typed);
    assert.equal(res.status, 422, "the form is shown again, not a redirect");
    const text = res.html.replace(/<[^>]+>/g, " ").replaceAll("&#39;", "'");
    assert.match(text, /Private key \(the \.p8 file's text\): paste the whole key file/);
    assert.ok(!/private_key|issuer_id|key_id/.test(text), "no raw field name in what the page says");
    assert.match(res.html, /value="69a6de7e-iss"/);
    assert.match(res.html, /value="ABC123KEY"/);
    assert.ok(!res.html.includes("nope-SECRET"), "the private key is not shown back");
    assert.match(text, /paste it again: a key is never shown back/);

    // an empty Issuer ID (posted by hand) is named by its label too, and the key ID kept
    const empty = await c.submit(`${page}/${iosApp.id}`, {
      issuer_id: "",
      key_id: "ABC123KEY",
      private_key: P8,
    });
    assert.equal(empty.status, 422);
    assert.match(empty.html, /Issuer ID: missing/);
    assert.match(empty.html, /value="ABC123KEY"/);
    assert.ok(!empty.html.includes("P8-SECRET"));

    // a service account without its email: named by the form's label, the key file not shown back
    const sa = await c.submit(`${page}/${playApp.id}`, {
      service_account: JSON.stringify({ private_key: SA_KEY }),
    });
    assert.equal(sa.status, 422);
    assert.match(
      sa.html,
      /Service account key \(the JSON key file(&#39;|')s text\): .*client_email is missing/,
    );
    assert.ok(!sa.html.includes("SA-SECRET"));
    assert.equal((await w.deps.kv.get(keys.feedbackCredential(w.org, iosApp.id))).value, null);
  } finally {
    w.close();
  }
});
