/**
 * A version-9 rollup (no runs) gets the runs section from the backfill, built from its stored sections (the
 * part is not read), its other sections left as written: the same runs as written with the rollup, and the
 * sources then come from them, equal to the reference.
 */
import assert from "node:assert/strict";
import type { AggregateOptions, Scope } from "../../../lib/query/api.ts";
import { runsAnswered } from "../../../lib/query/rollup/attribution_period.ts";
import type { AttrRuns } from "../../../lib/query/rollup/attribution_runs.ts";
import { ATTR_RUNS_SEC, decodeRuns, readSection } from "../../../lib/query/rollup/store.ts";
import {
  asOlderVersion,
  assertSectionsKept,
  backfillAll,
  DAY,
  expected,
  midnightSessions,
  openSite,
  severalParts,
  type Site,
} from "./rollup_site.ts";

const NOW = Date.parse("2026-11-20T12:00:00Z");
const scope: Scope = { org: "org1", env: "production", from: NOW - 10 * DAY, to: NOW, timezone: "UTC" };

/** Runs as sets of what they say (their order and codes depend on the order the facts were read in). */
function said(r: AttrRuns): string[] {
  const out: string[] = [];
  for (let x = 0; x < r.n; x++) {
    const sig = r.sigs[r.sig[x]].map((it) => `${JSON.stringify(r.tuples[it >> 1])}${it & 1}`).sort();
    for (let i = r.at[x]; i < r.at[x + 1]; i++) {
      const entry = r.entry[i] ? r.pages[r.entry[i] - 1] : "-";
      out.push(JSON.stringify([r.tp[x], r.traffic[x], sig, r.keys[i], r.h0[i], r.h1[i], entry]));
    }
  }
  return out.sort();
}

const runsOf = async (site: Site, id: string) =>
  said(decodeRuns((await readSection(site.kv, id, await site.entry(id), ATTR_RUNS_SEC))!));

Deno.test("rollup backfill: a version-9 rollup gets its runs from its own sections, the rest kept, then sources come from them", async () => {
  // in a KV file, as a deployment's backfill runs
  const site = await openSite(NOW, { file: true });
  // sessions crossing midnight UTC (each in two parts), changing source and page on the way
  await site.add(midnightSessions(Date.parse("2026-11-20T00:00:00Z"), 400, 900_000, (i) => ({
    source: ["google", "(direct)", "chatgpt"][i % 3 === 0 ? (i >> 2) % 3 : 1],
    channel: (["Organic Search", "Direct", "AI Assistant"] as const)[i % 3 === 0 ? (i >> 2) % 3 : 1],
  })));
  await site.compact();
  const parts = await severalParts(site);
  const runs = new Map<string, string[]>();
  for (const p of parts) runs.set(p.meta.id, await runsOf(site, p.meta.id));
  // as version 9 left them: no runs
  const written = await asOlderVersion(site, parts, 9, [ATTR_RUNS_SEC]);
  const asks: AggregateOptions[] = [
    {
      metrics: ["visitors", "sessions", "conversions"],
      breakdown: ["channel"],
      goal: { event_type: "sign_up" },
    },
    { metrics: ["visitors", "sessions"], breakdown: ["source", "entry_page"] },
  ];
  // until the backfill: the scan
  assert.deepEqual(await site.rollups().answer(scope, asks), [null, null]);
  await backfillAll(site);
  await assertSectionsKept(site, written);
  // the runs the rollup was written with
  for (const p of parts) assert.deepEqual(await runsOf(site, p.meta.id), runs.get(p.meta.id));
  const before = runsAnswered.count;
  const got = await site.rollups().answer(scope, asks);
  assert.equal(runsAnswered.count - before, asks.length);
  asks.forEach((o, i) => assert.deepEqual(got[i], expected(site, scope, o)));
  await site.close();
});
