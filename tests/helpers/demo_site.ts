/**
 * The dev start's demo organization with a generated site on a fixed clock, as the tests that run printed
 * examples, MCP views and schemas against "the demo" need it; `reports` also makes the due reports, as the dev
 * start does, so report_get has one to answer with.
 */
import { createApp } from "../../app.ts";
import { ensureDemoTenant } from "../../lib/demo/tenant.ts";
import { generateSite } from "../../lib/demo/site.ts";
import { generateDueReports } from "../../pipeline/reports_generate.ts";
import { testDeps } from "./deps.ts";

export async function demoSite(events: number, o: { reports?: boolean } = {}) {
  const deps = await testDeps();
  deps.config = { ...deps.config, readKeyRatePerMinute: 100_000 } as typeof deps.config;
  deps.clock.set(Date.parse("2026-11-20T12:00:00Z"));
  const app = createApp(deps);
  const { tenant } = await ensureDemoTenant(deps);
  await generateSite(deps, {
    org: tenant.org,
    touchpoint: tenant.touchpoint,
    host: tenant.domain,
    events,
    days: 30,
    seed: 7,
  });
  if (o.reports) await generateDueReports(app.ctx);
  return { deps, app, tenant };
}
