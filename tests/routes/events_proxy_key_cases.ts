/**
 * A first-party proxy vouches for the visitor's address with the environment's server key (X-Forwarded-Key,
 * X-Visitor-Address): the service, with TRUST_PROXY off as on Deno Deploy, places the visitor by it. Without the
 * key every visitor has the proxy's address, and a client's own headers are ignored. The documented example
 * proxy (sdk/web/examples/deno_proxy.ts, the visitor's socket address given as Deno.serve gives it) in front of
 * the real app served on loopback, a real KV file, the test geo database.
 */
import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../helpers/deps.ts";
import { createTenant } from "../helpers/tenant.ts";
import { event } from "../helpers/events.ts";
import { eventsProxy } from "../../sdk/web/examples/deno_proxy.ts";
import { keys } from "../../lib/store/keys.ts";
import { unpackEvent } from "../../lib/store/event_codec.ts";

const BERLIN = "81.2.69.7"; // DE in the test geo database
const LONDON = "2.125.160.216"; // GB

async function world() {
  const dir = await Deno.makeTempDir();
  const deps = await testDeps({ kv: await Deno.openKv(`${dir}/kv.sqlite3`) });
  assert.equal(deps.config.trustProxy, false);
  deps.clock.set(Date.parse("2026-11-20T12:00:00Z"));
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN);
  const other = await createTenant(app, TEST_ADMIN_TOKEN, { domain: "other.test" });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (req, info) => app.fetch(req, info),
  );
  const service = `http://127.0.0.1:${server.addr.port}`;
  const body = (anon: string) =>
    JSON.stringify({
      api_key: t.publicKey,
      batch: [event({ event_id: crypto.randomUUID(), anonymous_id: anon })],
    });
  /** The browser at `visitor` posts to the site's proxy. */
  const viaProxy = async (proxy: ReturnType<typeof eventsProxy>, anon: string, visitor: string) => {
    const r = await proxy.request("/v1/behavior/events", {
      method: "POST",
      headers: { "content-type": "application/json", origin: "https://acme.test" },
      body: body(anon),
    }, { remoteAddr: { hostname: visitor } });
    return { status: r.status, text: await r.text() };
  };
  /** A client straight to the service, with headers of its own choosing. */
  const direct = async (anon: string, headers: Record<string, string>) => {
    const r = await fetch(`${service}/v1/behavior/events`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: "https://acme.test", ...headers },
      body: body(anon),
    });
    return { status: r.status, text: await r.text() };
  };
  const countryOf = async (anon: string) => {
    for await (const e of deps.kv.list({ prefix: keys.rawEvents(t.org, "production") })) {
      const x = unpackEvent(e.value);
      if (x.anonymous_id === anon) return x.geo.country;
    }
    return "not stored";
  };
  const done = async () => {
    await server.shutdown();
    deps.kv.close();
  };
  return { t, other, service, viaProxy, direct, countryOf, done };
}

Deno.test("first-party proxy with the server key: the visitor's country; without it, the proxy's address", async () => {
  const w = await world();
  try {
    const keyed = eventsProxy(w.service, w.t.serverKey);
    assert.equal((await w.viaProxy(keyed, "berlin-keyed", BERLIN)).status, 204);
    assert.equal(await w.countryOf("berlin-keyed"), "DE");
    const plain = eventsProxy(w.service);
    assert.equal((await w.viaProxy(plain, "berlin-plain", BERLIN)).status, 204);
    assert.equal(await w.countryOf("berlin-plain"), null, "the proxy's own (loopback) address: no country");
  } finally {
    await w.done();
  }
});

Deno.test("a client's own address headers are ignored without the key; a wrong key is refused by name", async () => {
  const w = await world();
  try {
    const forged = await w.direct("forged", { "x-visitor-address": LONDON, "x-forwarded-for": LONDON });
    assert.equal(forged.status, 204);
    assert.equal(await w.countryOf("forged"), null);
    const unknown = await w.direct("unknown", {
      "x-forwarded-key": "svc_sk_nope",
      "x-visitor-address": LONDON,
    });
    assert.equal(unknown.status, 401, unknown.text);
    assert.match(JSON.parse(unknown.text).error, /^X-Forwarded-Key: /);
    const publicKey = await w.direct("public", {
      "x-forwarded-key": w.t.publicKey,
      "x-visitor-address": LONDON,
    });
    assert.equal(publicKey.status, 401, publicKey.text);
    assert.match(JSON.parse(publicKey.text).error, /^X-Forwarded-Key: only the environment's server key/);
    assert.doesNotMatch(publicKey.text, /crawler hits/);
    const elsewhere = await w.direct("elsewhere", {
      "x-forwarded-key": w.other.serverKey,
      "x-visitor-address": LONDON,
    });
    assert.equal(elsewhere.status, 403, elsewhere.text);
    assert.match(JSON.parse(elsewhere.text).error, /own touchpoint and environment/);
    const noAddress = await w.direct("no-address", { "x-forwarded-key": w.t.serverKey });
    assert.equal(noAddress.status, 422, noAddress.text);
    assert.match(JSON.parse(noAddress.text).error, /^X-Visitor-Address: /);
    for (const anon of ["unknown", "public", "elsewhere", "no-address"]) {
      assert.equal(await w.countryOf(anon), "not stored");
    }
    const vouched = await w.direct("vouched", {
      "x-forwarded-key": w.t.serverKey,
      "x-visitor-address": LONDON,
    });
    assert.equal(vouched.status, 204, vouched.text);
    assert.equal(await w.countryOf("vouched"), "GB");
  } finally {
    await w.done();
  }
});
