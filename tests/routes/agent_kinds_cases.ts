/**
 * Every kind of agent the classifier tells apart, through both ingest endpoints: people's clients stay human
 * on web events and are rejected as not_crawler (address never stored) on server events; other automation is
 * a bot of token "unknown" on web events and a stored crawler hit of category "other" on server events, which
 * AI visibility never counts.
 */
import assert from "node:assert/strict";
import { keys } from "../../lib/store/keys.ts";
import { unpackEvent } from "../../lib/store/event_codec.ts";
import type { StoredEvent } from "../../lib/store/records.ts";
import { event } from "../helpers/events.ts";
import { AUTOMATION_AGENTS, HUMAN_AGENTS } from "../helpers/agent_kinds.ts";
import { GPTBOT_UA, hit, setup } from "./server_events_helpers.ts";

const humans = Object.entries(HUMAN_AGENTS).flatMap(([kind, uas]) => uas.map((ua) => ({ kind, ua })));
const automated = Object.entries(AUTOMATION_AGENTS).flatMap(([kind, uas]) => uas.map((ua) => ({ kind, ua })));

async function postEvents(t: Awaited<ReturnType<typeof setup>>, agents: { ua: string }[]) {
  const batch = agents.map(({ ua }, i) =>
    event({ anonymous_id: `visitor-${i}`, session_id: `session-${i}`, context: { user_agent: ua } })
  );
  const res = await t.app.fetch(
    new Request("http://svc/v1/behavior/events", {
      method: "POST",
      headers: { "content-type": "application/json", origin: "https://acme.test" },
      body: JSON.stringify({ api_key: t.tenant.publicKey, batch }),
    }),
    { remoteAddr: { hostname: "81.2.69.160" } },
  );
  assert.equal(res.status, 204, await res.text());
  const out = new Map<string, StoredEvent>();
  for await (const e of t.deps.kv.list<StoredEvent>({ prefix: keys.rawEvents(t.tenant.org, "production") })) {
    const ev = unpackEvent(e.value);
    out.set(agents[Number(ev.anonymous_id.slice("visitor-".length))].ua, ev);
  }
  return out;
}

Deno.test("web events: people's clients of every kind keep traffic human; automation is a bot of token unknown", async () => {
  const t = await setup();
  const stored = await postEvents(t, [...humans, ...automated]);
  assert.equal(stored.size, humans.length + automated.length);
  for (const { kind, ua } of humans) {
    const ev = stored.get(ua)!;
    assert.equal(ev.traffic, "human", `${kind}: ${ua}`);
    assert.equal(ev.crawler, null, ua);
    assert.notEqual(ev.device_type, "bot", ua);
  }
  for (const { kind, ua } of automated) {
    const ev = stored.get(ua)!;
    assert.equal(ev.traffic, "bot", `${kind}: ${ua}`);
    assert.equal(ev.crawler, "unknown", ua);
    assert.equal(ev.device_type, "bot", ua);
  }
});

Deno.test("server-events: people's clients of every kind are not_crawler and no address of theirs is stored", async () => {
  const t = await setup();
  const r = await t.send(humans.map(({ ua }) => hit({ user_agent: ua, ip: "81.2.69.160" })));
  assert.deepEqual(r, {
    accepted: 0,
    duplicates: 0,
    rejected: { invalid: 0, unknown_host: 0, not_crawler: humans.length },
  });
  assert.equal((await t.storedHits()).length, 0);
  assert.equal((await Array.fromAsync(t.deps.kv.list({ prefix: keys.ips() }))).length, 0);
});

Deno.test("server-events: other automation is stored as a crawler hit of category other, outside AI visibility", async () => {
  const t = await setup();
  const agents = [
    ...automated.map(({ ua }) => ua),
    // automation that talks about AI but names no catalog crawler is still only "other"
    "Mozilla/5.0 (compatible; SomeAIAssistantFetcher/1.0; +https://assistant.example.ai/bot)",
  ];
  const r = await t.send([
    ...agents.map((ua, i) => hit({ user_agent: ua, ip: "81.2.69.160", path: `/docs/${i}` })),
    hit({ user_agent: GPTBOT_UA, path: "/pricing" }), // a verified AI crawler, for contrast
  ]);
  assert.equal(r.accepted, agents.length + 1);
  const hits = await t.storedHits();
  const other = hits.filter((h) => h.user_agent !== GPTBOT_UA);
  assert.equal(other.length, agents.length);
  for (const h of other) {
    assert.equal(h.crawler, "unknown", h.user_agent);
    assert.equal(h.vendor, null);
    assert.equal(h.category, "other");
    assert.equal(h.verification, "unverifiable");
  }
  assert.equal(hits.find((h) => h.user_agent === GPTBOT_UA)?.verification, "verified");
  // asked through the read API: AI visibility counts the GPTBot page only; "unknown" is no AI crawler
  const read = await t.app.request("/v1/read/behavior_crawl_coverage", {
    method: "POST",
    headers: { authorization: `Bearer ${t.tenant.readKey}`, "content-type": "application/json" },
    body: JSON.stringify({ period: "last_7_days" }),
  });
  const body = await read.json();
  assert.equal(read.status, 200, JSON.stringify(body));
  assert.equal(body.summary.pages_read_by_ai_verified, 1);
  const unknown = body.crawlers.find((c: { crawler: string }) => c.crawler === "unknown");
  assert.equal(unknown?.ai, false);
  assert.equal(unknown?.requests, agents.length);
  assert.equal(unknown?.verified_pages, 0);
});
