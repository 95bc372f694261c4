/**
 * Settings → Connected assistants with real accounts: a person's own list and Disconnect; an organization's
 * list (owners see every member's connection and can take any off their organization; others see their own);
 * CSRF and foreign connections refused.
 */
import assert from "node:assert/strict";
import { connect, oauthWorld, type World } from "../../helpers/oauth.ts";
import { orgUrl } from "../../helpers/people.ts";
import { CHECK_CACHE_MS } from "../../../lib/oauth/state.ts";

function listTools(w: World, token: string) {
  return w.app.request("/mcp", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
  });
}

/** The ids of the connections whose Disconnect buttons a page shows. */
const buttons = (html: string) =>
  [...html.matchAll(/action="[^"]*\/(gr_[A-Za-z0-9_-]+)\/disconnect"/g)].map((m) => m[1]);

Deno.test("connected assistants: a person's list shows each connection; Disconnect ends it at once", async () => {
  const w = await oauthWorld();
  const ann = w.people.client("ann");
  const empty = await ann.get("/app/assistants");
  assert.equal(empty.status, 200);
  assert.match(empty.html, /You have not connected an assistant/);

  const { tokens } = await connect(w, "ann", [w.acme, w.beta], "staging");
  const before = await ann.get("/app/assistants");
  for (
    const s of ["<h3", "Test Assistant", "127.0.0.1:7777", "Acme, Beta", "staging", "Last used</dt><dd>never"]
  ) {
    assert.ok(before.html.includes(s), s);
  }
  assert.equal((await listTools(w, tokens.access_token)).status, 200);
  const after = await ann.get("/app/assistants");
  assert.match(after.html, /Last used<\/dt><dd>\d{4}-\d\d-\d\d \d\d:\d\d UTC/);
  const [id] = buttons(after.html);
  assert.ok(id, after.html);

  // Without the session's CSRF token nothing happens.
  assert.equal((await ann.post(`/app/assistants/${id}/disconnect`, {}, { csrf: null })).status, 403);
  assert.equal((await listTools(w, tokens.access_token)).status, 200);
  // Bob cannot disconnect Ann's connection from his own list.
  const bob = w.people.client("bob");
  await bob.get("/app/assistants");
  const foreign = await bob.submit(`/app/assistants/${id}/disconnect`, {});
  assert.match(foreign.html, /no such connection of yours/);

  const done = await ann.submit(`/app/assistants/${id}/disconnect`, {});
  assert.match(done.html, /Disconnected: the assistant can no longer read anything/);
  assert.match(done.html, /You have not connected an assistant/);
  const refused = await listTools(w, tokens.access_token);
  assert.equal(refused.status, 401);
  assert.match(refused.headers.get("www-authenticate")!, /ended \(disconnected\)/);
  w.deps.kv.close();
});

Deno.test("connected assistants: an owner sees every member's connection to the organization and can disconnect it there", async () => {
  const w = await oauthWorld();
  const ann = await connect(w, "ann", [w.acme, w.beta]);
  await connect(w, "olga", [w.beta]);
  await connect(w, "bob", [w.acme]);

  // Olga owns Beta: she sees Ann's and her own, with who connected each; not Bob's (it does not read Beta).
  const olga = w.people.client("olga");
  const page = await olga.get(orgUrl(w.beta, "settings/assistants"));
  assert.equal(page.status, 200);
  assert.match(page.html, /aria-current="page">Connected assistants/);
  assert.equal(buttons(page.html).length, 2);
  assert.match(page.html, /Connected by<\/dt><dd>ann@example.test/);
  assert.ok(!page.html.includes("bob@example.test"));
  const annGrant = buttons(page.html.split("<article").find((a) => a.includes("ann@example.test"))!)[0];

  // Bob, an admin but not an owner of Acme, sees only his own there, and cannot disconnect Ann's.
  const bob = w.people.client("bob");
  const bobs = await bob.get(orgUrl(w.acme, "settings/assistants"));
  assert.equal(buttons(bobs.html).length, 1);
  assert.ok(!bobs.html.includes("ann@example.test"));
  const refused = await bob.submit(orgUrl(w.acme, `settings/assistants/${annGrant}/disconnect`), {});
  assert.match(refused.html, /no such connection reading Acme/);

  // Olga takes Ann's connection off Beta: it goes on reading Acme only.
  const done = await olga.submit(orgUrl(w.beta, `settings/assistants/${annGrant}/disconnect`), {});
  assert.match(done.html, /Disconnected from Beta/);
  assert.equal(buttons(done.html).length, 1);
  w.deps.clock.advance(CHECK_CACHE_MS);
  const still = await w.people.client("ann").get("/app/assistants");
  assert.match(still.html, /Reads<\/dt><dd>Acme<\/dd>/);
  assert.equal((await listTools(w, ann.tokens.access_token)).status, 200);
  w.deps.kv.close();
});
