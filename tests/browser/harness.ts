/**
 * One browser test's world: the real service, a tenant, the test site and a Chromium context.
 *
 * The tests of one file share the service and Chromium (each start costs seconds of CPU); each test still
 * has its own tenant (organization and key, so it reads only its own events), its own site and its own
 * browser context (its own storage, cookies and cache). Declare such tests with `worldTest`: the first that
 * runs starts the service and Chromium, the last to finish ends them (or the module's unload ends the
 * service, when a filter ran only some).
 */
import type { Browser, BrowserContext, Request } from "playwright-core";
import { endOnUnload, type RunningServer, startServer } from "../helpers/server.ts";
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

/** Tests of this file that have not finished yet; the last to finish ends the service and Chromium. */
const pending = new Set<string>();
let service: Promise<RunningServer> | undefined;
let running: RunningServer | undefined; // for the unload's synchronous end
let chromium: Promise<Browser> | undefined;
const serviceOf = () =>
  service ??= startServer().then((s) => {
    running = s;
    return s;
  });
const browserOf = () => chromium ??= launchChromium();

async function finished(name: string) {
  pending.delete(name);
  if (pending.size) return;
  const [server, browser] = [service, chromium];
  service = chromium = running = undefined;
  await Promise.allSettled([browser?.then((b) => b.close()), server?.then((s) => s.stop())]);
}

// a filter that leaves some test out: nothing calls the last `finished`; the module's unload ends the service
endOnUnload(() => running);

/**
 * A test that opens worlds: the shared service and Chromium outlive it (ended by the file's last test), so
 * the sanitizers, which would count them as its leaks, are off.
 */
export function worldTest(name: string, fn: () => Promise<void>) {
  pending.add(name);
  Deno.test({
    name,
    sanitizeResources: false,
    sanitizeOps: false,
    async fn() {
      try {
        await fn();
      } finally {
        await finished(name);
      }
    },
  });
}

export async function openWorld(opts: WorldOptions = {}): Promise<World> {
  if (!pending.size) {
    throw new Error("openWorld is for tests declared with worldTest (they end what it shares)");
  }
  const [server, browser] = await Promise.all([serviceOf(), browserOf()]);
  const cleanups: Array<() => Promise<unknown>> = [];
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
    const context = await browser.newContext({ userAgent: USER_AGENT });
    cleanups.unshift(() => context.close());
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
