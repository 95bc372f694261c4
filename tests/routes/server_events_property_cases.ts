import assert from "node:assert/strict";
import fc from "fast-check";
import { BROWSER_UA, hit, setup } from "./server_events_helpers.ts";

const NOW = Date.parse("2026-11-20T12:00:00Z");

/** Every per-hit case the endpoint knows, with what it must count as. */
const CASES = {
  valid: (id: string) => hit({ event_id: id }),
  subdomain: (id: string) => hit({ event_id: id, host: "shop.acme.test:8080" }),
  noTimestamp: (id: string) => hit({ event_id: id, timestamp: undefined }),
  aheadTimestamp: (id: string) => hit({ event_id: id, timestamp: new Date(NOW + 3_600_000).toISOString() }),
  badIp: (id: string) => hit({ event_id: id, ip: "not-an-ip" }),
  unknownAgent: (id: string) => hit({ event_id: id, user_agent: "python-requests/2.31" }),
  nullStatus: (id: string) => hit({ event_id: id, status: null }),
  badId: (_: string) => hit({ event_id: "1234" }),
  badPath: (id: string) => hit({ event_id: id, path: "no-slash" }),
  emptyAgent: (id: string) => hit({ event_id: id, user_agent: "" }),
  badStatus: (id: string) => hit({ event_id: id, status: 42 }),
  badMethod: (id: string) => hit({ event_id: id, method: "GE T" }),
  tooOld: (id: string) => hit({ event_id: id, timestamp: new Date(NOW - 8 * 86_400_000).toISOString() }),
  notAnObject: (_: string) => "hello",
  otherDomain: (id: string) => hit({ event_id: id, host: "elsewhere.test" }),
  otherEnvironment: (id: string) => hit({ event_id: id, host: "staging.acme.test" }),
  browser: (id: string) => hit({ event_id: id, user_agent: BROWSER_UA }),
} as const;
type Kind = keyof typeof CASES;

const OUTCOME: Record<Kind, "keep" | "invalid" | "unknown_host" | "not_crawler"> = {
  valid: "keep",
  subdomain: "keep",
  noTimestamp: "keep",
  aheadTimestamp: "keep",
  badIp: "keep",
  unknownAgent: "keep",
  nullStatus: "keep",
  badId: "invalid",
  badPath: "invalid",
  emptyAgent: "invalid",
  badStatus: "invalid",
  badMethod: "invalid",
  tooOld: "invalid",
  notAnObject: "invalid",
  otherDomain: "unknown_host",
  otherEnvironment: "unknown_host",
  browser: "not_crawler",
};

const kinds = Object.keys(CASES) as Kind[];

Deno.test("server-events: accepted + duplicates + sum(rejected) = events.length over random mixed batches", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.record({ kind: fc.constantFrom(...kinds), id: fc.nat(9) }), {
        minLength: 1,
        maxLength: 80,
      }),
      fc.subarray([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]),
      async (events, preStored) => {
        const t = await setup();
        const pool = Array.from({ length: 10 }, () => crypto.randomUUID());
        if (preStored.length) await t.send(preStored.map((i) => CASES.valid(pool[i])));

        const body = events.map((e) => CASES[e.kind](pool[e.id]));
        const r = await t.send(body);

        // the model: judged one by one, the first new id stored, every later one a duplicate
        const expected = {
          accepted: 0,
          duplicates: 0,
          rejected: { invalid: 0, unknown_host: 0, not_crawler: 0 },
        };
        const seen = new Set(preStored.map((i) => pool[i]));
        for (const e of events) {
          const outcome = OUTCOME[e.kind];
          if (outcome !== "keep") expected.rejected[outcome]++;
          else if (seen.has(pool[e.id])) expected.duplicates++;
          else (seen.add(pool[e.id]), expected.accepted++);
        }
        assert.deepEqual(r, expected);
        assert.equal(
          r.accepted + r.duplicates + r.rejected.invalid + r.rejected.unknown_host + r.rejected.not_crawler,
          events.length,
        );
        assert.equal((await t.storedHits()).length, preStored.length + r.accepted);
        t.deps.kv.close();
      },
    ),
    { numRuns: 40 },
  );
});
