/**
 * Both "Connected assistants" pages (the person's and the organization's) show the MCP address an assistant
 * connects with, in full, in a code element, before and after a connection exists: they said an assistant
 * connects "with this service's MCP address alone" and the address appeared nowhere in the app. It is the
 * address the service's OAuth metadata names as its resource.
 */
import assert from "node:assert/strict";
import { connect, oauthWorld } from "../../helpers/oauth.ts";
import { orgUrl } from "../../helpers/people.ts";

Deno.test("connected assistants: both pages show the full MCP address to copy", async () => {
  const w = await oauthWorld();
  try {
    const prm = await w.app.request("/.well-known/oauth-protected-resource/mcp");
    const resource = (await prm.json()).resource as string;
    assert.match(resource, /^https?:\/\/[^/]+\/mcp$/);
    const code = new RegExp(`<code[^>]*>${resource.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}</code>`);
    const ann = w.people.client("ann");
    const pages = () => [ann.get("/app/assistants"), ann.get(orgUrl(w.beta, "settings/assistants"))];
    for (const page of await Promise.all(pages())) {
      assert.equal(page.status, 200);
      assert.match(page.html, code, page.html);
    }
    await connect(w, "ann", [w.beta]);
    for (const page of await Promise.all(pages())) {
      assert.match(page.html, /<article/);
      assert.match(page.html, code);
    }
  } finally {
    w.deps.kv.close();
  }
});
