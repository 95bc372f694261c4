import assert from "node:assert/strict";
import { createApp } from "../../../app.ts";
import { DAY, HOUR } from "../../../lib/clock.ts";
import { sweepAddresses } from "../../../lib/store/address_retention.ts";
import { keys } from "../../../lib/store/keys.ts";
import { unpackEvent } from "../../../lib/store/event_codec.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../../helpers/deps.ts";
import { createTenant } from "../../helpers/tenant.ts";
import { event } from "../../helpers/events.ts";

Deno.test("ip sweep: addresses are cleared after 30 days while events and their derived fields stay", async () => {
  const deps = await testDeps();
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN);
  const send = () =>
    app.fetch(
      new Request("http://svc/v1/behavior/events", {
        method: "POST",
        headers: { "content-type": "application/json", origin: "https://acme.test" },
        body: JSON.stringify({ api_key: t.publicKey, batch: [event()] }),
      }),
      { remoteAddr: { hostname: "81.2.69.160" } },
    );
  assert.equal((await send()).status, 204); // day 0, 12:00
  deps.clock.advance(2 * DAY);
  assert.equal((await send()).status, 204); // day 2
  const countIps = async () => {
    let n = 0;
    for await (const _ of deps.kv.list({ prefix: keys.ips() })) n++;
    return n;
  };
  assert.equal(await countIps(), 2);

  deps.clock.advance(28 * DAY - HOUR); // first address is 30 days minus an hour old
  assert.equal(await sweepAddresses(deps.kv, deps.clock), 0);
  assert.equal(await countIps(), 2);

  deps.clock.advance(2 * HOUR); // now 30 days and an hour
  assert.equal(await sweepAddresses(deps.kv, deps.clock), 1);
  assert.equal(await countIps(), 1);

  deps.clock.advance(2 * DAY);
  assert.equal(await sweepAddresses(deps.kv, deps.clock), 1);
  assert.equal(await countIps(), 0);

  let events = 0;
  for await (
    const e of deps.kv.list({ prefix: keys.rawEvents(t.org, "production") })
  ) {
    events++;
    assert.equal(unpackEvent(e.value).geo.country, "DE");
  }
  assert.equal(events, 2);
});
