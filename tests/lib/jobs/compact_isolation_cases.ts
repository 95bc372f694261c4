/**
 * One environment's compaction failing does not stop the organization's others (found in review): before,
 * compactOrg stopped at the first throw, so a day production's events could not compact kept its crawler
 * hits and its development events raw for good. A real KV file; the fault is a KV whose listing of
 * production's raw events throws, over the same database the service wrote.
 */
import assert from "node:assert/strict";
import { event } from "../../helpers/events.ts";
import { openSite } from "../../helpers/site.ts";

Deno.test("compaction: production's events failing still compacts its hits and the development events", async () => {
  const s = await openSite({ now: Date.parse("2026-11-18T10:00:00Z") });
  try {
    const { t, kv } = s;
    const page = (n: number) =>
      event({
        anonymous_id: `v${n}`,
        session_id: `s${n}`,
        screen: "/",
        properties: { path: "/", url: "https://acme.test/" },
        device_time: "2026-11-18T10:00:00.000Z",
      });
    for (
      const [key, origin] of [[t.publicKey, "https://acme.test"], [t.devPublicKey, "https://dev.acme.test"]]
    ) {
      assert.equal((await s.ingest([page(1), page(2)], { key, origin })).status, 204);
    }
    const hits = await s.serverEvents([{
      event_type: "$crawl",
      event_id: crypto.randomUUID(),
      host: "acme.test",
      path: "/",
      status: 200,
      user_agent: "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    }]);
    assert.equal(hits.status, 202);
    const raw = (kind: string, env: string) => s.count([kind, t.org, env]);
    assert.deepEqual([await raw("raw_ev", "production"), await raw("raw_ev", "development")], [2, 2]);
    assert.equal(await raw("raw_hit", "production"), 1);

    const faulty = new Proxy(kv, {
      get(target, name) {
        if (name === "list") {
          return (selector: { prefix?: Deno.KvKey; start?: Deno.KvKey }, o?: Deno.KvListOptions) => {
            const p = selector.start ?? selector.prefix ?? [];
            if (p[0] === "raw_ev" && p[2] === "production") throw new Error("disk fault (test)");
            return target.list(selector as Deno.KvListSelector, o);
          };
        }
        const v = Reflect.get(target, name);
        return typeof v === "function" ? v.bind(target) : v;
      },
    });
    const report = await s.compact({ kv: faulty });
    assert.equal(report.failed, 1, "the organization is counted failed once");
    assert.equal(await raw("raw_ev", "production"), 2, "the failing environment's events stay raw");
    assert.equal(await raw("raw_hit", "production"), 0, "its crawler hits are compacted");
    assert.equal(await raw("raw_ev", "development"), 0, "the development events are compacted");
    const errors = s.deps.log.lines.filter((l) => l.includes('"level":"error"'));
    assert.equal(errors.length, 1);
    assert.match(errors[0], /disk fault \(test\)/);
  } finally {
    await s.close();
  }
});
