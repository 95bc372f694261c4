import assert from "node:assert/strict";
import { FakeDns, testDeps } from "../../helpers/deps.ts";
import { DOC_MAX_BYTES, MetadataDocuments } from "../../../lib/oauth/metadata_document.ts";
import { OAuthError } from "../../../lib/oauth/errors.ts";
import { addressKind } from "../../../lib/crawl/address_guard.ts";

const URL_ID = "https://assistant.example/oauth/client.json";
const DOC = {
  client_id: URL_ID,
  client_name: "Example Assistant",
  redirect_uris: ["https://assistant.example/callback", "http://127.0.0.1/callback", "myapp://cb"],
  token_endpoint_auth_method: "none",
};

/** A fetch that serves one answer per URL and counts calls. */
function server(answer: (url: string) => Response | Promise<Response>) {
  const calls: { url: string; init?: RequestInit }[] = [];
  const fetch = ((input: string | URL | Request, init?: RequestInit) => {
    calls.push({ url: String(input), init });
    return Promise.resolve(answer(String(input)));
  }) as typeof globalThis.fetch;
  return { fetch, calls };
}

async function setup(
  answer: (url: string) => Response | Promise<Response>,
  opts: { loopback?: boolean; a?: string[] } = {},
) {
  const dns = new FakeDns();
  dns.a.set("assistant.example", opts.a ?? ["93.184.216.34"]);
  const srv = server(answer);
  const deps = await testDeps({ dns, fetch: srv.fetch });
  deps.config = { ...deps.config, oauthAllowLoopbackClients: opts.loopback ?? false };
  return { deps, docs: new MetadataDocuments(deps, 200), calls: srv.calls };
}

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof OAuthError);
    assert.equal(err.error, "invalid_client");
    return err.message;
  }
  throw new Error("expected a refusal");
}

Deno.test("client metadata document: fetched without redirects, checked, kept redirects filtered, cached", async () => {
  const { deps, docs, calls } = await setup(() =>
    Response.json(DOC, { headers: { "cache-control": "max-age=600" } })
  );
  const client = await docs.resolve(URL_ID);
  assert.equal(client.client_name, "Example Assistant");
  assert.equal(client.kind, "metadata");
  assert.deepEqual(client.redirect_uris, ["https://assistant.example/callback", "http://127.0.0.1/callback"]);
  assert.equal(calls[0].init?.redirect, "manual");
  await docs.resolve(URL_ID);
  assert.equal(calls.length, 1);
  deps.clock.advance(601_000);
  await docs.resolve(URL_ID);
  assert.equal(calls.length, 2);
  deps.kv.close();
});

Deno.test("client metadata document: the guard refuses private, loopback and link-local addresses", async () => {
  for (
    const a of [["10.1.2.3"], ["127.0.0.1"], ["169.254.169.254"], ["93.184.216.34", "192.168.1.1"], [
      "fd00::1",
    ], ["::ffff:10.0.0.1"]]
  ) {
    const { deps, docs, calls } = await setup(() => Response.json(DOC), { a });
    assert.match(
      await refusal(docs.resolve(URL_ID)),
      /resolves to a (loopback|private or reserved) address/,
      a.join(),
    );
    assert.equal(calls.length, 0, "nothing fetched");
    deps.kv.close();
  }
  const none = await setup(() => Response.json(DOC), { a: [] });
  assert.match(await refusal(none.docs.resolve(URL_ID)), /does not resolve/);
  none.deps.kv.close();
  const literal = await setup(() => Response.json(DOC));
  assert.match(await refusal(literal.docs.resolve("https://127.0.0.1:8443/client.json")), /loopback/);
  assert.match(await refusal(literal.docs.resolve("https://[::1]/client.json")), /loopback/);
  assert.match(await refusal(literal.docs.resolve("https://localhost/client.json")), /loopback/);
  assert.match(
    await refusal(literal.docs.resolve("https://169.254.169.254/latest/meta-data")),
    /private or reserved/,
  );
  assert.equal(literal.calls.length, 0);
  literal.deps.kv.close();
});

Deno.test("client metadata document: loopback is allowed only when the test option is on", async () => {
  const id = "https://127.0.0.1:8443/client.json";
  const { deps, docs } = await setup(() => Response.json({ ...DOC, client_id: id }), { loopback: true });
  assert.equal((await docs.resolve(id)).client_id, id);
  // still not private addresses
  assert.match(await refusal(docs.resolve("https://10.0.0.8/client.json")), /private or reserved/);
  deps.kv.close();
});

Deno.test("client metadata document: the document must match its URL and be small, public and answer in time", async () => {
  const cases: [string, () => Response | Promise<Response>, RegExp][] = [
    [
      "other id",
      () => Response.json({ ...DOC, client_id: "https://assistant.example/other" }),
      /client_id is not the URL/,
    ],
    ["secret", () => Response.json({ ...DOC, client_secret: "x" }), /client secret/],
    [
      "auth method",
      () => Response.json({ ...DOC, token_endpoint_auth_method: "client_secret_post" }),
      /not supported/,
    ],
    ["no redirects", () => Response.json({ ...DOC, redirect_uris: [] }), /redirect_uris/],
    [
      "only bad redirects",
      () => Response.json({ ...DOC, redirect_uris: ["http://example.com/cb"] }),
      /no usable redirect/,
    ],
    [
      "redirect",
      () => new Response(null, { status: 302, headers: { location: "http://10.0.0.1/" } }),
      /redirect \(302\)/,
    ],
    ["404", () => new Response("no", { status: 404 }), /answered 404/],
    ["not json", () => new Response("<html>"), /not JSON/],
    ["too large", () => Response.json({ ...DOC, pad: "x".repeat(DOC_MAX_BYTES) }), /larger than/],
    [
      "too large, streamed",
      () => new Response(new ReadableStream({ pull: (c) => c.enqueue(new Uint8Array(1024)) })),
      /larger than/,
    ],
    ["slow", () => new Promise<Response>(() => {}), /no answer within 0.1 s/],
  ];
  for (const [name, answer, want] of cases) {
    const dns = new FakeDns();
    dns.a.set("assistant.example", ["93.184.216.34"]);
    const deps = await testDeps({
      dns,
      fetch: ((_u: string, init?: RequestInit) =>
        name === "slow"
          ? new Promise((_res, rej) =>
            init?.signal?.addEventListener("abort", () =>
              rej(init.signal!.reason))
          )
          : Promise.resolve(answer())) as typeof fetch,
    });
    const docs = new MetadataDocuments(deps, 100);
    assert.match(await refusal(docs.resolve(URL_ID)), want, name);
    deps.kv.close();
  }
});

Deno.test("client metadata document: only https URLs with a path name a document", async () => {
  const { deps, docs, calls } = await setup(() => Response.json(DOC));
  for (
    const id of [
      "http://assistant.example/client.json",
      "https://assistant.example/",
      "https://u:p@assistant.example/c",
    ]
  ) {
    assert.match(await refusal(docs.resolve(id)), /https with a path/, id);
  }
  assert.equal(calls.length, 0);
  deps.kv.close();
});

Deno.test("address guard: kinds of addresses", () => {
  assert.equal(addressKind("93.184.216.34"), "public");
  assert.equal(addressKind("2606:2800:220:1:248:1893:25c8:1946"), "public");
  assert.equal(addressKind("127.0.0.5"), "loopback");
  assert.equal(addressKind("::1"), "loopback");
  for (
    const a of [
      "10.0.0.1",
      "172.20.1.1",
      "192.168.0.1",
      "100.64.0.1",
      "169.254.1.1",
      "0.0.0.0",
      "fe80::1",
      "fc00::1",
      "224.0.0.1",
      "64:ff9b::a00:1",
      "2002:a00:1::1",
      "nonsense",
    ]
  ) {
    assert.equal(addressKind(a), "not_public", a);
  }
});
