import assert from "node:assert/strict";
import { createEngine } from "../../../lib/query/api.ts";
import { keys } from "../../../lib/store/keys.ts";
import { generateSite, type SiteOptions } from "../../../lib/demo/site.ts";
import { type AnyRecord, partRecords } from "../../../lib/parts/build.ts";
import { listParts, type PartKind } from "../../../lib/parts/store.ts";
import { dayNumber } from "../../../lib/store/keys.ts";
import { testDeps } from "../../helpers/deps.ts";

const DAY = 86_400_000;
const END = Date.parse("2026-11-20T00:00:00Z");
const site: SiteOptions & { end: number } = {
  org: "o",
  touchpoint: "tp",
  events: 4_000,
  visitors: 400,
  hits: 400,
  days: 7,
  seed: 5,
  end: END,
};

/** Each UTC day's records over all published parts, sorted by id, as plain JSON. */
async function rowsByDay(kv: Deno.Kv, kind: PartKind) {
  const days = new Map<number, AnyRecord[]>();
  for (const { meta } of await listParts(kv, "o", "production", kind)) {
    assert.equal(meta.pending, false);
    for (const r of await partRecords(kv, "o", "production", meta)) {
      const d = dayNumber(kind === "ev" ? r.received_at : (r as { timestamp: number }).timestamp);
      assert.equal(d, meta.day, "a part holds one day");
      days.set(d, [...days.get(d) ?? [], r]);
    }
  }
  return new Map(
    [...days].sort((a, b) => a[0] - b[0]).map((
      [d, rs],
    ) => [d, JSON.stringify(rs.sort((a, b) => (a.id < b.id ? -1 : 1)))]),
  );
}

Deno.test("generate: parts written straight hold, day by day, the rows raw records compacted give", async () => {
  const raw = await testDeps(), direct = await testDeps();
  await generateSite(raw, site);
  // small parts, so days are split over several as compaction splits them
  const report = await generateSite(direct, { ...site, direct: true, partRows: 150 });
  assert.equal(report.events_stored, report.events);
  for (const kind of ["ev", "hit"] as const) {
    assert.deepEqual(await rowsByDay(direct.kv, kind), await rowsByDay(raw.kv, kind), kind);
  }
  // no raw keys left behind; every record has its dedupe key, as ingest wrote them on the raw path
  for await (const _ of direct.kv.list({ prefix: keys.rawEvents("o", "production") })) {
    assert.fail("raw event");
  }
  const dedupe = async (kv: Deno.Kv) => {
    const out: [unknown, unknown][] = [];
    for await (const e of kv.list({ prefix: ["dedupe", "o"] })) out.push([e.key[2], e.value]);
    return out;
  };
  const keysRaw = await dedupe(raw.kv);
  assert.equal(keysRaw.length, report.events + report.hits);
  assert.deepEqual(await dedupe(direct.kv), keysRaw);
  const scope = { org: "o", env: "production" as const, from: END - 8 * DAY, to: END + 1, timezone: "UTC" };
  const q = {
    metrics: ["events", "visitors", "sessions", "bounce_rate"] as const,
    breakdown: ["page" as const],
  };
  assert.deepEqual(
    await createEngine(direct).aggregate(scope, { ...q, metrics: [...q.metrics] }),
    await createEngine(raw).aggregate(scope, { ...q, metrics: [...q.metrics] }),
  );
  // a rerun finds the site stored and stores nothing new (the raw path's dedupe)
  const again = await generateSite(direct, { ...site, direct: true });
  assert.deepEqual([again.events_stored, again.hits_stored], [0, 0]);
});
