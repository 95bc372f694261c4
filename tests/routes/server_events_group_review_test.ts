/** Review: overlapping crawler batches sent at once store each hit, address and pending entry exactly once. */
import assert from "node:assert/strict";
import { keys } from "../../lib/store/keys.ts";
import type { PendingMarker } from "../../lib/store/pending_verification.ts";
import { GPTBOT_UA, setup } from "./server_events_helpers.ts";

Deno.test("server-events review: overlapping batches and a retry sent at once store each hit, its address and its pending entry once", async () => {
  const { deps, send, storedHits } = await setup();
  const hits = Array.from({ length: 250 }, (_, i) => ({
    event_type: "$crawl",
    event_id: crypto.randomUUID(),
    host: "acme.test",
    path: `/p/${i}`,
    status: 200,
    user_agent: GPTBOT_UA,
    ip: `20.171.${i >> 8}.${i & 255}`,
  }));
  const a = hits.slice(0, 150), b = hits.slice(100, 250);
  const results = await Promise.all([send(a), send(b), send(a), send(hits.slice(0, 30))]);
  assert.equal(results.reduce((n, r) => n + r.accepted, 0), 250, "each hit accepted by exactly one request");
  assert.equal(results.reduce((n, r) => n + r.accepted + r.duplicates, 0), 150 + 150 + 150 + 30);
  const stored = await storedHits();
  assert.equal(stored.length, 250);
  assert.equal(new Set(stored.map((h) => h.id)).size, 250);

  const addresses = new Map<string, number>();
  for await (const e of deps.kv.list<{ ips?: Record<string, string> }>({ prefix: keys.ips() })) {
    for (const id of Object.keys(e.value.ips ?? {})) addresses.set(id, (addresses.get(id) ?? 0) + 1);
  }
  const pending = new Map<string, number>();
  for await (const e of deps.kv.list<PendingMarker>({ prefix: keys.verifyPendingAll() })) {
    for (const [id] of e.value.hits) pending.set(id, (pending.get(id) ?? 0) + 1);
  }
  for (const h of hits) {
    assert.equal(addresses.get(h.event_id), 1, "one address record holds the hit's address");
    assert.equal(pending.get(h.event_id), 1, "one pending marker names the hit");
  }
});
