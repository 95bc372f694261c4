/** Saved items: names taken once per organization, authors and roles, checks at save time, clear 422s. */
import assert from "node:assert/strict";
import { testDeps } from "../../helpers/deps.ts";
import {
  createSaved,
  deleteSaved,
  type Editor,
  findSaved,
  listSaved,
  updateSaved,
} from "../../../lib/saved/store.ts";
import { checkInsightInput } from "../../../pipeline/saved_insights.ts";
import { HttpError } from "../../../lib/errors.ts";

const owner: Editor = { user: "u-owner", role: "owner" };
const admin: Editor = { user: "u-admin", role: "admin" };
const alice: Editor = { user: "u-alice", role: "member" };
const bob: Editor = { user: "u-bob", role: "member" };

async function status(p: Promise<unknown>): Promise<[number, string]> {
  try {
    await p;
    return [200, ""];
  } catch (e) {
    if (e instanceof HttpError) return [e.status, e.message];
    throw e;
  }
}

Deno.test("saved items: names unique per organization, members change their own, owners and admins all", async () => {
  const deps = await testDeps();
  const opts = (editor: Editor, org = "org1") => ({
    kv: deps.kv,
    clock: deps.clock,
    org,
    editor,
    touchpoints: ["tp1"],
    checkInsight: checkInsightInput,
  });
  try {
    const def = { kind: "event", event: "purchase" };
    const c = await createSaved(opts(alice), "cohort", {
      name: "Buyers",
      touchpoint: "tp1",
      definition: def,
    });
    assert.equal(c.author, alice.user);
    // the name is taken in the organization, whatever the case or kind
    assert.equal(
      (await status(
        createSaved(opts(bob), "cohort", { name: "buyers", touchpoint: "tp1", definition: def }),
      ))[0],
      409,
    );
    const [s, msg] = await status(createSaved(opts(bob), "insight", {
      name: "BUYERS",
      touchpoint: "tp1",
      tool: "behavior_pages",
      input: {},
    }));
    assert.equal(s, 409);
    assert.match(msg, /the name "BUYERS" is taken/);
    // another organization may use it
    await createSaved(opts(bob, "org2"), "cohort", { name: "Buyers", touchpoint: "tp1", definition: def });

    // bob (a member) may not change alice's cohort; an admin may; alice may rename hers
    assert.equal(
      (await status(
        updateSaved(opts(bob), "cohort", c.id, { name: "Mine", touchpoint: "tp1", definition: def }),
      ))[0],
      403,
    );
    assert.equal((await status(deleteSaved(deps.kv, "org1", bob, "cohort", c.id)))[0], 403);
    deps.clock.advance(60_000);
    const renamed = await updateSaved(opts(alice), "cohort", c.id, {
      name: "Big buyers",
      touchpoint: "tp1",
      definition: def,
    });
    assert.notEqual(renamed.updated_at, c.updated_at);
    assert.equal(await findSaved(deps.kv, "org1", "buyers"), null, "the old name is free again");
    assert.equal((await findSaved(deps.kv, "org1", "BIG BUYERS"))?.id, c.id);
    await createSaved(opts(bob), "cohort", { name: "Buyers", touchpoint: "tp1", definition: def });
    await updateSaved(opts(admin), "cohort", c.id, {
      name: "Big buyers",
      touchpoint: "tp1",
      definition: { not: def },
    });
    assert.equal(
      (await status(
        updateSaved(opts(owner), "cohort", c.id, { name: "buyers", touchpoint: "tp1", definition: def }),
      ))[0],
      409,
    );
    await deleteSaved(deps.kv, "org1", owner, "cohort", c.id);
    assert.deepEqual((await listSaved(deps.kv, "org1", "cohort")).map((x) => x.name), ["Buyers"]);
  } finally {
    deps.kv.close();
  }
});

Deno.test("saved items: definitions, insights and dashboards are checked when saved, naming what is wrong", async () => {
  const deps = await testDeps();
  const o = {
    kv: deps.kv,
    clock: deps.clock,
    org: "org1",
    editor: owner,
    touchpoints: ["tp1"],
    checkInsight: checkInsightInput,
  };
  try {
    const bad = async (
      kind: "cohort" | "insight" | "dashboard",
      body: Record<string, unknown>,
      re: RegExp,
    ) => {
      const [s, msg] = await status(createSaved(o, kind, { name: "x", touchpoint: "tp1", ...body }));
      assert.equal(s, 422, msg);
      assert.match(msg, re);
    };
    await bad("cohort", { definition: { kind: "page" } }, /give either path or prefix/);
    await bad("cohort", { definition: { kind: "country", values: ["germany"] } }, /two-letter country code/);
    await bad("cohort", {
      definition: { kind: "event", event: "a", window: { from: "2026-11-10", to: "2026-11-01" } },
    }, /from is after to/);
    await bad("cohort", {
      definition: {
        all: Array.from(
          { length: 10 },
          () => ({ any: [{ kind: "event", event: "a" }, { kind: "event", event: "b" }] }),
        ),
      },
    }, /at most 12 conditions/);
    await bad("insight", { tool: "behavior_saved", input: {} }, /no read tool "behavior_saved"/);
    await bad(
      "insight",
      { tool: "behavior_funnel", input: { steps: [{ page: "/" }] } },
      /input of behavior_funnel: steps/,
    );
    await bad("insight", { tool: "behavior_pages", input: { touchpoint: "x" } }, /chosen apart/);
    await bad("dashboard", { insights: ["nope"] }, /no saved insight "nope"/);
    await bad("dashboard", { insights: [] }, /pick at least one insight/);
    const [s, msg] = await status(
      createSaved(o, "cohort", { name: "x", touchpoint: "tp9", definition: { kind: "event", event: "a" } }),
    );
    assert.deepEqual([s, msg], [422, 'touchpoint: no website or app "tp9"']);
    assert.deepEqual(await listSaved(deps.kv, "org1", "cohort"), [], "nothing stored by a refused save");
  } finally {
    deps.kv.close();
  }
});
