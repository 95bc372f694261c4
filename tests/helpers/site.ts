/**
 * A site on a real KV file: a temporary KV file, the app (createApp) on it, an organization with a website
 * touchpoint and keys of every kind (createTenant), and the calls tests make through the HTTP interface:
 * ingest, crawler hits, read tools, the compaction job. `close()` closes the KV and removes the file.
 */
import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import type { Config } from "../../lib/config.ts";
import { compactAll } from "../../lib/jobs/compact.ts";
import { unpackEvent } from "../../lib/store/event_codec.ts";
import { keys } from "../../lib/store/keys.ts";
import type { EnvName, StoredEvent } from "../../lib/store/records.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "./deps.ts";
import { adminCall, createTenant } from "./tenant.ts";

/** A visitor's pageview of `path` on acme.test, as the web SDK sends it (`seq` also sets its second). */
export const pageview = (visitor: number, seq: number, path: string) => ({
  event_id: crypto.randomUUID(),
  anonymous_id: `v${visitor}`,
  session_id: `s${visitor}`,
  sequence_no: seq,
  platform: "web",
  event_type: "$pageview",
  screen: path,
  properties: { path, url: `https://acme.test${path}` },
  device_time: `2026-11-18T10:00:0${seq}.000Z`,
});

/** A visitor's pageview of `path` as it happened at `at` (its device time), in session `session`. */
export const pageviewAt = (visitor: number, path: string, at: number, session = `s${visitor}`) => ({
  ...pageview(visitor, 0, path),
  session_id: session,
  device_time: new Date(at).toISOString(),
});

export async function openSite(opts: { now: number; config?: Partial<Config> }) {
  const dir = await Deno.makeTempDir({ prefix: "site-" });
  const kv = await Deno.openKv(`${dir}/kv.sqlite3`);
  const deps = await testDeps({ kv });
  deps.config = { ...deps.config, ...opts.config };
  deps.clock.set(opts.now);
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN);

  /** POST /v1/behavior/events with the site's public key and Origin unless told otherwise. */
  const ingest = (
    batch: unknown[],
    o: { key?: string; origin?: string | null; headers?: Record<string, string> } = {},
  ) => {
    const origin = o.origin === undefined ? `https://${t.domain}` : o.origin;
    return app.request("/v1/behavior/events", {
      method: "POST",
      headers: { "content-type": "application/json", ...(origin ? { origin } : {}), ...o.headers },
      body: JSON.stringify({ api_key: o.key ?? t.publicKey, batch }),
    });
  };
  /** POST /v1/behavior/server-events (crawler hits and server events) with the site's server key. */
  const serverEvents = (events: unknown[]) =>
    app.request("/v1/behavior/server-events", {
      method: "POST",
      headers: { authorization: `Bearer ${t.serverKey}`, "content-type": "application/json" },
      body: JSON.stringify({ events }),
    });
  /** POST /v1/read/<tool> with the read key: the response, whatever its status. */
  const ask = (tool: string, input: unknown) =>
    app.request(`/v1/read/${tool}`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.readKey}`, "content-type": "application/json" },
      body: JSON.stringify(input),
    });
  /** A read tool's answer; fails the test unless it is a 200. */
  const read = async (tool: string, input: unknown) => {
    const res = await ask(tool, input);
    const text = await res.text();
    assert.equal(res.status, 200, `${tool}: ${res.status} ${text}`);
    return JSON.parse(text);
  };
  /** An admin API call under the organization (`/orgs/<org><path>`). */
  const admin = (method: string, path: string, body?: unknown) =>
    adminCall(app, TEST_ADMIN_TOKEN, method, `/orgs/${t.org}${path}`, body);
  /** Imports store reviews of one of the organization's apps (NDJSON, admin API); fails the test unless a 200. */
  const importReviews = async (appId: string, lines: Record<string, unknown>[]) => {
    const res = await app.request(`/admin/v1/orgs/${t.org}/apps/${appId}/reviews/import`, {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "content-type": "application/x-ndjson" },
      body: lines.map((l) => JSON.stringify(l)).join("\n") + "\n",
    });
    const text = await res.text();
    assert.equal(res.status, 200, text);
    return JSON.parse(text);
  };
  /** How many KV entries start with `prefix`. */
  const count = async (prefix: Deno.KvKey) => {
    let n = 0;
    for await (const _ of kv.list({ prefix })) n++;
    return n;
  };
  /** The raw (not yet compacted) events of one environment, as stored. */
  const stored = async (environment: EnvName = "production") => {
    const out: StoredEvent[] = [];
    for await (const e of kv.list<Uint8Array>({ prefix: keys.rawEvents(t.org, environment) })) {
      out.push(unpackEvent(e.value));
    }
    return out;
  };
  /** The compaction job, ten minutes later (raw events are compacted once they settle). */
  const compact = (over: Partial<typeof deps> = {}) => {
    deps.clock.advance(10 * 60_000);
    return compactAll({ ...deps, ...over });
  };
  const close = async () => {
    kv.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  };
  return {
    /** the temporary folder of the KV file (close() removes it) */
    dir,
    deps,
    kv,
    app,
    t,
    ingest,
    serverEvents,
    ask,
    read,
    admin,
    importReviews,
    count,
    stored,
    compact,
    close,
  };
}

export type Site = Awaited<ReturnType<typeof openSite>>;
