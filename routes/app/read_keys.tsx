/** Settings → Read keys (owners and admins; Professional and Enterprise plans): create (shown once), list, revoke. */
import { Hono } from "hono";
import type { AppContext } from "../../lib/context.ts";
import { validate } from "../../lib/schemas/request_body.ts";
import { resolvePlanLimits } from "../../lib/tenancy/plans.ts";
import { CreateKey } from "../../lib/schemas/admin.ts";
import { createKey, listKeys, revokeKey } from "../../lib/tenancy/admin.ts";
import { ENV_NAMES, type EnvName } from "../../lib/store/records.ts";
import { sealSecret } from "../../lib/people/flash.ts";
import { act, type AppEnv, baseUrl, field, orgMember, pageFlash } from "./http.ts";
import { CodeBlock, CsrfField, Layout, orgPath, SecretBox } from "./layout.tsx";
import { KeyStateCells, Table } from "./table.tsx";
import { frameOf } from "./frame.ts";
import { readKeySnippet } from "./snippets.ts";
import { environmentLabel } from "../../lib/format/labels.ts";
import { shortDate } from "../../lib/format/times.ts";

const path = (org: string) => orgPath(org, "settings/read-keys");

export function readKeysRoutes(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { config } = ctx.deps;
  app.use("/o/:org/settings/read-keys", orgMember(ctx, "admin"));
  app.use("/o/:org/settings/read-keys/*", orgMember(ctx, "admin"));

  app.get("/o/:org/settings/read-keys", async (c) => {
    const org = c.get("org");
    const frame = (await frameOf(ctx, c))!;
    const { flash, secret } = await pageFlash<{ key: string; environment: EnvName }>(ctx, c);
    const allowed = resolvePlanLimits(org.plan, config.plans).api_access;
    const rows = (await listKeys(ctx.deps, org.id)).filter((k) => k.kind === "read");
    const base = baseUrl(ctx, c);
    return c.html(
      <Layout title={`Read keys · ${org.name}`} frame={frame} section="read-keys" flash={flash}>
        <h1>Read keys</h1>
        <p class="lead">
          A read key lets a script or an assistant ask the read tools about one environment. It never writes.
        </p>
        {secret && (
          <>
            <SecretBox
              id="new-key"
              label={`New read key (${environmentLabel(secret.environment)}).`}
              value={secret.key}
            />
            <CodeBlock
              id="read-example"
              label="Try it (put the key in READ_KEY first):"
              code={readKeySnippet(base)}
            />
          </>
        )}
        {!allowed && (
          <p class="card">
            Read keys come with the Professional and Enterprise plans; {org.name} is on the {org.plan} plan.
          </p>
        )}
        {rows.length > 0 && (
          <Table columns={["Key", "Environment", "Expires", "Status"]} actions>
            {rows.map((k) => (
              <tr>
                <td>
                  <code>{k.prefix}…</code>
                </td>
                <td>{environmentLabel(k.environment)}</td>
                <td class="nowrap">{k.expires_at ? shortDate(k.expires_at) : "never"}</td>
                <KeyStateCells
                  revoked={k.revoked}
                  action={`${path(org.id)}/${k.id}/revoke`}
                  csrf={frame.csrf}
                  confirm={`Revoke ${k.prefix}…?`}
                />
              </tr>
            ))}
          </Table>
        )}
        {allowed && (
          <>
            <h2 id="create">Create a read key</h2>
            <form method="post" action={path(org.id)} class="card stack" aria-labelledby="create">
              <CsrfField csrf={frame.csrf} />
              <div class="row">
                <div class="field">
                  <label for="read-key-env">Environment</label>
                  <select id="read-key-env" name="environment">
                    {ENV_NAMES.map((e) => <option value={e}>{e}</option>)}
                  </select>
                </div>
                <label>
                  Expires <span class="hint">optional; the key stops working after that day (UTC)</span>
                  <input type="date" name="expires" />
                </label>
              </div>
              <div>
                <button type="submit">Create read key</button>
              </div>
            </form>
          </>
        )}
      </Layout>,
    );
  });

  app.post("/o/:org/settings/read-keys", (c) => {
    const org = c.get("org");
    const auth = c.get("auth")!;
    return act(ctx, c, path(org.id), async () => {
      const expires = field(c, "expires");
      const body = validate(CreateKey, {
        kind: "read",
        environment: field(c, "environment"),
        ...(expires ? { expires_at: `${expires}T23:59:59Z` } : {}),
      });
      const made = await createKey(ctx.deps, org.id, body);
      return {
        notice: "Read key created.",
        secret: await sealSecret(auth.token, { key: made.key, environment: made.environment }),
      };
    });
  });

  app.post("/o/:org/settings/read-keys/:key/revoke", (c) => {
    const org = c.get("org");
    return act(ctx, c, path(org.id), async () => {
      await revokeKey(ctx.deps, org.id, c.req.param("key"));
      return "Read key revoked: it stops working within seconds.";
    });
  });

  return app;
}
