/**
 * Review #12: the MCP Apps views name pages as people read them ("/café", "/a b"), not in the stored
 * percent-encoded form. A real answer from the read API on a real KV file, rendered by views/render.ts in
 * linkedom's DOM.
 */
import assert from "node:assert/strict";
import { parseHTML } from "linkedom";
import { openSite, pageview } from "../helpers/site.ts";

const { document, window } = parseHTML("<!doctype html><html><body></body></html>");
Object.assign(globalThis, { document, window, HTMLElement: window.HTMLElement, Node: window.Node });
const { render } = await import("../../views/render.ts");

Deno.test("views: the pages view names pages decoded; an escaped slash stays escaped", async () => {
  const site = await openSite({ now: Date.parse("2026-11-18T12:00:00Z") });
  try {
    const batch = [];
    for (let v = 0; v < 6; v++) {
      batch.push(pageview(v, 1, "/café"), pageview(v, 2, "/a b"), pageview(v, 3, "/a%2Fb"));
    }
    assert.equal((await site.ingest(batch)).status, 204);
    const args = { period: "last_7_days" };
    const answer = await site.read("behavior_pages", args);
    const root = document.createElement("div");
    const ask = () => Promise.resolve(null);
    for (const x of render({ tool: "behavior_pages", answer, args, width: 600, ask })) root.append(x);
    const labels = [...root.querySelectorAll("[data-value]")].map((e) => e.getAttribute("data-label")).sort();
    assert.deepEqual(labels, ["/a b", "/a%2Fb", "/café"]);
  } finally {
    await site.close();
  }
});
