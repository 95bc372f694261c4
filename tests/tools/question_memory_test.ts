/**
 * A question's working memory is bounded by configuration (lib/working_memory.ts): past QUESTION_MEMORY_MB a
 * read tool answers a 422 naming the setting instead of growing the process, the next questions go on, and
 * once answered no question holds anything. Through the HTTP read API on a real KV file, with a generated
 * site on the table path (the part cache too small for a scan).
 */
import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { generateSite } from "../../lib/demo/site.ts";
import { openSite, type Site } from "../helpers/site.ts";
import { explainedInPasses } from "../../lib/query/rollup/explain_answers.ts";
import { sourcesInPasses } from "../../lib/query/rollup/sources_from_runs.ts";
import { overviewInPasses } from "../../lib/query/rollup/plain_answers.ts";

const NOW = Date.parse("2026-11-20T12:00:00Z");

/**
 * The generated site the three tests read (14 days, 10,000 events, 1,000 visitors): generated once, by the
 * first test that runs; the last to finish closes it (the module's unload, when a filter ran only some). The
 * tests only read it (each through apps of its own configuration: the site's app allows 16 kB a question, the
 * others' apps their own limits), so each sees the site as generated. Sharing it leaves the KV open across
 * tests: their resource sanitizer is off.
 */
const TESTS = {
  limit:
    "working memory: a question past QUESTION_MEMORY_MB is a 422 naming it; within it, answered (explain-a-change in passes), nothing held after",
  sources:
    "working memory: behavior_sources past one pass's room answers in passes over visitor ranges, the same body",
  overview:
    "working memory: behavior_overview past one pass's room counts its session totals in passes over visitor ranges, the same body",
};
const pending = new Set(Object.values(TESTS));
let generated: Promise<Site> | undefined;
let opened: Site | undefined; // for the unload's synchronous end

function generatedSite(): Promise<Site> {
  return generated ??= (async () => {
    const site = await openSite({
      now: NOW,
      config: { partCacheBytes: 1, questionMemoryBytes: 16 * 1024, readKeyRatePerMinute: 1e6 },
    });
    opened = site;
    await generateSite(site.deps, {
      org: site.t.org,
      touchpoint: site.t.touchpoint,
      host: site.t.domain,
      events: 10_000,
      visitors: 1_000,
      days: 14,
      seed: 7,
      end: NOW - 3_600_000,
      direct: true,
    });
    return site;
  })();
}

async function finished(name: string) {
  pending.delete(name);
  if (pending.size) return;
  const site = opened;
  generated = opened = undefined;
  await site?.close();
}

globalThis.addEventListener("unload", () => {
  if (!opened) return;
  opened.kv.close();
  try {
    Deno.removeSync(opened.dir, { recursive: true });
  } catch { /* already removed */ }
});

/** A test on the shared site: the site as generated, ended with `finished`. */
function siteTest(name: string, fn: (site: Site) => Promise<void>) {
  Deno.test({
    name,
    sanitizeResources: false,
    async fn() {
      try {
        await fn(await generatedSite());
      } finally {
        await finished(name);
      }
    },
  });
}

siteTest(TESTS.limit, async (site) => {
  const ask = { period: "last_7_days" };
  const refused = await site.ask("behavior_explain_change", ask);
  const body = await refused.json();
  assert.equal(refused.status, 422, JSON.stringify(body));
  assert.equal(body.code, "VALIDATION_ERROR");
  assert.match(body.error, /the 16 kB of working memory .*QUESTION_MEMORY_MB/);
  assert.match(body.error, /shorter period/);
  const engine = site.app.ctx.engine;
  assert.equal(engine.workingMemory().held, 0, "the refused question let go of what it held");
  // the same question with room (the default: the scan's share of PART_CACHE_MB, at least 8 MB)
  const roomy = createApp({ ...site.deps, config: { ...site.deps.config, questionMemoryBytes: 0 } });
  const res = await roomy.request("/v1/read/behavior_explain_change", {
    method: "POST",
    headers: { authorization: `Bearer ${site.t.readKey}`, "content-type": "application/json" },
    body: JSON.stringify(ask),
  });
  const answered = await res.json();
  assert.equal(res.status, 200, JSON.stringify(answered));
  const memory = roomy.ctx.engine.workingMemory();
  assert.equal(memory.limit, 8 * 1048576);
  assert.ok(memory.peakQuestion > 16 * 1024, `it held ${memory.peakQuestion} bytes while answering`);
  assert.equal(memory.held, 0, "nothing held once answered");
  // with less than that, explain-a-change reads the first rows in passes over ranges of visitor numbers
  // (each pass reading the parts again): the same answer within the limit (on this small site the rollup
  // pieces its two windows' pageviews read are half of what it holds: a limit a little under the roomy
  // peak leaves the first rows too little for one pass)
  const before = { ...explainedInPasses };
  const tight = createApp({
    ...site.deps,
    config: { ...site.deps.config, questionMemoryBytes: Math.ceil(memory.peakQuestion * 0.85) },
  });
  const inPasses = await tight.request("/v1/read/behavior_explain_change", {
    method: "POST",
    headers: { authorization: `Bearer ${site.t.readKey}`, "content-type": "application/json" },
    body: JSON.stringify(ask),
  });
  const passed = await inPasses.json();
  assert.equal(inPasses.status, 200, JSON.stringify(passed));
  assert.ok(explainedInPasses.answers > before.answers, "answered in passes");
  assert.ok(explainedInPasses.passes - before.passes >= 2 * (explainedInPasses.answers - before.answers));
  assert.deepEqual(passed, answered);
  const tightMemory = tight.ctx.engine.workingMemory();
  assert.ok(tightMemory.peakQuestion <= tightMemory.limit, "held no more than its limit");
  assert.equal(tightMemory.held, 0);
  // a question the tables cannot answer (a property's value) scans: the period's parts, decoded, are
  // counted before any is read, past the limit a 422 (a month of 10M events scanned held ~1.6 GB)
  const byPlan = { period: "last_7_days", event: "purchase", property: "plan", property_value: "pro" };
  const scanned = await site.ask("behavior_trends", byPlan);
  assert.equal(scanned.status, 422, await scanned.text());
  assert.equal(engine.workingMemory().held, 0);
  const roomyTrend = await roomy.request("/v1/read/behavior_trends", {
    method: "POST",
    headers: { authorization: `Bearer ${site.t.readKey}`, "content-type": "application/json" },
    body: JSON.stringify(byPlan),
  });
  assert.equal(roomyTrend.status, 200, await roomyTrend.text());
  // on the small limit, a question whose own working set fits it still answers
  const account = await site.ask("account_overview", {});
  assert.equal(account.status, 200, await account.text());
});

siteTest(TESTS.sources, async (site) => {
  const ask = (app: ReturnType<typeof createApp>) =>
    app.request("/v1/read/behavior_sources", {
      method: "POST",
      headers: { authorization: `Bearer ${site.t.readKey}`, "content-type": "application/json" },
      body: JSON.stringify({ period: "last_7_days" }),
    });
  const before = { ...sourcesInPasses };
  const roomy = createApp({ ...site.deps, config: { ...site.deps.config, questionMemoryBytes: 0 } });
  const res = await ask(roomy);
  const answered = await res.json();
  assert.equal(res.status, 200, JSON.stringify(answered));
  assert.equal(sourcesInPasses.answers, before.answers, "one pass with room");
  const memory = roomy.ctx.engine.workingMemory();
  assert.equal(memory.held, 0);
  // a limit under the roomy question's peak: the period's runs, keys and arrays by session would pass half
  // of what it may hold, so they are read in passes over ranges of visitor numbers (a 422 before)
  const tight = createApp({
    ...site.deps,
    config: { ...site.deps.config, questionMemoryBytes: Math.ceil(memory.peakQuestion * 0.85) },
  });
  const inPasses = await ask(tight);
  const passed = await inPasses.json();
  assert.equal(inPasses.status, 200, JSON.stringify(passed));
  assert.ok(sourcesInPasses.answers > before.answers, "answered in passes");
  assert.ok(sourcesInPasses.passes - before.passes >= 2);
  assert.deepEqual(passed, answered);
  const tightMemory = tight.ctx.engine.workingMemory();
  assert.ok(tightMemory.peakQuestion <= tightMemory.limit, "held no more than its limit");
  assert.equal(tightMemory.held, 0);
  console.log(
    `roomy peak ${memory.peakQuestion} B; at ${tightMemory.limit} B: ${
      sourcesInPasses.passes - before.passes
    } passes, peak ${tightMemory.peakQuestion} B`,
  );
});

siteTest(TESTS.overview, async (site) => {
  const ask = (app: ReturnType<typeof createApp>) =>
    app.request("/v1/read/behavior_overview", {
      method: "POST",
      headers: { authorization: `Bearer ${site.t.readKey}`, "content-type": "application/json" },
      body: JSON.stringify({ period: "last_7_days" }),
    });
  const before = { ...overviewInPasses };
  const roomy = createApp({ ...site.deps, config: { ...site.deps.config, questionMemoryBytes: 0 } });
  const res = await ask(roomy);
  const answered = await res.json();
  assert.equal(res.status, 200, JSON.stringify(answered));
  assert.equal(overviewInPasses.answers, before.answers, "one pass with room");
  const memory = roomy.ctx.engine.workingMemory();
  assert.equal(memory.held, 0);
  // limits under the roomy question's peak: where the period's keys, engaged counts and shared-key table
  // pass half of what the question may still hold, its session totals are counted in passes over ranges of
  // visitor numbers (each reading the parts' keys again); the same body, or a 422, never another answer
  let passed = 0;
  for (const share of [0.98, 0.95, 0.92, 0.89, 0.85]) {
    const tight = createApp({
      ...site.deps,
      config: { ...site.deps.config, questionMemoryBytes: Math.ceil(memory.peakQuestion * share) },
    });
    const was = { ...overviewInPasses };
    const got = await ask(tight);
    const body = await got.json();
    // (a refusal answers while the tool's other questions still end: they let go as they do)
    for (
      let waited = 0;
      got.status === 422 && waited < 50 && tight.ctx.engine.workingMemory().held;
      waited++
    ) {
      await new Promise((r) => setTimeout(r, 100));
    }
    const tightMemory = tight.ctx.engine.workingMemory();
    assert.ok(tightMemory.peakQuestion <= tightMemory.limit, "held no more than its limit");
    assert.equal(tightMemory.held, 0);
    console.log(
      `roomy peak ${memory.peakQuestion} B; at ${tightMemory.limit} B: ${got.status}, ${
        overviewInPasses.passes - was.passes
      } passes, peak ${tightMemory.peakQuestion} B`,
    );
    if (got.status === 422) continue;
    assert.equal(got.status, 200, JSON.stringify(body));
    assert.deepEqual(body, answered);
    if (overviewInPasses.answers > was.answers) {
      passed++;
      assert.ok(overviewInPasses.passes - was.passes >= 2);
    }
  }
  assert.ok(passed > 0, "answered in passes");
});
