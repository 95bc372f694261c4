/**
 * Answer rule 3 through the HTTP interfaces on a real KV file: an app is the organization's own only through
 * a domain the organization has proven (a verified domain). Claiming another company's domain as a website
 * and sending one event with its Origin (any server can send that header) makes nothing "own"; a public
 * suffix ("com", "co.uk", "github.io") is refused as a website or verified domain with a 422 naming it.
 */
import assert from "node:assert/strict";
import { type FakeDns, TEST_ADMIN_TOKEN } from "../helpers/deps.ts";
import { openSite } from "../helpers/site.ts";
import { event } from "../helpers/events.ts";
import { AppClient } from "../helpers/app_client.ts";
import { setListing } from "../../lib/feedback/store.ts";

const NOW = Date.parse("2026-11-20T10:00:00Z");
const PASSWORD = "correct horse battery staple";

async function world() {
  const s = await openSite({ now: NOW });
  const { app, t, admin } = s;
  /** An app with its listing naming `website` and one 1-star review imported through the admin API. */
  const appWith = async (name: string, storeId: string, website: string, text: string) => {
    const a = await admin("POST", "/apps", { store: "app_store", store_id: storeId, name });
    await setListing(s.kv, t.org, a.id, {
      name,
      developer: name,
      developer_website: website,
      version: "1.0",
      fetched_at: NOW,
    });
    await s.importReviews(a.id, [{ id: `${storeId}-1`, rating: 1, text, date: "2026-11-19T09:00:00Z" }]);
    return a;
  };
  const send = (key: string, origin: string) =>
    s.ingest([
      event({
        properties: { path: "/", url: `${origin}/` },
        screen: "/",
        device_time: "2026-11-20T09:59:00.000Z",
      }),
    ], { key, origin });
  const reviews = async (app_: string) => {
    const res = await s.ask("feedback_reviews", { app: app_, period: "last_7_days" });
    return { status: res.status, body: await res.json() };
  };
  /** An admin of the organization, signed in to the app through an invitation. */
  const signedInAdmin = async () => {
    const inv = await admin("POST", "/invitations", { email: "ann@acme.test", role: "admin" });
    const c = new AppClient(app);
    const page = await c.submit(new URL(inv.invitation_url).pathname, {
      password: PASSWORD,
      password2: PASSWORD,
    });
    assert.equal(page.status, 200);
    return c;
  };
  return { deps: s.deps, app, t, admin, appWith, send, reviews, signedInAdmin, close: s.close };
}

Deno.test("own apps: a claimed website with a forged event does not make another company's app own", async () => {
  const w = await world();
  try {
    const big = await w.appWith(
      "BigCo",
      "987654321",
      "https://www.bigco.test",
      "BigCo lost my photos, very sad",
    );
    assert.equal((await w.reviews(big.id)).status, 422);
    // The organization claims bigco.test as a website and sends one event with its Origin header.
    const tp = await w.admin("POST", "/touchpoints", {
      name: "not ours",
      kind: "website",
      domain: "bigco.test",
    });
    const key =
      (await w.admin("POST", "/keys", { kind: "public", environment: "production", touchpoint: tp.id }))
        .key;
    assert.equal((await w.send(key, "https://bigco.test")).status, 204);
    w.deps.clock.set(NOW + 10_000);
    const after = await w.reviews(big.id);
    assert.equal(after.status, 422, JSON.stringify(after.body));
    assert.match(after.body.error, /not verified/);
    assert.ok(!JSON.stringify(after.body).includes("lost my photos"), "the review text is never quoted");
  } finally {
    await w.close();
  }
});

Deno.test("own apps: the organization's own site counts once its domain is verified", async () => {
  const w = await world();
  try {
    const acme = await w.appWith("Acme", "123456789", "https://www.acme.test/app", "Acme crashes on start");
    assert.equal((await w.send(w.t.publicKey, "https://acme.test")).status, 204);
    w.deps.clock.set(NOW + 10_000);
    const unproven = await w.reviews(acme.id);
    assert.equal(unproven.status, 422, "a sending site alone proves nothing");
    assert.match(unproven.body.error, /acme\.test.*not verified.*Verified domains/);

    const c = await w.signedInAdmin();
    const path = `/app/o/${w.t.org}/settings/domains`;
    const added = await c.submit(path, { domain: "acme.test" });
    const value = added.html.match(/<code>(svc-verification=[0-9a-f]{32})<\/code>/)![1];
    (w.deps.dns as FakeDns).txtRecords.set("_svc-verification.acme.test", [value]);
    assert.match((await c.submit(`${path}/acme.test/verify`, {})).html, /acme.test is verified/);
    const own = await w.reviews(acme.id);
    assert.equal(own.status, 200, JSON.stringify(own.body));
    assert.equal(own.body.reviews[0].text, "Acme crashes on start");
  } finally {
    await w.close();
  }
});

Deno.test("own apps: a public suffix is refused as a website or verified domain, with a 422 naming it", async () => {
  const w = await world();
  try {
    const create = (domain: string) =>
      w.app.request(`/admin/v1/orgs/${w.t.org}/touchpoints`, {
        method: "POST",
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ name: `claim ${domain}`, kind: "website", domain }),
      });
    for (const domain of ["com", "co.uk", "github.io", "COM.AU", "pages.dev"]) {
      const res = await create(domain);
      const body = await res.json();
      assert.equal(res.status, 422, `${domain}: ${JSON.stringify(body)}`);
      assert.match(body.error, /domain/);
      assert.match(body.error, /public suffix/, body.error);
    }
    const patch = await w.app.request(`/admin/v1/orgs/${w.t.org}/touchpoints/${w.t.touchpoint}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ environments: { staging: { domain: "co.uk" } } }),
    });
    assert.equal(patch.status, 422);
    // a registrable name under those suffixes is fine
    for (const domain of ["shop.example.com", "acme.co.uk", "acme.github.io"]) {
      assert.equal((await create(domain)).status, 201, domain);
    }
    const c = await w.signedInAdmin();
    for (const domain of ["co.uk", "github.io"]) {
      const page = await c.submit(`/app/o/${w.t.org}/settings/domains`, { domain });
      assert.match(page.html, /domain: .*public suffix/);
      assert.ok(!page.html.includes(`_svc-verification.${domain}<`), "no TXT record offered for a suffix");
    }
  } finally {
    await w.close();
  }
});

Deno.test("own apps: a bare 'com' website does not make every .com developer's app own", async () => {
  const w = await world();
  try {
    const big = await w.appWith(
      "BigCo",
      "987654322",
      "https://www.bigco.com",
      "BigCo lost my photos, very sad",
    );
    const res = await w.app.request(`/admin/v1/orgs/${w.t.org}/touchpoints`, {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "every .com", kind: "website", domain: "com" }),
    });
    assert.equal(res.status, 422);
    assert.equal((await w.reviews(big.id)).status, 422);
  } finally {
    await w.close();
  }
});
