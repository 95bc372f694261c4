/**
 * Settings → Touchpoints: the list (every member), adding a website or app and archiving (owners, admins).
 * Each touchpoint's environments and keys are on its own page (touchpoint.tsx).
 */
import { Hono } from "hono";
import type { AppContext } from "../../lib/context.ts";
import { validate } from "../../lib/schemas/request_body.ts";
import { CreateTouchpoint, PatchTouchpoint } from "../../lib/schemas/admin.ts";
import { createTouchpoint, listTouchpoints, patchTouchpoint } from "../../lib/tenancy/admin.ts";
import { can } from "../../lib/people/roles.ts";
import { act, type AppEnv, field, orgMember, pageFlash } from "./http.ts";
import { CsrfField, Layout, orgPath, PostButton } from "./layout.tsx";
import { Table } from "./table.tsx";
import { frameOf } from "./frame.ts";

export const touchpointsPath = (org: string) => orgPath(org, "settings/touchpoints");
export const touchpointPath = (org: string, tp: string, env?: string) =>
  `${touchpointsPath(org)}/${tp}${env ? `?env=${env}` : ""}`;

const KIND_LABEL = { website: "Website", ios: "iOS app", android: "Android app" } as const;

export function touchpointsRoutes(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/o/:org/settings/touchpoints", orgMember(ctx, "member"), async (c) => {
    const org = c.get("org");
    const manage = can.manageSettings(c.get("membership").role);
    const frame = (await frameOf(ctx, c))!;
    const { flash } = await pageFlash(ctx, c);
    const tps = (await listTouchpoints(ctx.deps, org.id)).sort((a, b) =>
      Number(a.archived) - Number(b.archived) || a.name.localeCompare(b.name)
    );
    return c.html(
      <Layout title={`Touchpoints · ${org.name}`} frame={frame} section="touchpoints" flash={flash}>
        <h1>Touchpoints</h1>
        <p class="lead">Your websites and apps. Each has production, staging and development environments.</p>
        {tps.length === 0
          ? <p>No touchpoints yet.</p>
          : (
            <Table columns={["Name", "Kind", "Production domain", "Status"]}>
              {tps.map((tp) => (
                <tr>
                  <td>{manage ? <a href={touchpointPath(org.id, tp.id)}>{tp.name}</a> : tp.name}</td>
                  <td>{KIND_LABEL[tp.kind]}</td>
                  <td>{tp.environments.production.domain ?? <span class="muted">none</span>}</td>
                  <td>
                    {tp.archived
                      ? <span class="badge off">archived</span>
                      : <span class="badge on">active</span>}
                  </td>
                </tr>
              ))}
            </Table>
          )}
        {manage && (
          <>
            <h2 id="add">Add a website or app</h2>
            <form method="post" action={touchpointsPath(org.id)} class="stack card" aria-labelledby="add">
              <CsrfField csrf={frame.csrf} />
              <div class="row">
                <label>
                  Name
                  <input type="text" name="name" required maxlength={200} />
                </label>
                <div class="field">
                  <label for="touchpoint-kind">Kind</label>
                  <select id="touchpoint-kind" name="kind">
                    <option value="website">Website</option>
                    <option value="ios">iOS app</option>
                    <option value="android">Android app</option>
                  </select>
                </div>
              </div>
              <label>
                Production domain <span class="hint">required for a website, e.g. shop.example.com</span>
                <input type="text" name="domain" inputmode="url" autocomplete="off" />
              </label>
              <div class="row">
                <label>
                  Staging domain <span class="hint">optional</span>
                  <input type="text" name="staging_domain" inputmode="url" autocomplete="off" />
                </label>
                <label>
                  Development domain <span class="hint">optional</span>
                  <input type="text" name="development_domain" inputmode="url" autocomplete="off" />
                </label>
              </div>
              <div>
                <button type="submit">Add</button>
              </div>
            </form>
          </>
        )}
        {!manage && <p class="muted">Owners and admins add touchpoints and manage their keys.</p>}
      </Layout>,
    );
  });

  app.post("/o/:org/settings/touchpoints", orgMember(ctx, "admin"), (c) => {
    const org = c.get("org");
    return act(ctx, c, touchpointsPath(org.id), async () => {
      const opt = (name: string) => field(c, name) || undefined;
      const envs: Record<string, { domain: string }> = {};
      for (const env of ["staging", "development"]) {
        const d = opt(`${env}_domain`);
        if (d) envs[env] = { domain: d };
      }
      const body = validate(CreateTouchpoint, {
        name: field(c, "name"),
        kind: field(c, "kind"),
        domain: opt("domain"),
        ...(Object.keys(envs).length ? { environments: envs } : {}),
      });
      const tp = await createTouchpoint(ctx.deps, org.id, body);
      return `${tp.name} added.`;
    });
  });

  app.post("/o/:org/settings/touchpoints/:tp/archive", orgMember(ctx, "admin"), (c) => {
    const org = c.get("org");
    const archived = field(c, "archived") === "true";
    return act(ctx, c, touchpointPath(org.id, c.req.param("tp")), async () => {
      const tp = await patchTouchpoint(
        ctx.deps,
        org.id,
        c.req.param("tp"),
        validate(PatchTouchpoint, { archived }),
      );
      return archived ? `${tp.name} is archived: its keys stop working.` : `${tp.name} is active again.`;
    });
  });

  return app;
}

export const ArchiveButton = (p: { org: string; tp: string; archived: boolean; csrf: string }) => (
  <PostButton
    action={`${touchpointPath(p.org, p.tp)}/archive`}
    csrf={p.csrf}
    fields={{ archived: String(!p.archived) }}
    label={p.archived ? "Restore" : "Archive"}
    kind={p.archived ? "secondary" : "danger"}
    confirm={p.archived ? undefined : "Archive this touchpoint? Its keys stop working."}
  />
);
