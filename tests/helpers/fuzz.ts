/**
 * Property-based hostile bodies for every endpoint, sent through `app.request`, and the checks each answer
 * must pass: no 5xx; every record a 2xx stored is readable back from KV, well-formed, and holds what was
 * sent; every answer body is JSON (or MCP's event stream of JSON) whose strings are well-formed Unicode.
 * Used by tests/routes/fuzz_test.ts (a few thousand cases) and bench/fuzz.ts (100,000).
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { createApp } from "../../app.ts";
import { compactAll } from "../../lib/jobs/compact.ts";
import { jsonProblem } from "../../lib/schemas/json_limits.ts";
import { unpackEvent } from "../../lib/store/event_codec.ts";
import { keys } from "../../lib/store/keys.ts";
import type { StoredEvent, StoredHit } from "../../lib/store/records.ts";
import { TOOLS } from "../../tools/registry.ts";
import { listing } from "../../pipeline/listing.ts";
import { generateSite } from "../../lib/demo/site.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "./deps.ts";
import { createTenant, type Tenant } from "./tenant.ts";
import {
  asBytes,
  eventText,
  field,
  hitText,
  isoTime,
  mutate,
  mutation,
  nastyJson,
  nastyString,
  objectText,
} from "./fuzz_bodies.ts";

export const ENDPOINTS = ["events", "server-events", "import", "read", "mcp"] as const;
export type Endpoint = typeof ENDPOINTS[number];

/** What a stored record or an answer may hold at most: deeper than any schema allows, and well-formed. */
const SANE = { depth: 48, keys: 1_000_000, strings: 1_000_000 };

export interface FuzzWorld {
  deps: Awaited<ReturnType<typeof testDeps>>;
  app: ReturnType<typeof createApp>;
  t: Tenant;
  /** event and hit ids (lower case) stored so far: a repeat is a duplicate, not a new record */
  storedIds: Set<string>;
  statuses: Record<Endpoint, Map<number, number>>;
}

/** One app on a :memory: KV with an enterprise organization, a small compacted history, limits out of the way. */
export async function fuzzWorld(): Promise<FuzzWorld> {
  const deps = await testDeps();
  deps.config = {
    ...deps.config,
    publicKeyRatePerMinute: 1e9,
    serverKeyRatePerMinute: 1e9,
    readKeyRatePerMinute: 1e9,
  };
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN, { plan: "enterprise" });
  await generateSite(deps, {
    org: t.org,
    touchpoint: t.touchpoint,
    host: t.domain,
    events: 400,
    days: 10,
    seed: 3,
  });
  const statuses = Object.fromEntries(ENDPOINTS.map((e) => [e, new Map()])) as FuzzWorld["statuses"];
  return { deps, app, t, storedIds: new Set(), statuses };
}

// ---------------------------------------------------------------- cases

export interface Case {
  endpoint: Endpoint;
  send(w: FuzzWorld): Promise<void>;
}

async function answerJson(res: Response, where: string): Promise<unknown> {
  const text = await res.text();
  if (res.status === 204 || res.status === 202 && text === "") return null;
  const type = res.headers.get("content-type") ?? "";
  const docs = type.includes("text/event-stream")
    ? text.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5))
    : [text];
  let last: unknown = null;
  for (const doc of docs) {
    try {
      last = JSON.parse(doc);
    } catch {
      assert.fail(`${where}: answer ${res.status} is not JSON: ${doc.slice(0, 200)}`);
    }
    const problem = jsonProblem(last, SANE);
    assert.equal(problem, null, `${where}: answer ${res.status}: ${JSON.stringify(problem)}`);
  }
  return last;
}

function noServerError(w: FuzzWorld, endpoint: Endpoint, res: Response, body: unknown) {
  const seen = w.statuses[endpoint];
  seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
  assert.ok(res.status < 500, `${endpoint}: ${res.status} ${JSON.stringify(body)}`);
}

/** Every record stored at `at` under `prefix` is readable, sane, and one of the ids sent. */
async function readBack<T>(w: FuzzWorld, prefix: Deno.KvKey, at: number, decode: (v: unknown) => T) {
  const out: T[] = [];
  for await (const e of w.deps.kv.list({ prefix: [...prefix, at] })) {
    const rec = decode(e.value);
    assert.equal(jsonProblem(rec, SANE), null, `stored record ${JSON.stringify(e.key)} is not sane`);
    JSON.stringify(rec);
    out.push(rec);
  }
  return out;
}

/** The JSON value of `text` as a free-form field holds it once stored (parsed the way ingest parses it). */
const parsedField = (body: unknown, i: number, name: string) =>
  ((body as { batch?: Record<string, unknown>[] })?.batch?.[i] ?? {})[name];

function webCase(w0Host: string): fc.Arbitrary<Case> {
  return fc.tuple(
    fc.oneof({ weight: 30, arbitrary: fc.array(eventText(w0Host), { minLength: 1, maxLength: 3 }) }, {
      weight: 1,
      arbitrary: fc.constant([]),
    }),
    fc.nat({ max: 99 }),
    fc.nat({ max: 99 }),
    mutation,
  ).map(([events, keyRoll, shapeRoll, spoil]) => ({
    endpoint: "events" as const,
    async send(w: FuzzWorld) {
      const key = keyRoll < 95 ? JSON.stringify(w.t.publicKey) : '"svc_pk_nope"';
      const body = `{"api_key":${key},"batch":[${events.join(",")}]${shapeRoll < 3 ? ',"x":1' : ""}}`;
      const sent = mutate(body, spoil);
      const at = w.deps.clock.now();
      const res = await w.app.request("/v1/behavior/events", {
        method: "POST",
        headers: { "content-type": "application/json", origin: `https://${w.t.domain}` },
        body: sent,
      });
      const answer = await answerJson(res, "events");
      noServerError(w, "events", res, answer);
      if (res.status !== 204) return;
      const parsed = JSON.parse(body) as { batch: { event_id: string }[] };
      const fresh = [...new Set(parsed.batch.map((e) => e.event_id.toLowerCase()))].filter((id) =>
        !w.storedIds.has(id)
      );
      const stored = await readBack(w, keys.rawEvents(w.t.org, "production"), at, unpackEvent);
      assert.deepEqual(stored.map((e) => e.id).sort(), fresh.sort(), "events: stored ids");
      for (const e of stored as StoredEvent[]) {
        w.storedIds.add(e.id);
        const i = parsed.batch.findIndex((x) => x.event_id.toLowerCase() === e.id);
        assert.deepEqual(e.properties, parsedField(parsed, i, "properties"), "events: properties as sent");
        assert.deepEqual(e.context, parsedField(parsed, i, "context") ?? {}, "events: context as sent");
      }
    },
  }));
}

function hitsCase(host: string): fc.Arbitrary<Case> {
  return fc.tuple(
    fc.array(hitText(host), { minLength: 0, maxLength: 6 }),
    fc.option(field(isoTime), { nil: null }),
  )
    .chain(([hits, sentAt]) =>
      asBytes(objectText([["sent_at", sentAt], ["events", `[${hits.join(",")}]`]])).map((bytes) => ({
        endpoint: "server-events" as const,
        async send(w: FuzzWorld) {
          const at = w.deps.clock.now();
          const res = await w.app.request("/v1/behavior/server-events", {
            method: "POST",
            headers: { "content-type": "application/json", authorization: `Bearer ${w.t.serverKey}` },
            body: bytes,
          });
          const answer = await answerJson(res, "server-events") as { accepted: number } | null;
          noServerError(w, "server-events", res, answer);
          if (res.status !== 202) return;
          const stored = await readBack(w, keys.rawHits(w.t.org, "production"), at, (v) => v as StoredHit);
          assert.equal(stored.length, answer!.accepted, "server-events: accepted = stored");
          for (const h of stored) {
            assert.ok(!w.storedIds.has(h.id), "server-events: a hit stored twice");
            w.storedIds.add(h.id);
          }
        },
      }))
    );
}

function importCase(host: string): fc.Arbitrary<Case> {
  const eventLine = fc.tuple(eventText(host), isoTime).map(([e, at]) =>
    `{"kind":"event","received_at":${JSON.stringify(at)},"ip":"81.2.69.1",` + e.slice(1)
  );
  const hitLine = hitText(host).map((h) => `{"kind":"hit",` + h.slice(1));
  const line = fc.oneof(
    { weight: 5, arbitrary: eventLine },
    { weight: 3, arbitrary: hitLine },
    { weight: 1, arbitrary: nastyJson.map((v) => JSON.stringify(v) ?? "") },
  );
  return fc.array(line, { minLength: 1, maxLength: 8 }).chain((lines) =>
    asBytes(lines.join("\n")).map((bytes) => ({
      endpoint: "import" as const,
      async send(w: FuzzWorld) {
        const res = await w.app.request(
          `/admin/v1/orgs/${w.t.org}/import?touchpoint=${w.t.touchpoint}&environment=production`,
          { method: "POST", headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }, body: bytes },
        );
        const answer = await answerJson(res, "import") as {
          imported: number;
          rejected: { line: number }[];
        } | null;
        noServerError(w, "import", res, answer);
        if (res.status !== 200) return;
        // every line the answer does not reject is stored (or was already): its record reads back
        const text = new TextDecoder().decode(bytes).split("\n");
        const rejected = new Set(answer!.rejected.map((r) => r.line));
        for (const [i, l] of text.entries()) {
          if (rejected.has(i + 1) || !l.trim()) continue;
          const item = JSON.parse(l) as { kind: string; event_id: string };
          const id = item.event_id.toLowerCase();
          const receivedAt = (await w.deps.kv.get<number>(keys.dedupe(w.t.org, id))).value;
          assert.ok(receivedAt !== null, `import: line ${i + 1} neither rejected nor stored`);
          const key = item.kind === "event"
            ? keys.rawEvent(w.t.org, "production", receivedAt, id)
            : keys.rawHit(w.t.org, "production", receivedAt, id);
          const raw = (await w.deps.kv.get(key)).value;
          if (raw === null) continue; // the id was stored before as the other kind: a duplicate
          const rec = item.kind === "event" ? unpackEvent(raw) : raw;
          assert.equal(jsonProblem(rec, SANE), null, `import: line ${i + 1} stored not sane`);
          w.storedIds.add(id);
        }
      },
    }))
  );
}

/** Inputs for a tool from its JSON Schema: its own fields with valid or nasty values, or anything. */
function toolInput(schema: { properties?: Record<string, { enum?: unknown[]; type?: string }> }) {
  const props = Object.entries(schema.properties ?? {});
  const value = (s: { enum?: unknown[]; type?: string }, name: string): fc.Arbitrary<unknown> => {
    const good: fc.Arbitrary<unknown>[] = [];
    if (s.enum) good.push(fc.constantFrom(...s.enum));
    if (name === "period") {
      good.push(fc.constantFrom("last_7_days", "today", "2026-11", "2026-11-01..2026-11-20"));
    }
    if (name === "page") good.push(fc.constantFrom("/", "/pricing", "/docs/a"));
    if (name === "touchpoint") good.push(fc.constant("acme.test"));
    if (name === "event") good.push(fc.constantFrom("$pageview", "$click", "signup"));
    if (s.type === "string" && !good.length) good.push(fc.string({ maxLength: 20 }));
    if (s.type === "integer" || s.type === "number") good.push(fc.integer({ min: 1, max: 100 }));
    return fc.oneof(
      { weight: 12, arbitrary: fc.oneof(...good, ...(good.length ? [] : [fc.jsonValue({ maxDepth: 2 })])) },
      { weight: 1, arbitrary: s.type === "string" ? nastyString : nastyJson },
    );
  };
  const own = props.length
    ? fc.record(Object.fromEntries(props.map(([k, s]) => [k, value(s, k)])), { requiredKeys: [] })
    : fc.constant({});
  return fc.oneof({ weight: 8, arbitrary: own }, { weight: 1, arbitrary: nastyJson });
}

const toolCall = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.constantFrom(...TOOLS).chain((tool) =>
      toolInput(listing(tool).input_schema as never).map((input) => ({ name: tool.name, input }))
    ),
  },
  { weight: 1, arbitrary: fc.tuple(nastyString, nastyJson).map(([name, input]) => ({ name, input })) },
);

function readCase(): fc.Arbitrary<Case> {
  return toolCall.chain(({ name, input }) =>
    asBytes(JSON.stringify(input) ?? "").map((bytes) => ({
      endpoint: "read" as const,
      async send(w: FuzzWorld) {
        const res = await w.app.request(`/v1/read/${encodeURIComponent(name.toWellFormed())}`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${w.t.readKey}` },
          body: bytes,
        });
        const answer = await answerJson(res, `read ${name}`);
        noServerError(w, "read", res, answer);
      },
    }))
  );
}

function mcpCase(): fc.Arbitrary<Case> {
  const rpc = fc.oneof(
    {
      weight: 8,
      arbitrary: toolCall.map(({ name, input }) => ({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name, arguments: input },
      })),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom("tools/list", "prompts/list", "initialize", "nope").map((method) => ({
        jsonrpc: "2.0",
        id: 2,
        method,
        params: {},
      })),
    },
    { weight: 1, arbitrary: nastyJson },
  );
  return rpc.chain((msg) =>
    asBytes(JSON.stringify(msg) ?? "").map((bytes) => ({
      endpoint: "mcp" as const,
      async send(w: FuzzWorld) {
        const res = await w.app.request("/mcp", {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            authorization: `Bearer ${w.t.readKey}`,
          },
          body: bytes,
        });
        const answer = await answerJson(res, "mcp");
        noServerError(w, "mcp", res, answer);
      },
    }))
  );
}

export function caseOf(endpoint: Endpoint, host: string): fc.Arbitrary<Case> {
  switch (endpoint) {
    case "events":
      return webCase(host);
    case "server-events":
      return hitsCase(host);
    case "import":
      return importCase(host);
    case "read":
      return readCase();
    case "mcp":
      return mcpCase();
  }
}

/**
 * Sends `cases` of one endpoint (the clock moves 1 ms per case, so each case's records are its own). The
 * first failure throws, shrunk; with `failures`, each is collected instead and the run goes on (the bench).
 */
export async function fuzzEndpoint(
  w: FuzzWorld,
  endpoint: Endpoint,
  cases: number,
  opts: { seed?: number; failures?: string[] } = {},
) {
  await fc.assert(
    fc.asyncProperty(caseOf(endpoint, w.t.domain), async (c) => {
      w.deps.clock.advance(1);
      if (!opts.failures) return await c.send(w);
      await c.send(w).catch((e) => opts.failures!.push(String(e?.message ?? e).slice(0, 500)));
    }),
    { numRuns: cases, seed: opts.seed, endOnFailure: true },
  );
}

/** The least input each tool that requires some needs: the rest answer `{}`. */
export const MINIMAL_INPUTS: Record<string, unknown> = {
  behavior_event_properties: { event: "$pageview" },
  behavior_funnel: { steps: [{ page: "/" }, { page: "/pricing" }] },
  behavior_paths: { page: "/" },
};

/** A tool's least input, and whether an ordinary answer (200) can be expected from it. */
export function minimalInput(tool: (typeof TOOLS)[number]): { input: unknown; answers: boolean } {
  if (tool.name in MINIMAL_INPUTS) return { input: MINIMAL_INPUTS[tool.name], answers: true };
  const required = (listing(tool).input_schema as { required?: string[] }).required ?? [];
  return { input: {}, answers: required.length === 0 }; // a new tool's required inputs: a 422, never a 5xx
}

/** After the fuzzing: compaction folds everything stored, and every tool still answers sane JSON. */
export async function compactAndReadAll(w: FuzzWorld) {
  w.deps.clock.advance(10 * 60_000);
  await compactAll(w.deps);
  for (const tool of TOOLS) {
    const { input, answers } = minimalInput(tool);
    const res = await w.app.request(`/v1/read/${tool.name}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${w.t.readKey}` },
      body: JSON.stringify(input),
    });
    const answer = await answerJson(res, `read ${tool.name} after compaction`);
    if (answers) assert.equal(res.status, 200, `${tool.name}: ${JSON.stringify(answer)}`);
    else assert.ok(res.status < 500, `${tool.name}: ${JSON.stringify(answer)}`);
  }
}
