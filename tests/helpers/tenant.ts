/** Creates an organization, a website and keys of every kind through the admin API. */
import type { Plan } from "../../lib/store/records.ts";
import type { DemoTenant } from "../../lib/demo/tenant.ts";

export interface Requester {
  request(path: string, init?: RequestInit): Response | Promise<Response>;
}

/** The same keys the dev seed creates for the demo organization. */
export type Tenant = DemoTenant;

export async function adminCall(app: Requester, token: string, method: string, path: string, body?: unknown) {
  const res = await app.request(`/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`admin ${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

export async function createTenant(
  app: Requester,
  adminToken: string,
  opts: { domain?: string; plan?: Plan; timezone?: string } = {},
): Promise<Tenant> {
  const domain = opts.domain ?? "acme.test";
  const org = await adminCall(app, adminToken, "POST", "/orgs", {
    name: "Acme",
    plan: opts.plan ?? "professional",
    timezone: opts.timezone ?? "UTC",
  });
  const tp = await adminCall(app, adminToken, "POST", `/orgs/${org.id}/touchpoints`, {
    name: "Acme site",
    kind: "website",
    domain,
    environments: { staging: { domain: `staging.${domain}` }, development: { domain: `dev.${domain}` } },
  });
  const key = async (kind: string, environment: string, extra: Record<string, unknown> = {}) =>
    (await adminCall(app, adminToken, "POST", `/orgs/${org.id}/keys`, { kind, environment, ...extra }))
      .key as string;
  const isPaid = (opts.plan ?? "professional") === "professional" || opts.plan === "enterprise";
  return {
    org: org.id,
    touchpoint: tp.id,
    domain,
    publicKey: await key("public", "production", { touchpoint: tp.id }),
    devPublicKey: await key("public", "development", { touchpoint: tp.id }),
    serverKey: await key("server", "production", { touchpoint: tp.id }),
    devServerKey: await key("server", "development", { touchpoint: tp.id }),
    readKey: isPaid ? await key("read", "production") : "",
  };
}
