/** `deno task dev`: a demo organization with a website and keys of every kind, created when the store is empty. */
import type { Deps } from "../deps.ts";
import { keys } from "../store/keys.ts";
import { createKey, createOrg, createTouchpoint } from "../tenancy/admin.ts";
import { seedDemoFeedback } from "../feedback/demo_reviews.ts";
import { addDomain } from "../tenancy/verified_domains.ts";

export interface DemoTenant {
  org: string;
  touchpoint: string;
  domain: string;
  publicKey: string;
  devPublicKey: string;
  serverKey: string;
  devServerKey: string;
  readKey: string;
}

/** Creates the demo tenant once and remembers its keys in KV (this is a local dev store, never production). */
export async function ensureDemoTenant(deps: Deps): Promise<{ tenant: DemoTenant; created: boolean }> {
  const saved = await deps.kv.get<DemoTenant>(keys.meta("demo_tenant"));
  if (saved.value) return { tenant: saved.value, created: false };
  const { kv, clock } = deps;
  const org = await createOrg(deps, {
    name: "Demo Shop",
    plan: "professional",
    timezone: "Europe/Berlin",
  });
  const domain = "demo-shop.test";
  const tp = await createTouchpoint(deps, org.id, {
    name: "Demo Shop website",
    kind: "website",
    domain,
    environments: { staging: { domain: `staging.${domain}` }, development: { domain: `dev.${domain}` } },
  });
  // The demo site's made-up domain counts as verified (no DNS answers for it), so its app is quoted as own.
  const proof = await addDomain(kv, clock, org.id, domain);
  await kv.set(keys.verifiedDomain(org.id, domain), { ...proof, verified_at: proof.created_at });
  // An iOS app of its own (its store listing names the demo site) and a followed competitor, with reviews.
  const ios = await createTouchpoint(deps, org.id, { name: "Demo Shop iOS", kind: "ios" });
  await seedDemoFeedback(kv, clock, { org: org.id, iosTouchpoint: ios.id, domain });
  const key = async (kind: "public" | "server" | "read", environment: "production" | "development") =>
    (await createKey(deps, org.id, {
      kind,
      environment,
      ...(kind === "read" ? {} : { touchpoint: tp.id }),
    })).key;
  const tenant: DemoTenant = {
    org: org.id,
    touchpoint: tp.id,
    domain,
    publicKey: await key("public", "production"),
    devPublicKey: await key("public", "development"),
    serverKey: await key("server", "production"),
    devServerKey: await key("server", "development"),
    readKey: await key("read", "production"),
  };
  await kv.set(keys.meta("demo_tenant"), tenant);
  return { tenant, created: true };
}

/** What the dev start prints: keys, and example calls with fresh event ids (`newId`, a UUID source). */
export function devBanner(
  deps: Pick<Deps, "clock" | "config">,
  newId: () => string,
  base: string,
  adminToken: string,
  t: DemoTenant,
  owner?: { email: string; password: string },
): string {
  const now = new Date(deps.clock.now()).toISOString();
  const uuid = newId;
  const kv = deps.config.kvPath;
  const store = /^https?:/.test(kv) ? `KV at ${kv}` : kv === ":memory:" ? "KV in memory" : `KV file ${kv}`;
  return `
Service running at ${base}   (${store}; demo organization ${t.org})

  app                ${base}/app${owner ? `   (sign in as ${owner.email}, password ${owner.password})` : ""}
  admin token        ${adminToken}
  public write key   ${t.publicKey}   (production, origin https://${t.domain})
  dev write key      ${t.devPublicKey}   (development, accepts localhost origins)
  server key         ${t.serverKey}
  read key           ${t.readKey}

Send a web event (with a browser's agent: curl's own is counted as automation, not as a visitor):
  curl -i ${base}/v1/behavior/events -H 'Content-Type: application/json' -H 'Origin: https://${t.domain}' \\
    -A 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15' \\
    -d '{"api_key":"${t.publicKey}","batch":[{"event_id":"${uuid()}","anonymous_id":"a1","session_id":"s1","sequence_no":0,"platform":"web","event_type":"$pageview","screen":"/pricing","properties":{"path":"/pricing","url":"https://${t.domain}/pricing"},"device_time":"${now}"}]}'

Report a crawler hit:
  curl -i ${base}/v1/behavior/server-events -H 'Authorization: Bearer ${t.serverKey}' -H 'Content-Type: application/json' \\
    -d '{"events":[{"event_type":"$crawl","event_id":"${uuid()}","host":"${t.domain}","path":"/pricing","status":200,"user_agent":"Mozilla/5.0 (compatible; GPTBot/1.3; +https://openai.com/gptbot)","ip":"20.171.207.1"}]}'

Ask a read tool:
  curl -s ${base}/v1/read/behavior_overview -H 'Authorization: Bearer ${t.readKey}' -H 'Content-Type: application/json' -d '{"period":"last_7_days","touchpoint":"${t.domain}"}'

Ask about app reviews (an own iOS app and a followed competitor):
  curl -s ${base}/v1/read/feedback_themes -H 'Authorization: Bearer ${t.readKey}' -H 'Content-Type: application/json' -d '{"period":"last_28_days","rising_first":true}'

Connect an MCP client (Streamable HTTP):
  {"mcpServers":{"behavior":{"type":"http","url":"${base}/mcp","headers":{"Authorization":"Bearer ${t.readKey}"}}}}

Admin API:
  curl -s ${base}/admin/v1/orgs/${t.org}/keys -H 'Authorization: Bearer ${adminToken}'
`;
}
