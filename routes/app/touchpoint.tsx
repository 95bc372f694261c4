/**
 * One touchpoint (owners and admins): an environment tab each (domain, on/off), Server capture (server keys,
 * websites only) and public write keys. A new key is shown once, on the page the creation redirects to.
 */
import { Hono } from "hono";
import type { AppContext } from "../../lib/context.ts";
import { validate } from "../../lib/schemas/request_body.ts";
import { CreateKey, PatchTouchpoint } from "../../lib/schemas/admin.ts";
import { createKey, getTouchpoint, listKeys, patchTouchpoint, revokeKey } from "../../lib/tenancy/admin.ts";
import { ENV_NAMES, type EnvName, type KeyKind, type Touchpoint } from "../../lib/store/records.ts";
import { sealSecret } from "../../lib/people/flash.ts";
import { act, type AppEnv, baseUrl, type C, field, orgMember, pageFlash } from "./http.ts";
import { CodeBlock, CsrfField, Layout, SecretBox } from "./layout.tsx";
import { KeyStateCells, Table } from "./table.tsx";
import { frameOf } from "./frame.ts";
import { ArchiveButton, touchpointPath, touchpointsPath } from "./touchpoints.tsx";
import { serverSdkSnippet, webSdkSnippet } from "./snippets.ts";
import { shortDate } from "../../lib/format/times.ts";

const ENV_LABEL: Record<EnvName, string> = {
  production: "Production",
  staging: "Staging",
  development: "Development",
};

interface NewKey {
  kind: KeyKind;
  key: string;
  environment: EnvName;
}

type KeyRow = Awaited<ReturnType<typeof listKeys>>[number];

const envOf = (c: C): EnvName => {
  const e = c.req.query("env") ?? "production";
  return (ENV_NAMES as readonly string[]).includes(e) ? e as EnvName : "production";
};

const KeyTable = (p: { rows: KeyRow[]; action: (id: string) => string; csrf: string; origins?: boolean }) =>
  p.rows.length === 0
    ? <p class="muted">None yet.</p>
    : (
      <Table columns={["Key", !!p.origins && "Extra origins", "Created", "Status"]} actions>
        {p.rows.map((k) => (
          <tr>
            <td>
              <code>{k.prefix}…</code>
            </td>
            {p.origins && <td>{k.allowed_origins.join(", ") || <span class="muted">none</span>}</td>}
            <td class="nowrap">{shortDate(k.created_at)}</td>
            <KeyStateCells
              revoked={k.revoked}
              action={p.action(k.id)}
              csrf={p.csrf}
              confirm={`Revoke ${k.prefix}…? It stops working within seconds.`}
            />
          </tr>
        ))}
      </Table>
    );

export function touchpointRoutes(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const base = "/o/:org/settings/touchpoints/:tp";
  app.use(base, orgMember(ctx, "admin"));
  app.use(`${base}/*`, orgMember(ctx, "admin"));

  app.get(base, async (c) => {
    const org = c.get("org");
    const tp = await getTouchpoint(ctx.deps, org.id, c.req.param("tp"));
    const env = envOf(c);
    const frame = (await frameOf(ctx, c))!;
    const { flash, secret } = await pageFlash<NewKey>(ctx, c);
    const e = tp.environments[env];
    const keys = (await listKeys(ctx.deps, org.id)).filter((k) =>
      k.touchpoint === tp.id && k.environment === env
    );
    const here = touchpointPath(org.id, tp.id, env);
    const keyAction = (id: string) => `${touchpointPath(org.id, tp.id)}/keys/${id}/revoke?env=${env}`;
    const host = baseUrl(ctx, c);
    return c.html(
      <Layout title={`${tp.name} · ${ENV_LABEL[env]}`} frame={frame} section="touchpoints" flash={flash}>
        <p>
          <a href={touchpointsPath(org.id)}>← Touchpoints</a>
        </p>
        <div class="row between">
          <h1>{tp.name} {tp.archived && <span class="badge off">archived</span>}</h1>
          <ArchiveButton org={org.id} tp={tp.id} archived={tp.archived} csrf={frame.csrf} />
        </div>
        <nav class="tabs" aria-label="Environments">
          {ENV_NAMES.map((name) => (
            <a href={touchpointPath(org.id, tp.id, name)} aria-current={name === env ? "page" : undefined}>
              {ENV_LABEL[name]}
            </a>
          ))}
        </nav>
        <EnvironmentForm tp={tp} env={env} csrf={frame.csrf} org={org.id} />
        {e && tp.kind === "website" && (
          <section aria-labelledby="server-capture">
            <h2 id="server-capture">Server capture</h2>
            <p>
              A server key lets your web server report crawler hits for{" "}
              {e.domain}. It is a secret: keep it on the server.
            </p>
            {secret?.kind === "server" && secret.environment === env && (
              <>
                <SecretBox id="new-key" label="New server key." value={secret.key} />
                <p>
                  On your server: <code>npm install @svc/server-sdk</code>, set <code>SVC_SERVER_KEY</code>
                  {" "}
                  to the key above, and create the reporter (adapters for Deno, Bun, Hono, Express and Node
                  are in the server SDK's README):
                </p>
                <CodeBlock id="server-snippet" label="Server SDK" code={serverSdkSnippet(host)} />
              </>
            )}
            <KeyTable rows={keys.filter((k) => k.kind === "server")} action={keyAction} csrf={frame.csrf} />
            <NewKeyForm org={org.id} tp={tp.id} env={env} kind="server" csrf={frame.csrf} />
          </section>
        )}
        {e && (
          <section aria-labelledby="public-keys">
            <h2 id="public-keys">Public write keys</h2>
            <p>
              {tp.kind === "website"
                ? `The web SDK sends events with a public key. It accepts events from ${
                  e.domain ?? "the domain"
                }` +
                  (env === "development" ? ", localhost" : "") + " and the extra origins you list."
                : "The app SDK sends events with a public key."}
            </p>
            {secret?.kind === "public" && secret.environment === env && (
              <CodeBlock
                id="web-snippet"
                label="New public key, in the snippet for the <head> of every page (shown only now):"
                code={webSdkSnippet(host, secret.key, e.domain)}
              />
            )}
            <KeyTable
              rows={keys.filter((k) => k.kind === "public")}
              action={keyAction}
              csrf={frame.csrf}
              origins
            />
            <NewKeyForm
              org={org.id}
              tp={tp.id}
              env={env}
              kind="public"
              csrf={frame.csrf}
              website={tp.kind === "website"}
            />
          </section>
        )}
        {secret && secret.environment === env && (
          <p class="muted">
            The new key is shown only now: copy it before you <a href={here}>reload</a> or leave this tab.
          </p>
        )}
      </Layout>,
    );
  });

  app.post(`${base}/environments/:env`, (c) => {
    const org = c.get("org");
    const env = c.req.param("env");
    return act(ctx, c, touchpointPath(org.id, c.req.param("tp"), env), async () => {
      const patch: Record<string, unknown> = { enabled: field(c, "enabled") === "on" };
      if (field(c, "domain")) patch.domain = field(c, "domain");
      const body = validate(PatchTouchpoint, { environments: { [env]: patch } });
      await patchTouchpoint(ctx.deps, org.id, c.req.param("tp"), body);
      return `${ENV_LABEL[env as EnvName] ?? env} saved.`;
    });
  });

  app.post(`${base}/keys`, async (c) => {
    const org = c.get("org");
    const auth = c.get("auth")!;
    const env = field(c, "environment");
    const back = touchpointPath(org.id, c.req.param("tp"), env);
    return await act(ctx, c, back, async () => {
      const origins = field(c, "allowed_origins").split(/[\s,]+/).filter(Boolean);
      const body = validate(CreateKey, {
        kind: field(c, "kind"),
        environment: env,
        touchpoint: c.req.param("tp"),
        ...(origins.length ? { allowed_origins: origins } : {}),
      });
      if (body.kind === "read") return { error: "read keys are created under Read keys" };
      const made = await createKey(ctx.deps, org.id, body);
      const secret: NewKey = { kind: made.kind, key: made.key, environment: made.environment };
      return {
        notice: `${made.kind === "server" ? "Server" : "Public"} key created.`,
        secret: await sealSecret(auth.token, secret),
      };
    });
  });

  app.post(`${base}/keys/:key/revoke`, (c) => {
    const org = c.get("org");
    return act(ctx, c, touchpointPath(org.id, c.req.param("tp"), envOf(c)), async () => {
      await revokeKey(ctx.deps, org.id, c.req.param("key"));
      return "Key revoked: it stops working within seconds.";
    });
  });

  return app;
}

const EnvironmentForm = (p: { tp: Touchpoint; env: EnvName; csrf: string; org: string }) => {
  const e = p.tp.environments[p.env];
  return (
    <form method="post" action={`${touchpointPath(p.org, p.tp.id)}/environments/${p.env}`} class="card stack">
      <CsrfField csrf={p.csrf} />
      {!e && (p.tp.kind === "website"
        ? <p>This website has no {p.env} environment yet. Give it a domain to add it.</p>
        : (
          <p>
            This app has no {p.env} environment yet. Add {p.env} below to make one; a domain is not needed.
          </p>
        ))}
      <div class="row">
        <label>
          Domain {p.tp.kind !== "website" && <span class="hint">optional for apps</span>}
          <input type="text" name="domain" value={e?.domain ?? ""} inputmode="url" autocomplete="off" />
        </label>
        <label class="check">
          <input type="checkbox" name="enabled" checked={e ? e.enabled : true} />
          Enabled (keys of a disabled environment are refused)
        </label>
      </div>
      <div>
        <button type="submit">{e ? "Save" : `Add ${p.env}`}</button>
      </div>
    </form>
  );
};

const NewKeyForm = (
  p: { org: string; tp: string; env: EnvName; kind: "server" | "public"; csrf: string; website?: boolean },
) => (
  <form method="post" action={`${touchpointPath(p.org, p.tp)}/keys`} class="card stack">
    <CsrfField csrf={p.csrf} />
    <input type="hidden" name="kind" value={p.kind} />
    <input type="hidden" name="environment" value={p.env} />
    {p.kind === "public" && p.website && (
      <label>
        Extra allowed origins <span class="hint">optional; one a line, e.g. https://shop.example.org</span>
        <textarea name="allowed_origins" rows={2}></textarea>
      </label>
    )}
    <div>
      <button type="submit">{p.kind === "server" ? "Create server key" : "Create public key"}</button>
    </div>
  </form>
);
