/**
 * Long property names (found in review): 2 events of 50 names of 1,200 characters gave a part a column
 * directory past KV's 64 KiB a value, and compaction of the organization failed at that day for good. Ingest
 * now refuses a name longer than 200 characters with a 422 naming it, and a part gives a column only to names
 * of 200 characters at most (events stored before the rule keep theirs in the rest column, read back whole).
 */
import assert from "node:assert/strict";
import { buildEventBatch, OWN_NAME_CHARS, reconstructEvents } from "../../../lib/parts/event_batch.ts";
import { ev } from "../query/fixtures.ts";
import { event } from "../../helpers/events.ts";
import { openSite } from "../../helpers/site.ts";

Deno.test("ingest: a property name longer than 200 characters is a 422 naming it; 200 characters are stored", async () => {
  const s = await openSite({ now: Date.parse("2026-11-18T10:00:00Z") });
  const send = (name: string) =>
    s.ingest([event({
      anonymous_id: "a",
      session_id: "s",
      event_type: "form",
      screen: "/",
      properties: { path: "/", nested: { [name]: 1 } },
      device_time: "2026-11-18T10:00:00.000Z",
    })]);
  const long = await send("n".repeat(201));
  assert.equal(long.status, 422);
  assert.match(
    (await long.json()).error,
    /batch\[0\]\.properties\.nested: holds a key longer than 200 characters/,
  );
  assert.equal((await send("n".repeat(200))).status, 204);
  await s.close();
});

Deno.test("parts: names past 200 characters get no column of their own and read back whole", async () => {
  const T = Date.parse("2026-11-20T12:00:00Z");
  const events = [0, 1].map((j) => {
    const properties: Record<string, unknown> = { path: "/" };
    for (let k = 0; k < 50; k++) properties[`e${j}n${k}_`.padEnd(1200, "x")] = k;
    return ev({ received_at: T + j, anonymous_id: `x${j}`, session_id: `x${j}`, properties });
  });
  const b = await buildEventBatch(structuredClone(events));
  const props = Object.keys(b.cols).filter((c) => c.startsWith("p:"));
  assert.deepEqual(props, ["p:path"], "only the short name has a column");
  assert.ok(props.every((c) => c.length - 2 <= OWN_NAME_CHARS));
  const back = await reconstructEvents(b, "org1", "production");
  for (let j = 0; j < 2; j++) assert.deepEqual(back[j].properties, events[j].properties);
});
