/** People in app tests: an app over :memory: KV with a tenant, and people who joined it through invitations. */
import { createApp } from "../../app.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "./deps.ts";
import { adminCall, createTenant } from "./tenant.ts";
import { AppClient, type Fetcher } from "./app_client.ts";
import type { Plan } from "../../lib/store/records.ts";

export const PASSWORD = "correct horse battery staple";

/** An invitation to `org` made through the admin API; answers the link's path. */
async function invitePath(app: Fetcher, org: string, email: string, role: string): Promise<string> {
  const res = await adminCall(app, TEST_ADMIN_TOKEN, "POST", `/orgs/${org}/invitations`, { email, role });
  return new URL(res.invitation_url).pathname;
}

/** A person who accepted an invitation to `org` (a new account) and is signed in, on any app or site. */
export async function joinOrg(app: Fetcher, org: string, email: string, role: string, password = PASSWORD) {
  const client = new AppClient(app);
  const page = await client.submit(await invitePath(app, org, email, role), {
    password,
    password2: password,
  });
  if (page.status !== 200 || !client.cookies.size) {
    throw new Error(`join failed: ${page.status} ${page.html}`);
  }
  return client;
}

export async function peopleWorld(opts: { plan?: Plan } = {}) {
  const deps = await testDeps();
  const app = createApp(deps);
  const tenant = await createTenant(app, TEST_ADMIN_TOKEN, { plan: opts.plan });
  const invite = (email: string, role: string, org = tenant.org) => invitePath(app, org, email, role);
  const join = (email: string, role: string, password = PASSWORD) =>
    joinOrg(app, tenant.org, email, role, password);
  const close = () => deps.kv.close();
  return { deps, app, tenant, invite, join, close, org: tenant.org };
}

export const orgUrl = (org: string, path: string) => `/app/o/${org}/${path}`;
