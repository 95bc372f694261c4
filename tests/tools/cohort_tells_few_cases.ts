/**
 * A cohort whose "not", or one part of whose all/any, decides only 1 to 4 visitors is refused (a 422) while
 * the cohort itself has 5 or more: its exact counts beside the counts without that part gave those few
 * visitors away. Found from outside: `not: did odd with p containing "victim2@"` counted every visitor but
 * one, and guessed substrings rebuilt the value one visitor sent (spec rule 5: never named).
 */
import assert from "node:assert/strict";
import { harness } from "./harness.ts";
import { saveCohort } from "../helpers/saved.ts";
import { ev, store } from "../lib/query/fixtures.ts";
import { NOW } from "./generate.ts";

const odd = (value: string) => ({
  kind: "event" as const,
  event: "odd",
  property: { name: "p", op: "contains" as const, value },
});

Deno.test("cohort: a part that alone decides 1 to 4 of 5 or more members is refused; the same with 0 or 5+ is answered", async () => {
  const h = await harness({ visitors: 40 });
  try {
    // 8 visitors send "odd": one with a value of its own, seven with a shared one
    const events = Array.from({ length: 8 }, (_, v) =>
      ev({
        org: h.t.org,
        touchpoint: h.t.touchpoint,
        received_at: NOW - 3_600_000 + v,
        anonymous_id: `odd-${v}`,
        session_id: `odd-s-${v}`,
        event_type: "odd",
        path: "/",
        properties: { p: v === 0 ? "victim2@example.com" : `shared${v}@corp.test` },
      }));
    await store(h.deps.kv, { events });
    const cohorts: [string, unknown, boolean][] = [
      // a "not" over 1 visitor: every visitor but one
      ["not the one", { not: odd("victim2@") }, false],
      // the same shape over nobody, and over 7: answered
      ["not nobody", { not: odd("zzz@") }, true],
      ["not the seven", { not: odd("@corp.test") }, true],
      // an any whose part adds only the one visitor to the seven
      ["the seven or the one", { any: [odd("@corp.test"), odd("victim2@")] }, false],
      // an all whose part leaves out only the one of the eight
      ["odd but not the one", { all: [{ kind: "event", event: "odd" }, { not: odd("victim2@") }] }, false],
      // an all of 1 member reads "fewer than 5" anyway: answered
      ["the one", { all: [{ kind: "event", event: "odd" }, odd("victim2@")] }, true],
    ];
    for (const [name, definition, answered] of cohorts) {
      await saveCohort(h.deps, h.t.org, h.t.touchpoint, name, definition as never);
      for (const tool of ["behavior_overview", "behavior_pages"]) {
        const res = await h.askRaw(tool, { cohort: name, period: "last_7_days" });
        const body = await res.json();
        if (answered) {
          assert.equal(res.status, 200, `${tool} ${name}: ${JSON.stringify(body)}`);
        } else {
          assert.equal(res.status, 422, `${tool} ${name}: ${JSON.stringify(body).slice(0, 300)}`);
          assert.match(body.error, /leaves out or adds only 1 to 4 visitors/);
        }
      }
      const saved = await h.askRaw("behavior_saved", { action: "cohort", name, period: "last_7_days" });
      assert.equal(saved.status, answered ? 200 : 422, `behavior_saved ${name}`);
      await saved.body?.cancel();
    }
  } finally {
    h.close();
  }
});
