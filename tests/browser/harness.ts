/** One browser test's world: the real service, a tenant, the test site and a Chromium context. */
import type { Browser, BrowserContext, Request } from "playwright-core";
import { startServer } from "../helpers/server.ts";
import { createTenant, type Tenant } from "../helpers/tenant.ts";
import { startSite, type TestSite } from "./site.ts";
import { launchChromium, USER_AGENT } from "./browser.ts";

export interface StoredEventView {
  id: string;
  event_type: string;
  path: string;
  screen: string;
  sequence_no: number;
  session_id: string;
  anonymous_id: string;
  user_id: string | null;
  gap_before: number;
  fingerprint: Record<string, unknown> | null;
  properties: Record<string, unknown>;
  context: Record<string, unknown>;
  [k: string]: unknown;
}

export interface World {
  serviceUrl: string;
  siteUrl: string;
  site: TestSite;
  tenant: Tenant;
  browser: Browser;
  context: BrowserContext;
  /** Every request the pages sent to the events endpoint, with its body. */
  sent: Array<{ kind: string; body: { api_key: string; batch: Array<Record<string, unknown>> } }>;
  stored(): Promise<StoredEventView[]>;
  waitForStored(ok: (events: StoredEventView[]) => boolean, what: string): Promise<StoredEventView[]>;
  close(): Promise<void>;
}

export interface WorldOptions {
  /** Extra SDK init settings. */
  settings?: Record<string, unknown>;
  /** Send events through a first-party reverse proxy on the site's origin instead of to the service. */
  viaProxy?: boolean;
}

export async function openWorld(opts: WorldOptions = {}): Promise<World> {
  const server = await startServer();
  const cleanups: Array<() => Promise<unknown>> = [() => server.stop()];
  try {
    const api = { request: (p: string, init?: RequestInit) => fetch(server.url + p, init) };
    const tenant = await createTenant(api, server.adminToken);
    const site = await startSite({
      apiKey: tenant.devPublicKey,
      host: opts.viaProxy ? "" : server.url,
      settings: opts.settings,
      proxyTo: opts.viaProxy ? server.url : undefined,
    });
    cleanups.unshift(() => site.stop());
    const browser = await launchChromium();
    cleanups.unshift(() => browser.close());
    const context = await browser.newContext({ userAgent: USER_AGENT });
    const sent: World["sent"] = [];
    context.on("request", (r: Request) => {
      if (!r.url().endsWith("/v1/behavior/events") || r.method() !== "POST") return;
      sent.push({ kind: r.resourceType(), body: JSON.parse(r.postData() ?? "{}") });
    });
    const stored = async () => {
      const res = await fetch(
        `${server.url}/admin/v1/orgs/${tenant.org}/events?environment=development&limit=1000`,
        { headers: { authorization: `Bearer ${server.adminToken}` } },
      );
      if (!res.ok) throw new Error(`admin events: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { events: StoredEventView[] }).events;
    };
    return {
      serviceUrl: server.url,
      siteUrl: site.url,
      site,
      tenant,
      browser,
      context,
      sent,
      stored,
      async waitForStored(ok, what) {
        const deadline = Date.now() + 20_000;
        let last: StoredEventView[] = [];
        while (Date.now() < deadline) {
          last = await stored();
          if (ok(last)) return last;
          await new Promise((r) => setTimeout(r, 150));
        }
        const seen = last.map((e) => `${e.sequence_no} ${e.event_type} ${e.path}`).join("\n  ");
        throw new Error(`timed out waiting for ${what}; stored:\n  ${seen}`);
      },
      async close() {
        for (const c of cleanups) await c().catch(() => {});
      },
    };
  } catch (err) {
    for (const c of cleanups) await c().catch(() => {});
    throw err;
  }
}
