/**
 * The `touchpoint` input by id, name or domain: names are not unique and a name may be another's domain, so a
 * value that fits several websites and apps is a 422 naming them (never the first one's figures); an id, or a
 * name or domain that fits one, answers.
 */
import assert from "node:assert/strict";
import { harness } from "./harness.ts";
import { adminCall } from "../helpers/tenant.ts";
import { TEST_ADMIN_TOKEN } from "../helpers/deps.ts";

Deno.test("touchpoint input: a name or domain that fits two is a 422 naming both; an id or a single fit answers", async () => {
  const h = await harness({ visitors: 5 });
  try {
    const admin = (body: unknown) =>
      adminCall(h.app, TEST_ADMIN_TOKEN, "POST", `/orgs/${h.t.org}/touchpoints`, body);
    const twin = await admin({ name: "Acme site", kind: "website", domain: "other.test" }) as { id: string };
    const app = await admin({ name: "acme.test", kind: "ios" }) as { id: string };
    for (
      const [value, ids] of [["Acme site", [h.t.touchpoint, twin.id]], ["ACME.TEST", [
        h.t.touchpoint,
        app.id,
      ]]] as const
    ) {
      const res = await h.askRaw("behavior_overview", { touchpoint: value, period: "last_7_days" });
      assert.equal(res.status, 422, value);
      const { error } = await res.json();
      assert.match(error, new RegExp(`touchpoint "${value}" fits 2 websites and apps`));
      for (const id of ids) assert.ok(error.includes(id), `${value}: ${error}`);
      assert.match(error, /give its id/);
    }
    for (
      const [value, id] of [[twin.id, twin.id], ["other.test", twin.id], [h.t.touchpoint, h.t.touchpoint]]
    ) {
      const a = await h.ask("behavior_overview", { touchpoint: value, period: "last_7_days" });
      assert.equal(a.scope.touchpoint.id, id, value);
    }
  } finally {
    h.close();
  }
});
