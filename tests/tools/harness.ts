/** A tenant with a generated site, asked through the real HTTP read API (and MCP where a test wants it). */
import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../helpers/deps.ts";
import { createTenant, type Tenant } from "../helpers/tenant.ts";
import { generateSite, type Site, type SiteOptions, storeSite } from "./generate.ts";

export interface Harness {
  deps: Awaited<ReturnType<typeof testDeps>>;
  app: ReturnType<typeof createApp>;
  t: Tenant;
  site: Site;
  // deno-lint-ignore no-explicit-any
  ask(tool: string, input?: Record<string, unknown>): Promise<Record<string, any>>;
  askRaw(tool: string, input?: Record<string, unknown>): Promise<Response>;
  close(): void;
}

export async function harness(
  opts: Partial<SiteOptions> & { timezone?: string; config?: Record<string, unknown> } = {},
): Promise<Harness> {
  const deps = await testDeps();
  // Generous limits: these tests ask many questions in one fake minute.
  deps.config = { ...deps.config, readKeyRatePerMinute: 100_000, ...opts.config } as typeof deps.config;
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN, { timezone: opts.timezone ?? "UTC" });
  const site = generateSite({ org: t.org, touchpoint: t.touchpoint, ...opts });
  await storeSite(deps.kv, site);
  const askRaw = (tool: string, input: Record<string, unknown> = {}) =>
    Promise.resolve(app.request(`/v1/read/${tool}`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.readKey}`, "content-type": "application/json" },
      body: JSON.stringify(input),
    }));
  return {
    deps,
    app,
    t,
    site,
    askRaw,
    async ask(tool, input = {}) {
      const res = await askRaw(tool, input);
      const body = await res.json();
      assert.equal(res.status, 200, `${tool}: ${JSON.stringify(body)}`);
      return body;
    },
    close: () => deps.kv.close(),
  };
}
