import assert from "node:assert/strict";
import { harness } from "./harness.ts";

Deno.test("behavior_crawler_access: `requests` is described as what it counts (server SDK hits only)", async () => {
  const h = await harness();
  const res = await h.app.request("/v1/read", { headers: { authorization: `Bearer ${h.t.readKey}` } });
  const { tools } = await res.json();
  const tool = tools.find((t: { name: string }) => t.name === "behavior_crawler_access");
  const requests = tool.output_schema.properties.crawlers.items.properties.requests;
  assert.match(requests.description, /server SDK/);
  assert.doesNotMatch(requests.description, /server SDK and web SDK/);
  // ... and the figure is the server hits only (the generated site's hits all came through the server SDK).
  const a = await h.ask("behavior_crawler_access", { period: "last_7_days" });
  const from = Date.parse("2026-11-14T00:00:00Z");
  const to = Date.parse("2026-11-20T12:00:00Z") + 1;
  for (const c of a.crawlers) {
    const hits = h.site.hits.filter((x) =>
      x.crawler === c.crawler && x.timestamp >= from && x.timestamp < to && x.verification !== "spoofed" &&
      x.via === "server"
    );
    assert.equal(c.requests, hits.length, c.crawler);
  }
  h.close();
});
