/**
 * A question about an event or a page that was never received in the period answers zeros: the answer says
 * no such event or page was received, and names a close one when there is ("did you mean /pricing?"). Real HTTP
 * ingest and reads on a real KV file.
 */
import assert from "node:assert/strict";
import { openSite, pageviewAt } from "../helpers/site.ts";

const NOW = Date.parse("2026-11-20T12:00:00Z");
const config = { readKeyRatePerMinute: 1e6, publicKeyRatePerMinute: 1e6 };
const unknown = (n: string[]) => n.filter((x) => /^no (event|page) /.test(x));

Deno.test("an event or page never received in the period: a notice says so and names a close one", async () => {
  const site = await openSite({ now: NOW, config });
  try {
    for (let v = 0; v < 6; v++) {
      const at = NOW - v * 3_600_000;
      const signUp = {
        ...pageviewAt(v, "/pricing", at),
        event_type: "sign_up",
        event_id: crypto.randomUUID(),
      };
      assert.equal((await site.ingest([pageviewAt(v, "/pricing", at), signUp])).status, 204);
    }

    const typo = await site.read("behavior_trends", { event: "nonexistent_event" });
    assert.deepEqual(unknown(typo.notices), [
      'no event "nonexistent_event" was received in production in this period (2026-10-24 to 2026-11-20)',
    ]);
    const close = await site.read("behavior_trends", { event: "sign-up" });
    assert.deepEqual(unknown(close.notices), [
      'no event "sign-up" was received in production in this period (2026-10-24 to 2026-11-20); did you mean "sign_up"?',
    ]);
    const slash = await site.read("behavior_overview", { page: "/pricing/" });
    assert.equal(slash.visitors.value, 0);
    assert.deepEqual(unknown(slash.notices), [
      'no page "/pricing/" was received in production in this period (2026-10-24 to 2026-11-20); did you mean "/pricing"?',
    ]);
    const none = await site.read("behavior_overview", { page: "/nowhere" });
    assert.deepEqual(unknown(none.notices), [
      'no page "/nowhere" was received in production in this period (2026-10-24 to 2026-11-20)',
    ]);

    // names that were received: nothing said
    for (
      const [tool, input] of [
        ["behavior_trends", { event: "sign_up" }],
        ["behavior_trends", {}],
        ["behavior_overview", { page: "/pricing" }],
      ] as const
    ) {
      const a = await site.read(tool, input);
      assert.deepEqual(unknown(a.notices), [], `${tool} ${JSON.stringify(input)}`);
    }
  } finally {
    await site.close();
  }
});
