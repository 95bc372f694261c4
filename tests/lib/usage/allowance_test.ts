import assert from "node:assert/strict";
import { readUsage, recordUsage, resetDate } from "../../../lib/usage/allowance.ts";
import type { Org } from "../../../lib/store/records.ts";

const org = { id: "org1", timezone: "Europe/Berlin" } as Org;

Deno.test("usage: a month is the calendar month in the organization's timezone", async () => {
  const kv = await Deno.openKv(":memory:");
  const newYearBerlin = Date.parse("2026-12-31T23:30:00Z"); // already January 1st in Berlin
  await recordUsage(kv, org, { api_requests: 2 }, newYearBerlin);
  assert.equal((await readUsage(kv, org, newYearBerlin)).api_requests, 2);
  assert.equal((await readUsage(kv, org, Date.parse("2026-12-31T22:30:00Z"))).api_requests, 0);
  kv.close();
});

Deno.test("usage: counts of several allowances add up; a zero count writes no key", async () => {
  const kv = await Deno.openKv(":memory:");
  const now = Date.parse("2026-11-20T12:00:00Z");
  await recordUsage(kv, org, { api_requests: 1, individual_items: 0 }, now);
  let keys = 0;
  for await (const _ of kv.list({ prefix: ["usage"] })) keys++;
  assert.equal(keys, 1, "no key for a zero count");
  await recordUsage(kv, org, { api_requests: 2, individual_items: 3 }, now);
  assert.deepEqual(await readUsage(kv, org, now), {
    api_requests: 3,
    assistant_requests: 0,
    individual_items: 3,
  });
  assert.equal(resetDate(now, org.timezone), "2026-12-01");
  kv.close();
});
