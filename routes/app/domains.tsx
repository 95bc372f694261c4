/** Settings → Verified domains (owners and admins add, verify, remove; members see them). */
import { Hono } from "hono";
import type { AppContext } from "../../lib/context.ts";
import {
  addDomain,
  listDomains,
  removeDomain,
  txtRecordOf,
  verifyDomain,
} from "../../lib/tenancy/verified_domains.ts";
import { can } from "../../lib/people/roles.ts";
import { act, type AppEnv, field, orgMember, pageFlash } from "./http.ts";
import { CsrfField, Layout, orgPath, PostButton } from "./layout.tsx";
import { frameOf } from "./frame.ts";

const path = (org: string) => orgPath(org, "settings/domains");

export function domainsRoutes(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { kv, clock, dns } = ctx.deps;
  const p = "/o/:org/settings/domains";

  app.get(p, orgMember(ctx, "member"), async (c) => {
    const org = c.get("org");
    const manage = can.manageSettings(c.get("membership").role);
    const frame = (await frameOf(ctx, c))!;
    const { flash } = await pageFlash(ctx, c);
    const domains = await listDomains(kv, org.id);
    return c.html(
      <Layout title={`Verified domains · ${org.name}`} frame={frame} section="domains" flash={flash}>
        <h1>Verified domains</h1>
        <p class="lead">
          Domains {org.name}{" "}
          has shown it controls. An app whose store listing names a website on one of them counts as your own
          app in feedback.
        </p>
        {domains.length === 0 ? <p>No domains yet.</p> : domains.map((d) => {
          const rec = txtRecordOf(d);
          return (
            <section class="card" aria-label={d.domain}>
              <div class="row between">
                <h2>
                  {d.domain} {d.verified_at
                    ? <span class="badge on">verified</span>
                    : <span class="badge off">not verified</span>}
                </h2>
                {manage && (
                  <div class="row">
                    {!d.verified_at && (
                      <PostButton
                        action={`${path(org.id)}/${d.domain}/verify`}
                        csrf={frame.csrf}
                        label="Verify now"
                      />
                    )}
                    <PostButton
                      action={`${path(org.id)}/${d.domain}/remove`}
                      csrf={frame.csrf}
                      label="Remove"
                      kind="danger"
                      confirm={`Remove ${d.domain}?`}
                    />
                  </div>
                )}
              </div>
              {!d.verified_at && (
                <>
                  <p>Publish this TXT record in the domain's DNS, then verify:</p>
                  <dl>
                    <dt>Name</dt>
                    <dd>
                      <code>{rec.name}</code>
                    </dd>
                    <dt>Value</dt>
                    <dd>
                      <code>{rec.value}</code>
                    </dd>
                  </dl>
                </>
              )}
            </section>
          );
        })}
        {manage && (
          <>
            <h2 id="add">Add a domain</h2>
            <form method="post" action={path(org.id)} class="card stack" aria-labelledby="add">
              <CsrfField csrf={frame.csrf} />
              <label>
                Domain <span class="hint">e.g. example.com</span>
                <input type="text" name="domain" required inputmode="url" autocomplete="off" />
              </label>
              <div>
                <button type="submit">Add</button>
              </div>
            </form>
          </>
        )}
      </Layout>,
    );
  });

  app.post(p, orgMember(ctx, "admin"), (c) => {
    const org = c.get("org");
    return act(ctx, c, path(org.id), async () => {
      const d = await addDomain(kv, clock, org.id, field(c, "domain"));
      return `${d.domain} added: publish its TXT record, then verify.`;
    });
  });

  app.post(`${p}/:domain/verify`, orgMember(ctx, "admin"), (c) => {
    const org = c.get("org");
    return act(ctx, c, path(org.id), async () => {
      const r = await verifyDomain(kv, dns, clock, org.id, c.req.param("domain"));
      return r.verified ? { notice: `${r.domain.domain} is verified.` } : { error: r.reason };
    });
  });

  app.post(`${p}/:domain/remove`, orgMember(ctx, "admin"), (c) => {
    const org = c.get("org");
    return act(ctx, c, path(org.id), async () => {
      await removeDomain(kv, org.id, c.req.param("domain"));
      return "Domain removed.";
    });
  });

  return app;
}
