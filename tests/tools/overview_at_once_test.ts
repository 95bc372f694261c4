/**
 * behavior_overview asks the engine every question at once: the automated traffic's figures and crawler hits
 * are read while the people's figures are (at 10M events they were asked only after those, and a cold ask
 * spent its last 100-300 ms on them alone). The answer is the same either way: the tool's other tests.
 */
import assert from "node:assert/strict";
import { harness } from "./harness.ts";

Deno.test("behavior_overview: the bots' and crawler hits' questions start before the people's figures are in", async () => {
  const h = await harness();
  const engine = h.app.ctx.engine;
  const log: string[] = [];
  const watch = <K extends "aggregateMany" | "aggregate" | "hitsAggregate">(name: K) => {
    const own = engine[name].bind(engine) as (...a: unknown[]) => Promise<unknown>;
    // deno-lint-ignore no-explicit-any
    (engine as any)[name] = async (...a: unknown[]) => {
      log.push(`start ${name}`);
      const got = await own(...a);
      log.push(`end ${name}`);
      return got;
    };
  };
  watch("aggregateMany");
  watch("aggregate");
  watch("hitsAggregate");
  const a = await h.ask("behavior_overview", { period: "last_7_days" });
  assert.ok(typeof a.visitors.value === "number" && a.visitors.value > 0);
  assert.ok(a.bots_and_ai_agents.crawler_requests.value > 0, "the site has crawler hits");
  const firstEnd = log.indexOf("end aggregateMany");
  assert.ok(firstEnd > 0, log.join(", "));
  const before = log.slice(0, firstEnd);
  // this period and the one before: the people's figures, the bots' and the crawler hits'
  assert.equal(before.filter((x) => x === "start aggregateMany").length, 2, log.join(", "));
  assert.equal(before.filter((x) => x === "start aggregate").length, 2, log.join(", "));
  assert.equal(before.filter((x) => x === "start hitsAggregate").length, 2, log.join(", "));
  h.close();
});
