/** Shared set-up for the server-events route tests: an app on :memory: KV with one tenant. */
import { createApp } from "../../app.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../helpers/deps.ts";
import { adminCall, createTenant } from "../helpers/tenant.ts";
import { dayNumber, keys } from "../../lib/store/keys.ts";
import type { StoredHit, VerificationRecord } from "../../lib/store/records.ts";

export const GPTBOT_UA =
  "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.3; +https://openai.com/gptbot";
export const BROWSER_UA =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

export async function setup() {
  const deps = await testDeps();
  const app = createApp(deps);
  const tenant = await createTenant(app, TEST_ADMIN_TOKEN);
  const admin = (method: string, path: string, body?: unknown) =>
    adminCall(app, TEST_ADMIN_TOKEN, method, path, body);
  const post = (key: string | null, body: unknown, headers: Record<string, string> = {}) =>
    app.request("/v1/behavior/server-events", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(key === null ? {} : { authorization: `Bearer ${key}` }),
        ...headers,
      },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
  const send = async (events: unknown[], extra: Record<string, unknown> = {}, key = tenant.serverKey) => {
    const res = await post(key, { events, ...extra });
    if (res.status !== 202) throw new Error(`expected 202, got ${res.status} ${await res.text()}`);
    return await res.json() as {
      accepted: number;
      duplicates: number;
      rejected: { invalid: number; unknown_host: number; not_crawler: number };
    };
  };
  const storedHits = async (env: StoredHit["env"] = "production") => {
    const out: StoredHit[] = [];
    for await (const e of deps.kv.list<StoredHit>({ prefix: keys.rawHits(tenant.org, env) })) {
      out.push(e.value);
    }
    return out;
  };
  /** A hit's address, wherever its group's address record keeps it. */
  const addressOf = async (hit: StoredHit) => {
    for await (
      const e of deps.kv.list<{ ips?: Record<string, string> }>({
        prefix: keys.ipDay(dayNumber(hit.received_at)),
      })
    ) {
      const ip = e.value.ips?.[hit.id];
      if (ip) return ip;
    }
    return null;
  };
  const verification = async (id: string) =>
    (await deps.kv.get<VerificationRecord>(keys.verification(tenant.org, id))).value;
  return { deps, app, tenant, admin, post, send, storedHits, addressOf, verification };
}

export function hit(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    event_type: "$crawl",
    event_id: crypto.randomUUID(),
    host: "acme.test",
    path: "/pricing",
    method: "GET",
    status: 200,
    user_agent: GPTBOT_UA,
    ip: "20.171.206.10",
    ...over,
  };
}
