/** The event codec, as a property: a raw web event read back from KV equals the enriched event that was packed. */
import assert from "node:assert/strict";
import fc from "fast-check";
import { enrichEvent } from "../../../lib/ingest/enrich_event.ts";
import type { WebTarget } from "../../../lib/ingest/enrich_event.ts";
import { packEvent, unpackEvent } from "../../../lib/store/event_codec.ts";
import type { BehaviorEventInput } from "../../../lib/schemas/events.ts";

const target = {
  org: { id: "org_codec" },
  touchpoint: { id: "tp_codec" },
  env: "production",
} as unknown as WebTarget;

const text = fc.string({ unit: "binary", maxLength: 40 });
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
const input = fc.record({
  event_id: fc.uuid(),
  anonymous_id: fc.string({ minLength: 1, maxLength: 20 }),
  user_id: maybe(fc.option(fc.string({ maxLength: 20 }), { nil: null })),
  session_id: fc.string({ minLength: 1, maxLength: 20 }),
  sequence_no: fc.nat(),
  platform: fc.constantFrom("web", "ios", "android"),
  event_type: fc.constantFrom("$pageview", "$autocapture", "signup"),
  screen: fc.oneof(text, fc.webPath()),
  fingerprint: maybe(fc.option(
    fc.record({
      tag: text,
      selector: text,
      text: maybe(fc.option(text, { nil: null })),
      extra: fc.jsonValue(),
    }, { noNullPrototype: true }),
    { nil: null },
  )),
  properties: fc.record({
    path: maybe(fc.webPath()),
    url: maybe(fc.webUrl({ withQueryParameters: true })),
    referrer: maybe(fc.webUrl()),
    utm_source: maybe(text),
    other: fc.jsonValue(),
  }, { requiredKeys: ["other"], noNullPrototype: true }),
  context: maybe(
    fc.record({ user_agent: maybe(fc.oneof(fc.constantFrom("curl/8.0", "GPTBot/1.0"), text)) }, {
      noNullPrototype: true,
    }),
  ),
  device_time: fc.constant("2026-11-20T11:59:59.000Z"),
}, { noNullPrototype: true });
const geo = fc.record({
  country: fc.option(fc.constantFrom("DE", "JP"), { nil: null }),
  city: fc.option(text, { nil: null }),
  asn: fc.option(fc.nat(), { nil: null }),
  as_org: fc.option(text, { nil: null }),
}, { noNullPrototype: true });

Deno.test("event codec: any enriched event stored packed in KV reads back equal, field for field (property)", async () => {
  const kv = await Deno.openKv(":memory:");
  await fc.assert(
    fc.asyncProperty(input, geo, fc.nat(9), async (e, g, gap) => {
      const arrival = { receivedAt: 1_795_000_000_123, ip: null, userAgent: "Mozilla/5.0" };
      const ev = enrichEvent(e as unknown as BehaviorEventInput, target, arrival, g, gap);
      await kv.set(["codec", ev.id], packEvent(ev));
      const back = unpackEvent((await kv.get(["codec", ev.id])).value);
      assert.deepStrictEqual(back, ev);
    }),
    { numRuns: 300 },
  );
  kv.close();
});
