/**
 * The kinds the crawler-truth check found missed or wrongly flagged (tests/lib/crawl/issue_kinds.ts), through
 * both ingest endpoints: each automated agent is a bot (or AI agent) named by its catalog token, or "unknown",
 * on web events, and a stored crawler hit of its category on server events; each person's agent keeps traffic
 * human on web events and is rejected as not_crawler on server events, with no address stored.
 */
import assert from "node:assert/strict";
import { keys } from "../../lib/store/keys.ts";
import { unpackEvent } from "../../lib/store/event_codec.ts";
import type { StoredEvent } from "../../lib/store/records.ts";
import { event } from "../helpers/events.ts";
import { AUTOMATED_KINDS, PEOPLE_KINDS } from "../lib/crawl/issue_kinds.ts";
import { hit, setup } from "./server_events_helpers.ts";

const automated = Object.entries(AUTOMATED_KINDS).flatMap(([kind, xs]) => xs.map((x) => ({ kind, ...x })));
const people = Object.entries(PEOPLE_KINDS).flatMap(([kind, uas]) => uas.map((ua) => ({ kind, ua })));
const AI = new Set(["ai_training", "ai_search", "ai_assistant"]);

async function postEvents(t: Awaited<ReturnType<typeof setup>>, agents: { ua: string }[]) {
  const events = agents.map(({ ua }, i) =>
    event({ anonymous_id: `visitor-${i}`, session_id: `session-${i}`, context: { user_agent: ua } })
  );
  // a web batch holds at most 200 events: the kinds are sent in slices, their visitor numbers kept global
  for (let i = 0; i < events.length; i += 200) {
    const res = await t.app.fetch(
      new Request("http://svc/v1/behavior/events", {
        method: "POST",
        headers: { "content-type": "application/json", origin: "https://acme.test" },
        body: JSON.stringify({ api_key: t.tenant.publicKey, batch: events.slice(i, i + 200) }),
      }),
      { remoteAddr: { hostname: "81.2.69.160" } },
    );
    assert.equal(res.status, 204, await res.text());
  }
  const out = new Map<string, StoredEvent>();
  for await (const e of t.deps.kv.list<StoredEvent>({ prefix: keys.rawEvents(t.tenant.org, "production") })) {
    const ev = unpackEvent(e.value);
    out.set(agents[Number(ev.anonymous_id.slice("visitor-".length))].ua, ev);
  }
  return out;
}

Deno.test("web events: crawlers and tools of the missed kinds are flagged with their token; people stay human", async () => {
  const t = await setup();
  const stored = await postEvents(t, [...automated, ...people]);
  assert.equal(stored.size, automated.length + people.length);
  for (const { kind, ua, token, category } of automated) {
    const ev = stored.get(ua)!;
    assert.equal(ev.traffic, AI.has(category) ? "ai_agent" : "bot", `${kind}: ${ua}`);
    assert.equal(ev.crawler, token, `${kind}: ${ua}`);
    assert.equal(ev.device_type, "bot", ua);
  }
  for (const { kind, ua } of people) {
    const ev = stored.get(ua)!;
    assert.equal(ev.traffic, "human", `${kind}: ${ua}`);
    assert.equal(ev.crawler, null, ua);
    assert.notEqual(ev.device_type, "bot", ua);
  }
});

Deno.test("server-events: crawlers and tools of the missed kinds are stored with their token and category", async () => {
  const t = await setup();
  const r = await t.send(
    automated.map(({ ua }, i) => hit({ user_agent: ua, ip: "81.2.69.160", path: `/docs/${i}` })),
  );
  assert.equal(r.accepted, automated.length, JSON.stringify(r));
  const hits = await t.storedHits();
  assert.equal(hits.length, automated.length);
  for (const { kind, ua, token, category } of automated) {
    const h = hits.find((x) => x.user_agent === ua);
    assert.ok(h, `${kind}: ${ua} not stored`);
    assert.equal(h.crawler, token, ua);
    assert.equal(h.category, category, ua);
  }
});

Deno.test("server-events: people's software of the wrongly flagged kinds is not_crawler, no address stored", async () => {
  const t = await setup();
  const r = await t.send(people.map(({ ua }) => hit({ user_agent: ua, ip: "81.2.69.160" })));
  assert.deepEqual(r, {
    accepted: 0,
    duplicates: 0,
    rejected: { invalid: 0, unknown_host: 0, not_crawler: people.length },
  });
  assert.equal((await t.storedHits()).length, 0);
  assert.equal((await Array.fromAsync(t.deps.kv.list({ prefix: keys.ips() }))).length, 0);
});
