import assert from "node:assert/strict";
import { UsageMeter } from "../../../lib/usage/meter.ts";
import { readUsage, recordUsage } from "../../../lib/usage/allowance.ts";
import type { Org } from "../../../lib/store/records.ts";
import type { PlanLimits } from "../../../lib/tenancy/plans.ts";
import { HttpError } from "../../../lib/errors.ts";

const NOW = Date.parse("2026-11-20T12:00:00Z");
const org = { id: "org1", timezone: "Europe/Berlin" } as Org;
const limits: PlanLimits = {
  api_access: true,
  history_days: 400,
  allowances: { api_requests: 10, assistant_requests: 10, individual_items: 10 },
};

Deno.test("usage meter: refuses with 402 once the call's own allowance is used, naming the reset date", async () => {
  const kv = await Deno.openKv(":memory:");
  await recordUsage(kv, org, { api_requests: 10 }, NOW);
  await assert.rejects(UsageMeter.open(kv, org, limits, "api_requests", NOW), (err) => {
    assert.ok(err instanceof HttpError);
    assert.equal(err.status, 402);
    assert.match(err.message, /resets on 2026-12-01/);
    return true;
  });
  // the other face's allowance is its own
  assert.ok(await UsageMeter.open(kv, org, limits, "assistant_requests", NOW));
  kv.close();
});

Deno.test("usage meter: items are taken from what is left, and the call and its items are recorded together", async () => {
  const kv = await Deno.openKv(":memory:");
  await recordUsage(kv, org, { individual_items: 6 }, NOW);
  const meter = await UsageMeter.open(kv, org, limits, "api_requests", NOW);
  assert.equal(meter.takeItems(3), 3);
  assert.equal(meter.takeItems(3), 1, "only 4 were left this month");
  assert.equal(meter.takeItems(3), 0);
  assert.deepEqual(await readUsage(kv, org, NOW), {
    api_requests: 0,
    assistant_requests: 0,
    individual_items: 6,
  }, "nothing is written before the call is recorded");
  const notices = meter.notices();
  assert.equal(notices.length, 1, "no notice for 1 of 10 API requests");
  assert.match(notices[0], /^100% of this month's individual items used \(10 of 10\); resets on 2026-12-01/);
  await meter.record();
  assert.deepEqual(await readUsage(kv, org, NOW), {
    api_requests: 1,
    assistant_requests: 0,
    individual_items: 10,
  });
  kv.close();
});

Deno.test("usage meter: the near-allowance notice counts this call; no item notice when no item was asked", async () => {
  const kv = await Deno.openKv(":memory:");
  await recordUsage(kv, org, { assistant_requests: 7, individual_items: 9 }, NOW);
  const meter = await UsageMeter.open(kv, org, limits, "assistant_requests", NOW);
  const notices = meter.notices();
  assert.equal(notices.length, 1, "items at 90% but none asked");
  assert.match(notices[0], /^80% of this month's assistant requests used \(8 of 10\)/);
  kv.close();
});
