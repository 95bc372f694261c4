/**
 * Short session keys (store.ts SHORT_KEYS_SEC): a period's session totals find the sessions several parts hold
 * by each key's visitor and the low 24 bits of its first id hash, whole hashes only for visitors with several
 * sessions in a part. Keys that agree on those bits but are different sessions are taken for shared: their
 * blocks are read and joined, which must leave every figure exact; a session really in two parts must be found
 * whichever way each part stores its key (short, whole, or a part read by its whole keys, `KEYS_SEC`, before the
 * backfill adds the short ones). Sessions here are chosen so their ids' first hashes meet on the low 24 bits.
 * The spans are stored keyed by the keys (store.ts KEYED_SPANS_SEC): each engaged session's visitor as the index
 * of its first key; a rollup written before keeps them plain and gets them from the backfill.
 */
import assert from "node:assert/strict";
import type { AggregateOptions, Scope } from "../../../lib/query/api.ts";
import {
  decodeKeys,
  decodeShortKeys,
  encodeShortKeys,
  encodeSpans,
  hasRollup,
  KEYED_SPANS_SEC,
  KEYS_SEC,
  readSection,
  readSpans,
  SHORT_KEYS_SEC,
  SPANS_SEC,
} from "../../../lib/query/rollup/store.ts";
import { mayHoldKey, type PartKeys, sharedKeys, SHORT_MASK } from "../../../lib/query/rollup/spans.ts";
import type { StoredEvent } from "../../../lib/store/records.ts";
import { keys } from "../../../lib/store/keys.ts";
import { SESSION_METRICS } from "../../../lib/query/rollup/answer.ts";
import { ev } from "./fixtures.ts";
import {
  backfillAll,
  collidingIds,
  DAY,
  expected,
  HOUR,
  MINUTE,
  openSite,
  severalParts,
  type Site,
} from "./rollup_site.ts";

const NOW = Date.parse("2026-11-20T12:00:00Z");
const MIDNIGHT = Date.parse("2026-11-20T00:00:00Z");
const SEC_SPAN = 10_000;

const [g1, g2, g3] = collidingIds(3, 3, "c");

function shortKeySite(): StoredEvent[] {
  const all: StoredEvent[] = [];
  let serial = 0;
  const session = (
    visitor: string,
    id: string,
    start: number,
    n: number,
    gap: number,
    more: Partial<StoredEvent> = {},
  ) => {
    for (let j = 0; j < n; j++) {
      const at = start + j * gap;
      all.push(ev({
        id: `k${serial++}`,
        received_at: at,
        device_time: new Date(at - (j % 2) * 3_000).toISOString(),
        sequence_no: j,
        anonymous_id: visitor,
        session_id: id,
        event_type: j % 4 === 2 ? "$autocapture" : "$pageview",
        path: ["/", "/a", "/b", "/c"][(serial + j) % 4],
        ...more,
      }));
    }
  };
  const day = (d: number) => MIDNIGHT - d * DAY;
  // one visitor, few sessions a part (short keys): two sessions meeting on 24 bits in two parts (not shared),
  // one across a midnight (shared), and one whose late event lands in a later day's part (shared, mid-day)
  session("vc", g1[0], day(4) + 10 * HOUR, 3, 5 * MINUTE);
  session("vc", g1[1], day(2) + 10 * HOUR, 4, 6 * MINUTE);
  session("vc", g1[2], day(2) - 10 * MINUTE, 5, 6 * MINUTE);
  session("vc", "late1", day(4) + 14 * HOUR, 2, 4 * MINUTE);
  all.push(ev({
    id: `k${serial++}`,
    received_at: day(1) + 13 * HOUR,
    device_time: new Date(day(4) + 14 * HOUR + 9 * MINUTE).toISOString(),
    sequence_no: 2,
    anonymous_id: "vc",
    session_id: "late1",
    event_type: "$pageview",
    path: "/late",
  }));
  // a visitor with many sessions in two parts (whole hashes there): ids meeting on 24 bits in both, and one
  // session across a midnight into a day where it is the visitor's only one (short there, whole in the other)
  for (let x = 0; x < 5; x++) session("vm", `m3-${x}`, day(3) + (2 + 3 * x) * HOUR, 2 + (x % 2), 7 * MINUTE);
  session("vm", g2[0], day(3) + 20 * HOUR, 3, 5 * MINUTE);
  for (let x = 0; x < 5; x++) session("vm", `m1-${x}`, day(1) + (2 + 3 * x) * HOUR, 2, 9 * MINUTE);
  session("vm", g2[1], day(1) + 19 * HOUR, 2, 5 * MINUTE);
  session("vm", g2[2], day(1) - 8 * MINUTE, 4, 5 * MINUTE);
  // a bot visitor's sessions meeting on 24 bits, one across a midnight
  session("vb", g3[0], day(4) + 8 * HOUR, 3, 4 * MINUTE, { traffic: "bot", crawler: "GPTBot" });
  session("vb", g3[1], day(3) + 8 * HOUR, 3, 4 * MINUTE, { traffic: "bot", crawler: "GPTBot" });
  session("vb", g3[2], day(3) - 6 * MINUTE, 4, 4 * MINUTE, { traffic: "bot", crawler: "GPTBot" });
  // others: sessions of a few hours over the days, many across hours and midnights, a second touchpoint
  for (let k = 0; k < 90; k++) {
    const start = day(5) + k * 73 * MINUTE + (k % 41) * 1000;
    session(`v${k % 13}`, `s${k % 7}`, start, 2 + (k % 5), ((k * 7) % 50 + 5) * MINUTE, {
      touchpoint: k % 6 === 5 ? "tp2" : "tp1",
    });
  }
  return all.filter((e) => e.received_at < NOW - 3 * HOUR);
}

let tailSerial = 0;
/** The raw tail: late rows of compacted sessions of the short-key visitor and of the one with many sessions. */
const tailEvents = (n: number): StoredEvent[] =>
  Array.from({ length: n }, (_, j) =>
    ev({
      // (ids unique across calls: a stored id is stored once, while the reference would count it again)
      id: `t${tailSerial++}`,
      received_at: NOW - 2 * HOUR + n * MINUTE + j * 1000,
      device_time: new Date(NOW - 2 * HOUR + n * MINUTE).toISOString(),
      sequence_no: 10 + j,
      anonymous_id: j % 2 ? "vc" : "vm",
      session_id: j % 2 ? g1[1] : `m1-${j % 5}`,
      path: "/tail",
    }));

const scope: Scope = { org: "org1", env: "production", from: NOW - 10 * DAY, to: NOW, timezone: "UTC" };
const scopes: Scope[] = [
  scope,
  { ...scope, from: MIDNIGHT - 2 * DAY - HOUR },
  { ...scope, touchpoint: "tp1" },
  { ...scope, traffic: ["human", "bot"] },
  { ...scope, from: MIDNIGHT - 4 * DAY - HOUR, to: MIDNIGHT - HOUR, timezone: "Europe/Berlin" },
];
const asks: AggregateOptions[] = [
  {
    metrics: [...SESSION_METRICS],
  },
  { metrics: ["pageviews", "entries", "exits", "exit_rate"], breakdown: ["page"] },
];

/** Every scope's questions from one rollup source, asked twice (the second from the kept totals), the raw tail growing. */
async function fromRollups(site: Site) {
  const rollups = site.rollups();
  for (const [x, s] of scopes.entries()) {
    for (const o of [[asks[0]], asks]) {
      for (let again = 0; again < 2; again++) {
        const got = await rollups.answer(s, o);
        o.forEach((q, i) => {
          const where = JSON.stringify({ s, q: q.metrics, again });
          assert.ok(got[i], `answered from the rollups: ${where}`);
          assert.deepEqual(got[i], expected(site, s, q), where);
        });
      }
    }
    await site.add(tailEvents(x + 1));
  }
}

async function openShortKeySite() {
  const site = await openSite(NOW);
  await site.add(shortKeySite());
  await site.compact();
  return { site, parts: await severalParts(site) };
}

/** Makes a section unreadable (its chunks gone, the entry still naming it): reading it fails the answer. */
async function dropChunks(site: Site, partId: string, sec: number) {
  const entry = await site.entry(partId);
  for (let j = 0; j < (entry.secs[sec]?.[1] ?? 0); j++) {
    await site.kv.delete(keys.rollupChunk(partId, sec * SEC_SPAN + j));
  }
}

Deno.test("short keys: session totals and ends equal the reference when keys meet on 24 bits, read by short keys only", async () => {
  const { site, parts } = await openShortKeySite();
  for (const p of parts) {
    const entry = await site.entry(p.meta.id);
    if (!entry.secs[KEYS_SEC]) continue;
    assert.ok(entry.secs[SHORT_KEYS_SEC], "compaction writes the short keys");
    await dropChunks(site, p.meta.id, KEYS_SEC);
  }
  await fromRollups(site);
  await site.close();
});

Deno.test("short keys and keyed spans: parts with and without them (read by their whole keys and plain spans), then the backfill adds them as compaction writes them", async () => {
  const { site, parts } = await openShortKeySite();
  const written = new Map<string, Map<number, Uint8Array | null | undefined>>();
  for (const [x, p] of parts.entries()) {
    const entry = await site.entry(p.meta.id);
    if (!entry.secs[SHORT_KEYS_SEC]) continue;
    assert.ok(
      entry.secs[KEYED_SPANS_SEC] && !entry.secs[SPANS_SEC],
      "compaction writes the keyed spans only",
    );
    const kept = new Map<number, Uint8Array | null | undefined>();
    for (const sec of [SHORT_KEYS_SEC, KEYED_SPANS_SEC]) {
      kept.set(sec, await readSection(site.kv, p.meta.id, entry, sec));
    }
    written.set(p.meta.id, kept);
    // every other part as a rollup written before them: whole keys only, plain spans
    if (x % 2) continue;
    const plain = encodeSpans((await readSpans(site.kv, p.meta.id, entry))!);
    assert.ok(plain.length < 60_000);
    await site.kv.set(keys.rollupChunk(p.meta.id, SPANS_SEC * SEC_SPAN), plain);
    for (const sec of [SHORT_KEYS_SEC, KEYED_SPANS_SEC]) await dropChunks(site, p.meta.id, sec);
    const secs: Record<string, [number, number]> = { ...entry.secs, [SPANS_SEC]: [plain.length, 1] };
    delete secs[SHORT_KEYS_SEC];
    delete secs[KEYED_SPANS_SEC];
    await site.kv.set(keys.rollup(p.meta.id), { ...entry, secs });
    assert.equal(await hasRollup(site.kv, p.meta.id), false);
  }
  assert.ok(written.size >= 3);
  await fromRollups(site);
  await backfillAll(site);
  for (const [id, kept] of written) {
    assert.ok(await hasRollup(site.kv, id));
    const entry = await site.entry(id);
    for (const [sec, bytes] of kept) {
      assert.deepEqual(await readSection(site.kv, id, entry, sec), bytes, `${id} ${sec}`);
    }
  }
  await fromRollups(site);
  await site.close();
});

/** Random sorted keys of `parts` parts over `visitors` visitors, hashes drawn so many meet on 24 bits. */
function randomKeys(seed: number, parts: number, visitors: number): PartKeys[] {
  let x = seed;
  const rnd = (n: number) => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return (x >>> 8) % n;
  };
  // hashes: a small pool of low 24 bits, each with several top bytes
  const hash = () => ((rnd(7) << 24) | rnd(3)) >>> 0;
  return Array.from({ length: parts }, () => {
    const list: [number, number][] = [];
    for (let i = 0, n = rnd(60); i < n; i++) {
      const v = rnd(visitors);
      for (let j = 0, m = 1 + (rnd(4) === 0 ? rnd(8) : 0); j < m; j++) list.push([v, hash()]);
    }
    const seen = new Set<string>();
    const sorted = list.filter(([v, h]) => !seen.has(`${v}.${h}`) && seen.add(`${v}.${h}`))
      .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    return {
      n: sorted.length,
      vis: Uint32Array.from(sorted, ([v]) => v),
      h: Uint32Array.from(sorted, ([, h]) => h),
      block: Uint8Array.from(sorted, (_, i) => i % 25),
    };
  });
}

Deno.test("short keys: flagged are every key another part holds, and whole-hash keys only when equal", () => {
  for (let seed = 1; seed < 60; seed++) {
    const whole = randomKeys(seed, 2 + (seed % 5), 6 + seed);
    const short = whole.map((k) => decodeShortKeys(encodeShortKeys(k)));
    // read back: the same visitors and blocks, the low 24 bits of each hash, whole for visitors with 4+ keys
    short.forEach((s, p) => {
      const k = whole[p];
      assert.deepEqual([...s.vis], [...k.vis]);
      assert.deepEqual([...s.block], [...k.block]);
      for (let x = 0; x < k.n; x++) {
        const many = k.vis.filter((v) => v === k.vis[x]).length >= 4;
        assert.equal(s.full![x], many ? 1 : 0);
        assert.equal(s.h[x], many ? k.h[x] : k.h[x] & SHORT_MASK);
      }
    });
    const exact = sharedKeys(whole, 8), got = sharedKeys(short, 8);
    // mixed: every other part read by its whole keys
    const mixed = sharedKeys(whole.map((k, p) => (p % 2 ? k : short[p])), 8);
    for (const [p, k] of whole.entries()) {
      for (let x = 0; x < k.n; x++) {
        for (const flags of [got, mixed]) if (exact[p][x]) assert.equal(flags[p][x], 1, `seed ${seed}`);
        // what short keys flag: another part holds a key that may be the same session
        const may = whole.some((o, q) =>
          q !== p && Array.from(o.vis).some((v, y) =>
            v === k.vis[x] &&
            (short[p].full![x] && short[q].full![y]
              ? o.h[y] === k.h[x]
              : (o.h[y] & SHORT_MASK) === (k.h[x] & SHORT_MASK))
          )
        );
        assert.equal(got[p][x], may ? 1 : 0, `seed ${seed} part ${p} key ${x}`);
        // a session a part holds is found by its short keys
        assert.ok(mayHoldKey(short[p], k.vis[x], k.h[x]));
      }
    }
  }
});

Deno.test("short keys: the stored keys of a site read back as its whole keys give them", async () => {
  const { site, parts } = await openShortKeySite();
  let many = 0;
  for (const p of parts) {
    const entry = await site.entry(p.meta.id);
    const w = await readSection(site.kv, p.meta.id, entry, KEYS_SEC);
    const s = await readSection(site.kv, p.meta.id, entry, SHORT_KEYS_SEC);
    if (!w) continue;
    const k = decodeKeys(w), sk = decodeShortKeys(s!);
    assert.deepEqual([...sk.vis], [...k.vis]);
    for (let x = 0; x < k.n; x++) {
      assert.equal(sk.h[x], sk.full![x] ? k.h[x] : k.h[x] & SHORT_MASK);
      many += sk.full![x];
    }
  }
  assert.ok(many >= 10, "the visitor with many sessions keeps whole hashes");
  await site.close();
});
