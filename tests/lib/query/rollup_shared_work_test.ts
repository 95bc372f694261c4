/**
 * Questions asked at once over the same period share the period's costly work (reader.ts `shared`): its session
 * totals from the parts' keys and spans (plain_answers.ts) are counted once, each part's keys read once, and
 * every answer is still the reference's. A report asks ten tools at once over the same week: each used to
 * count them on its own.
 */
import assert from "node:assert/strict";
import type { AggregateOptions, Scope } from "../../../lib/query/api.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import { RollupSource } from "../../../lib/query/rollup/source.ts";
import { SHORT_KEYS_SEC } from "../../../lib/query/rollup/store.ts";
import { DAY, expected, midnightSessions, MINUTE, openSite, severalParts, type Site } from "./rollup_site.ts";

const NOW = Date.parse("2026-11-20T12:00:00Z");
const MIDNIGHT = Date.parse("2026-11-20T00:00:00Z");
const SEC_SPAN = 10_000;
const scope: Scope = { org: "org1", env: "production", from: NOW - 6 * DAY, to: NOW, timezone: "UTC" };

async function openBusySite(): Promise<Site> {
  const site = await openSite(NOW);
  // sessions across midnights (each in two parts), several sources and pages
  await site.add(midnightSessions(MIDNIGHT, 1_200, 30 * MINUTE, (i) => ({
    id: `w${i}`,
    path: `/p${i % 7}`,
    source: ["(direct)", "google", "news.example.com"][i % 3],
  })));
  await site.compact();
  await severalParts(site);
  return site;
}

/** Rollups on a KV that counts the chunks of `secs` read (by section number). */
function countingRollups(site: Site, secs: number[]) {
  const reads = new Map<number, number>();
  const kv = new Proxy(site.kv, {
    get(target, name) {
      if (name === "getMany") {
        return (ks: Deno.KvKey[], o?: { consistency?: Deno.KvConsistencyLevel }) => {
          for (const k of ks) {
            const sec = k[0] === "rollup_chunk" ? Math.floor(Number(k[2]) / SEC_SPAN) : -1;
            if (secs.includes(sec)) reads.set(sec, (reads.get(sec) ?? 0) + 1);
          }
          return target.getMany(ks, o);
        };
      }
      const v = Reflect.get(target, name, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  const deps = { ...site.deps, kv };
  return { rollups: new RollupSource(deps, new Source(deps)), reads };
}

/** Each part's chunks of a section, summed over the parts: what one reading of them costs. */
async function chunksOf(site: Site, sec: number): Promise<number> {
  let n = 0;
  for (const p of await site.parts()) n += (await site.entry(p.meta.id)).secs[sec]?.[1] ?? 0;
  return n;
}

async function askedAtOnce(rollups: RollupSource, asks: AggregateOptions[][], site: Site) {
  const got = await Promise.all(asks.map((qs) => rollups.answer(scope, qs)));
  got.forEach((answers, x) =>
    asks[x].forEach((q, i) => {
      assert.ok(answers[i], `answered from the rollups: ${JSON.stringify(q)}`);
      assert.deepEqual(answers[i], expected(site, scope, q), JSON.stringify(q));
    })
  );
}

Deno.test("shared work: three questions asked at once over a period count its session totals once", async () => {
  const site = await openBusySite();
  const { rollups, reads } = countingRollups(site, [SHORT_KEYS_SEC]);
  await askedAtOnce(rollups, [
    [{ metrics: ["sessions", "bounce_rate", "visitors"] }],
    [{ metrics: ["sessions", "session_duration_s"] }],
    [{ metrics: ["sessions", "pageviews"] }],
  ], site);
  const once = await chunksOf(site, SHORT_KEYS_SEC);
  assert.ok(once > 0, "the parts have short keys");
  assert.equal(reads.get(SHORT_KEYS_SEC), once, "each part's keys read once");
  await site.close();
});
