/** A valid BehaviorEvent for tests; override any field. */
export function event(over: Record<string, unknown> = {}) {
  return {
    event_id: crypto.randomUUID(),
    anonymous_id: "anon-1",
    session_id: "sess-1",
    sequence_no: 0,
    platform: "web",
    event_type: "$pageview",
    screen: "/pricing",
    properties: { path: "/pricing", url: "https://acme.test/pricing" },
    device_time: "2026-11-20T11:59:59.000Z",
    ...over,
  };
}
