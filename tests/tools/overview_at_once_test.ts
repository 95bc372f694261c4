/**
 * behavior_overview asks the engine the automated traffic's figures and crawler hits while this period's people
 * figures are still read: once the previous period's are in (at 10M events they were asked only after both, and
 * a cold ask spent its last 100-300 ms on them alone). The answer is the same either way: the tool's other tests.
 */
import assert from "node:assert/strict";
import { harness } from "./harness.ts";
import type { Scope } from "../../lib/query/api.ts";

Deno.test("behavior_overview: the bots' and crawler hits' questions start before this period's people figures are in", async () => {
  const h = await harness();
  const engine = h.app.ctx.engine;
  const log: string[] = [];
  // this period's people figures are held until the crawler hits are asked (or, so a tool that never asks
  // them meanwhile does not hang, a while after the previous period's are in)
  let release = () => {};
  const held = new Promise<void>((r) => release = r);
  let latest = -Infinity;
  const own = {
    aggregateMany: engine.aggregateMany.bind(engine),
    aggregate: engine.aggregate.bind(engine),
    hitsAggregate: engine.hitsAggregate.bind(engine),
  };
  engine.aggregateMany = async (s: Scope, q) => {
    latest = Math.max(latest, s.from);
    const mine = s.from;
    log.push(`start aggregateMany`);
    const got = await own.aggregateMany(s, q);
    // (both periods are asked in the same turn: `latest` is this period's start by now)
    if (mine === latest) await held;
    else setTimeout(release, 2_000);
    log.push(mine === latest ? "end this period" : "end previous period");
    return got;
  };
  engine.aggregate = async (s, q) => {
    log.push("start aggregate");
    return await own.aggregate(s, q);
  };
  engine.hitsAggregate = async (s, q) => {
    log.push("start hitsAggregate");
    release();
    return await own.hitsAggregate(s, q);
  };
  const a = await h.ask("behavior_overview", { period: "last_7_days" });
  assert.ok(typeof a.visitors.value === "number" && a.visitors.value > 0);
  assert.ok(a.bots_and_ai_agents.crawler_requests.value > 0, "the site has crawler hits");
  const end = log.indexOf("end this period");
  assert.ok(end > 0, log.join(", "));
  const before = log.slice(0, end);
  // this period and the one before: the bots' events and the crawler hits
  assert.equal(before.filter((x) => x === "start aggregate").length, 2, log.join(", "));
  assert.equal(before.filter((x) => x === "start hitsAggregate").length, 2, log.join(", "));
  h.close();
});
