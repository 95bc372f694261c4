/**
 * An automated visitor seen through the web SDK from a non-public address (the service behind a proxy it
 * does not look behind) is unverifiable at arrival with the reason, as a server hit is: it does not wait
 * "pending" for the verification sweep. A public address still waits for its check.
 */
import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { keys } from "../../lib/store/keys.ts";
import type { VerificationRecord } from "../../lib/store/records.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../helpers/deps.ts";
import { createTenant } from "../helpers/tenant.ts";
import { event } from "../helpers/events.ts";

const GPTBOT =
  "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.3; +https://openai.com/gptbot";

Deno.test("events: a crawler from a private or loopback address is decided at arrival, not left pending", async () => {
  const dir = await Deno.makeTempDir();
  const deps = await testDeps({ kv: await Deno.openKv(`${dir}/kv.sqlite3`) });
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN);
  try {
    const sent: Record<string, string> = {};
    for (const ip of ["10.0.0.5", "127.0.0.1", "::1", "20.171.206.33"]) {
      const ev = event({ context: { user_agent: GPTBOT } });
      sent[ip] = ev.event_id as string;
      const res = await app.fetch(
        new Request("http://svc/v1/behavior/events", {
          method: "POST",
          headers: { "content-type": "application/json", origin: "https://acme.test", "user-agent": GPTBOT },
          body: JSON.stringify({ api_key: t.publicKey, batch: [ev] }),
        }),
        { remoteAddr: { hostname: ip } },
      );
      assert.equal(res.status, 204, await res.text());
    }
    const pending: string[] = [];
    for await (const e of deps.kv.list<{ hits: [string, string][] }>({ prefix: keys.verifyPendingAll() })) {
      pending.push(...e.value.hits.map(([id]) => id));
    }
    for (const [ip, id] of Object.entries(sent)) {
      const v = (await deps.kv.get<VerificationRecord>(keys.verification(t.org, id))).value;
      if (ip === "20.171.206.33") {
        assert.equal(v, null, "a public address waits for its check");
        assert.ok(pending.includes(id));
        continue;
      }
      assert.equal(v?.outcome, "unverifiable", ip);
      assert.match(v?.reason ?? "", /not a public address \((private|loopback)\)/, ip);
      assert.ok(!pending.includes(id), `${ip} left pending`);
    }
  } finally {
    deps.kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
