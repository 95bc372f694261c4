import assert from "node:assert/strict";
import { serialize } from "node:v8";
import { enrichEvent } from "../../../lib/ingest/enrich_event.ts";
import type { WebTarget } from "../../../lib/ingest/enrich_event.ts";
import { packEvent, unpackEvent } from "../../../lib/store/event_codec.ts";
import type { BehaviorEventInput } from "../../../lib/schemas/events.ts";
import { event } from "../../helpers/events.ts";

const target = {
  org: { id: "org_codec" },
  touchpoint: { id: "tp_codec" },
  env: "staging",
} as unknown as WebTarget;
const geo = { country: "DE", city: "Berlin", asn: 3320, as_org: "Deutsche Telekom AG" };

function stored(over: Partial<BehaviorEventInput>, withGeo = true) {
  const ev = { ...event(), ...over } as BehaviorEventInput;
  const arrival = { receivedAt: 1_795_000_000_123, ip: "192.0.2.1", userAgent: null };
  const none = { country: null, city: null, asn: null, as_org: null };
  return enrichEvent(ev, target, arrival, withGeo ? geo : none, 2);
}

Deno.test("event codec: packed and unpacked again, an event is the same, field for field", () => {
  const cases = [
    stored({}),
    stored({
      user_id: "user-1",
      fingerprint: { tag: "a", selector: "nav a", text: "Pricing", id: "nav-pricing" },
    }, false),
    stored({
      properties: { path: "/p", url: "https://acme.test/p?utm_source=nl&utm_medium=email&utm_campaign=x" },
    }),
    stored({ context: { user_agent: "Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)" } }),
  ];
  for (const e of cases) {
    const back = unpackEvent(structuredClone(packEvent(e)));
    assert.deepEqual(back, e);
    assert.deepEqual(Object.keys(back), Object.keys(e), "same field order as the object form");
  }
  assert.ok(cases.some((e) => e.utm !== null) && cases.some((e) => e.utm === null));
  assert.ok(cases.some((e) => e.traffic !== "human"));
});

Deno.test("event codec: records stored as objects before the codec still read", () => {
  const e = stored({});
  assert.deepEqual(unpackEvent(structuredClone(e)), e);
});

Deno.test("event codec: an unknown layout is an error, not a wrong event", () => {
  assert.throws(() => unpackEvent([99, "x"]), /unknown layout 99/);
});

Deno.test("event codec: a typical enriched event stays well under SQLite's ~1 KB inline row size", () => {
  const e = stored({
    fingerprint: { tag: "button", text: "Buy now", selector: "main > button.buy", classes: ["buy"] },
  });
  const packed = serialize(packEvent(e)).length, object = serialize(e).length;
  assert.ok(packed < 800, `packed ${packed} bytes`);
  assert.ok(packed < object * 0.75, `packed ${packed} vs object ${object} bytes`);
});
