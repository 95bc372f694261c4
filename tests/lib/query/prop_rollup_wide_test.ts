/**
 * An event type with many distinct property names (found by the adversarial check: 680 events of 90 names of
 * their own, each within the documented limits, froze the instance 13-35 s at compaction and at every
 * property question after). Its names are counted before anything is built: past NAME_CAP names (or
 * NULL_CELLS_CAP null-row adds) the table keeps only its totals, says so (wideEts), and its questions scan;
 * other event types keep their rows and are answered from the table. Answers equal the raw ones.
 * Through the HTTP API and the compaction job on a real KV file.
 */
import assert from "node:assert/strict";
import { event } from "../../helpers/events.ts";
import { openSite } from "../../helpers/site.ts";
import { readPropRollup } from "../../../lib/query/prop_rollup/store.ts";
import { buildPropRollupTurning, NAME_CAP } from "../../../lib/query/prop_rollup/build.ts";
import { partBatch } from "../../../lib/parts/build.ts";
import { listParts } from "../../../lib/parts/store.ts";

Deno.test("property rollups: an event type of more names than a table keeps is counted, not built; others answer from the table", async () => {
  const s = await openSite({
    now: Date.parse("2026-11-18T10:00:00Z"),
    config: { trustProxy: true, publicKeyRatePerMinute: 1e9 },
  });
  try {
    let seq = 0;
    const ev = (visitor: string, type: string, properties: Record<string, unknown>) =>
      event({
        anonymous_id: visitor,
        session_id: `s-${visitor}`,
        sequence_no: seq++,
        event_type: type,
        screen: "/",
        properties: { path: "/", url: "https://acme.test/", ...properties },
        device_time: new Date(s.deps.clock.now()).toISOString(),
      });
    const send = async (batch: unknown[]) => {
      const res = await s.ingest(batch, { headers: { "x-forwarded-for": "81.2.69.7" } });
      assert.equal(res.status, 204, await res.text());
    };
    for (let i = 0; i < 12; i++) await send([ev(`pv${i}`, "$pageview", { plan: i % 3 ? "free" : "pro" })]);
    for (let b = 0; b < 12; b++) {
      const batch = [];
      for (let i = 0; i < 17; i++) {
        const props: Record<string, unknown> = {};
        for (let k = 0; k < 90; k++) props[`${"n".repeat(60)}_${b}_${i}_${k}`] = k;
        batch.push(ev(`mp${i}`, "manyprops", props));
      }
      await send(batch);
    }
    const read = async (input: Record<string, unknown>) => {
      const { scope: _s, notes: _n, ...answer } = await s.read("behavior_event_properties", {
        period: "today",
        ...input,
      });
      return JSON.parse(JSON.stringify(answer).replace(/data fresh to [^"]*/g, "data fresh"));
    };
    const asks = [
      { event: "$pageview" },
      { event: "$pageview", property: "plan" },
      { event: "manyprops" },
      { event: "manyprops", property: `${"n".repeat(60)}_3_4_5` },
    ];
    const before = [];
    for (const a of asks) before.push(await read(a));
    const report = await s.compact();
    assert.equal(report.failed, 0);

    const entries: Record<string, unknown>[] = [];
    for await (const e of s.kv.list<Record<string, unknown>>({ prefix: ["prop_rollup"] })) {
      entries.push(e.value);
    }
    assert.deepEqual(entries.map((e) => e.wideEts), [["manyprops"]], "the event type is marked wide");
    const [part] = await listParts(s.kv, s.t.org, "production", "ev");
    const sections = (await readPropRollup(s.kv, part.meta.id))!;
    const wide = sections.find((r) => r.ets[0] === "manyprops")!;
    assert.deepEqual(wide.keys, [], "no key rows of the wide event type are made");
    assert.ok(wide.n > 0 && wide.n <= 4, "its totals rows only");
    const views = sections.find((r) => r.ets[0] === "$pageview")!;
    assert.ok(views.keys.includes("plan"), "the other event type keeps its keys");

    // the build counts names before it builds: the work between turns is bounded (2,040 names over 18,360)
    const batch = await partBatch(s.kv, part.meta);
    let turns = 0;
    const r = await buildPropRollupTurning(batch, () => 0, () => {
      turns++;
      return Promise.resolve();
    });
    assert.ok(18_360 > NAME_CAP && r.tooWide?.length === 1, "wide by its names");
    assert.ok(turns >= 2, `the build gives the event loop turns (${turns})`);

    for (let k = 0; k < asks.length; k++) {
      assert.deepEqual(await read(asks[k]), before[k], JSON.stringify(asks[k]));
    }
  } finally {
    await s.close();
  }
});
