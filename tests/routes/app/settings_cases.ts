import assert from "node:assert/strict";
import { orgUrl, peopleWorld } from "../../helpers/people.ts";
import { linkIn } from "../../helpers/mail.ts";
import { type FakeDns, TEST_ADMIN_TOKEN } from "../../helpers/deps.ts";
import { adminCall } from "../../helpers/tenant.ts";

const hit = () => ({
  events: [{
    event_type: "$crawl",
    event_id: crypto.randomUUID(),
    host: "acme.test",
    path: "/pricing",
    status: 200,
    user_agent: "Mozilla/5.0 (compatible; GPTBot/1.3; +https://openai.com/gptbot)",
    ip: "20.171.207.1",
  }],
});

Deno.test("app keys: a server key is shown once, works, and stops at once when revoked", async () => {
  const w = await peopleWorld();
  const c = await w.join("ann@example.com", "admin");
  const tpPath = orgUrl(w.org, `settings/touchpoints/${w.tenant.touchpoint}`);
  const page = await c.submit(`${tpPath}/keys`, { kind: "server", environment: "production" });
  const key = page.html.match(/<code id="new-key">(svc_sk_prod_[A-Za-z0-9_-]+)<\/code>/)?.[1];
  assert.ok(key, "the new key is on the page");
  assert.equal(
    page.html.split(key).length - 1,
    1,
    "shown once on the page (the snippet reads it from the environment)",
  );
  assert.match(page.html, /createCrawlReporter/);
  const again = await c.get(`${tpPath}?env=production`);
  assert.ok(!again.html.includes(key), "gone on reload");
  assert.match(again.html, new RegExp(key.slice(0, 16)), "listed by its prefix");

  const send = () =>
    w.app.request("/v1/behavior/server-events", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(hit()),
    });
  assert.equal((await send()).status, 202);
  const id = again.html.match(
    new RegExp(
      `keys/(key_[A-Za-z0-9]+)/revoke\\?env=production" class="inline" data-confirm="Revoke ${
        key.slice(0, 16)
      }`,
    ),
  )![1];
  const revoked = await c.submit(`${tpPath}/keys/${id}/revoke?env=production`, {});
  assert.match(revoked.html, /Key revoked/);
  const refused = await send();
  assert.equal(refused.status, 403, "refused right after revocation");
  assert.match((await refused.json()).error, /revoked/);
  w.close();
});

Deno.test("app roles: a member sees the lists but no key page (403 page), and key POSTs are refused", async () => {
  const w = await peopleWorld();
  const m = await w.join("mia@example.com", "member");
  const tpPath = orgUrl(w.org, `settings/touchpoints/${w.tenant.touchpoint}`);
  assert.equal((await m.get(orgUrl(w.org, "settings/touchpoints"))).status, 200);
  assert.equal((await m.get(orgUrl(w.org, "settings/members"))).status, 200);
  for (const path of [tpPath, orgUrl(w.org, "settings/read-keys")]) {
    const page = await m.get(path);
    assert.equal(page.status, 403, path);
    assert.match(page.html, /<h1>Not allowed<\/h1>/);
    assert.match(page.html, /needs the admin role/);
    assert.match(page.html, /aria-label="Settings"/, "the 403 page keeps the app's frame");
  }
  const post = await m.post(`${tpPath}/keys`, { kind: "server", environment: "production" });
  assert.equal(post.status, 403);
  const read = await m.post(orgUrl(w.org, "settings/read-keys"), { environment: "production" });
  assert.equal(read.status, 403);
  const keys = await w.app.request(`/admin/v1/orgs/${w.org}/keys`, {
    headers: { authorization: `Bearer ${w.deps.config.adminToken}` },
  });
  assert.equal((await keys.json()).keys.length, 5, "no key was made");
  // Not a member at all: the organization is not revealed.
  const other = await w.join("x@example.com", "member");
  assert.equal((await other.get(orgUrl("org_unknown", "settings/members"))).status, 404);
  w.close();
});

Deno.test("app read keys: professional plans create them (shown once); starter plans see why not", async () => {
  const w = await peopleWorld();
  const c = await w.join("ann@example.com", "owner");
  const page = await c.submit(orgUrl(w.org, "settings/read-keys"), {
    environment: "staging",
    expires: "2027-01-31",
  });
  const key = page.html.match(/<code id="new-key">(svc_rk_stg_[A-Za-z0-9_-]+)<\/code>/)?.[1];
  assert.ok(key);
  // the key's row: its environment and expiry as people write them, the date kept on one line
  assert.match(page.html, /<td>Staging<\/td>\s*<td class="nowrap">31\u00a0Jan\u00a02027<\/td>/);
  assert.ok(!(await c.get(orgUrl(w.org, "settings/read-keys"))).html.includes(key));
  const bad = await c.submit(orgUrl(w.org, "settings/read-keys"), { environment: "moon" });
  assert.match(bad.html, /environment: must be one of/);
  w.close();

  const s = await peopleWorld({ plan: "starter" });
  const o = await s.join("bo@example.com", "owner");
  const starter = await o.get(orgUrl(s.org, "settings/read-keys"));
  assert.match(starter.html, /Read keys come with the Professional and Enterprise plans/);
  assert.doesNotMatch(starter.html, /Create read key/);
  const refused = await o.submit(orgUrl(s.org, "settings/read-keys"), { environment: "production" });
  assert.match(refused.html, /read keys need the professional or enterprise plan/);
  s.close();
});

Deno.test("app members: an admin invites by mail; owners change roles; the last owner stays; removal ends access", async () => {
  const w = await peopleWorld();
  const owner = await w.join("olga@example.com", "owner");
  const admin = await w.join("adam@example.com", "admin");
  const members = orgUrl(w.org, "settings/members");
  const ownerInvite = await admin.submit(`${members}/invite`, { email: "x@example.com", role: "owner" });
  assert.match(ownerInvite.html, /only an owner invites owners/);
  const sent = await admin.submit(`${members}/invite`, { email: "Mia@Example.com", role: "member" });
  assert.match(sent.html, /Invitation sent to mia@example.com/);
  const mail = w.deps.mail.sent.at(-1)!;
  assert.equal(mail.to, "mia@example.com");
  const link = linkIn(mail.text)!;
  assert.match(link, /^http:\/\/localhost\/app\/invite\/[A-Za-z0-9_-]{43}$/);
  assert.match(sent.html, /Pending invitations/);

  const { AppClient } = await import("../../helpers/app_client.ts");
  const mia = new AppClient(w.app);
  await mia.submit(new URL(link).pathname, {
    password: "mias long password",
    password2: "mias long password",
  });
  assert.ok((await mia.get(members)).status === 200);

  const olgaId = (await owner.get(members)).html.match(
    /olga@example.com <span class="badge">you<\/span><\/td><td><form method="post" action="[^"]*\/members\/(usr_[A-Za-z0-9]+)\/role"/,
  )![1];
  const stepDown = await owner.submit(`${members}/${olgaId}/role`, { role: "admin" });
  assert.match(stepDown.html, /last owner cannot step down/);
  const leave = await owner.submit(`${members}/leave`, {});
  assert.match(leave.html, /last owner cannot leave/);

  const list = (await owner.get(members)).html;
  const miaId = list.match(
    /\/members\/(usr_[A-Za-z0-9]+)\/remove" class="inline" data-confirm="Remove mia@example.com/,
  )![1];
  await owner.submit(`${members}/${miaId}/remove`, {});
  const after = await mia.get(members);
  assert.notEqual(after.status, 200, "the removed member's session ends at once");
  w.close();
});

Deno.test("app verified domains: a TXT record through deps.dns verifies a domain", async () => {
  const w = await peopleWorld();
  const c = await w.join("ann@example.com", "admin");
  const path = orgUrl(w.org, "settings/domains");
  const added = await c.submit(path, { domain: "https://Shop.Example.com/" });
  assert.match(added.html, /shop.example.com added/);
  const name = added.html.match(/<code>(_svc-verification\.shop\.example\.com)<\/code>/)![1];
  const value = added.html.match(/<code>(svc-verification=[0-9a-f]{32})<\/code>/)![1];
  const notYet = await c.submit(`${path}/shop.example.com/verify`, {});
  assert.match(notYet.html, /no TXT record/);
  (w.deps.dns as FakeDns).txtRecords.set(name, ["v=spf1 -all", value]);
  const ok = await c.submit(`${path}/shop.example.com/verify`, {});
  assert.match(ok.html, /shop.example.com is verified/);
  const { isOnVerifiedDomain } = await import("../../../lib/tenancy/verified_domains.ts");
  assert.equal(await isOnVerifiedDomain(w.deps.kv, w.org, "www.shop.example.com"), true);
  assert.equal(await isOnVerifiedDomain(w.deps.kv, w.org, "example.com"), false);
  const bad = await c.submit(path, { domain: "not a domain" });
  assert.match(bad.html, /domain: must be a domain name/);
  w.close();
});

Deno.test("app touchpoint tabs: an app's missing environment says how to add it; a website's asks for a domain", async () => {
  const w = await peopleWorld();
  const ios = await adminCall(w.app, TEST_ADMIN_TOKEN, "POST", `/orgs/${w.org}/touchpoints`, {
    name: "Acme iOS",
    kind: "ios",
  });
  const c = await w.join("ann@example.com", "admin");
  const text = (html: string) => html.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");
  const app = text((await c.get(orgUrl(w.org, `settings/touchpoints/${ios.id}?env=staging`))).html);
  assert.ok(!/Give it a domain/.test(app), "an app is not told it needs a domain");
  assert.match(app, /This app has no staging environment yet\. Add staging below to make one/);
  assert.match(app, /Domain optional for apps/);
  const shop = await adminCall(w.app, TEST_ADMIN_TOKEN, "POST", `/orgs/${w.org}/touchpoints`, {
    name: "Acme shop",
    kind: "website",
    domain: "shop.acme.test",
  });
  const site = text((await c.get(orgUrl(w.org, `settings/touchpoints/${shop.id}?env=staging`))).html);
  assert.match(site, /This website has no staging environment yet\. Give it a domain to add it\./);
});

Deno.test("app touchpoint tabs: the 'shown only now' note is there only right after a key is made", async () => {
  const w = await peopleWorld();
  const c = await w.join("ann@example.com", "admin");
  const tpPath = orgUrl(w.org, `settings/touchpoints/${w.tenant.touchpoint}`);
  const note = /shown only now: copy it before|not shown again/;
  assert.ok(!note.test((await c.get(`${tpPath}?env=production`)).html), "no key made, no note");
  const made = await c.submit(`${tpPath}/keys`, { kind: "server", environment: "production" });
  assert.match(made.html, /id="new-key"/);
  assert.match(made.html, /The new key is shown only now: copy it before you/);
  assert.ok(!note.test((await c.get(`${tpPath}?env=production`)).html), "gone on reload, with the key");
});

Deno.test("app menu: members are not offered the read keys page, which only admins may open", async () => {
  const w = await peopleWorld();
  try {
    const member = await w.join("mia@example.com", "member");
    const admin = await w.join("ann@example.com", "admin");
    const page = (await member.open(orgUrl(w.org, "dashboards"))).html;
    assert.doesNotMatch(page, /settings\/read-keys/);
    assert.match(page, /settings\/members/);
    assert.equal((await member.open(orgUrl(w.org, "settings/read-keys"))).status, 403);
    assert.match((await admin.open(orgUrl(w.org, "dashboards"))).html, /settings\/read-keys/);
  } finally {
    w.close();
  }
});
