/**
 * Settings → Store credentials: the App Store Connect API key or Google Play service account with which the
 * service reads the reviews of the organization's own apps. Owners and admins enter and remove them; members
 * see which apps have one. Sealed at rest with CREDENTIALS_KEY (lib/feedback/credentials.ts) and never shown
 * back, not even in part. Followed apps have none: they are read from public sources.
 */
import { Hono } from "hono";
import type { AppContext } from "../../lib/context.ts";
import { invalid } from "../../lib/errors.ts";
import { getApp, listApps } from "../../lib/feedback/store.ts";
import { credentialKind, deleteCredential, saveCredential } from "../../lib/feedback/credentials.ts";
import { FeedbackCredential } from "../../lib/schemas/feedback.ts";
import type { FeedbackApp } from "../../lib/feedback/types.ts";
import { can } from "../../lib/people/roles.ts";
import { checkPrivateKey } from "./credential_shape.ts";
import { act, type AppEnv, type C, field, orgMember, pageFlash, secretField } from "./http.ts";
import { CsrfField, Layout, orgPath, PostButton } from "./layout.tsx";
import { frameOf } from "./frame.ts";

const path = (org: string) => orgPath(org, "settings/store-credentials");
const STORE_NAMES = { app_store: "App Store", google_play: "Google Play" } as const;

/** The credential a form describes, checked by the same schema as the admin API (422 naming the field). */
function credentialOf(c: C, app: FeedbackApp) {
  if (app.store === "app_store") {
    const cred = parse({
      kind: "app_store_connect",
      issuer_id: field(c, "issuer_id"),
      key_id: field(c, "key_id"),
      private_key: secretField(c, "private_key").trim(),
    });
    checkPrivateKey(secretField(c, "private_key"), "private_key");
    return cred;
  }
  let account: Record<string, unknown>;
  try {
    account = JSON.parse(secretField(c, "service_account"));
  } catch {
    throw invalid("service_account: paste the service account's JSON key file as it is");
  }
  if (typeof account !== "object" || account === null) {
    throw invalid("service_account: paste the service account's JSON key file as it is");
  }
  const cred = parse({
    kind: "google_play",
    client_email: account.client_email,
    private_key: account.private_key,
    ...(account.token_uri ? { token_uri: account.token_uri } : {}),
  });
  checkPrivateKey(String(account.private_key), "service_account.private_key");
  return cred;
}

function parse(body: unknown) {
  const r = FeedbackCredential.safeParse(body);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  throw invalid(`${issue.path.join(".") || "credential"}: ${issue.message}`);
}

export function storeCredentialsRoutes(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { kv, clock, config } = ctx.deps;
  const p = "/o/:org/settings/store-credentials";

  /** One of the organization's own apps (a followed app, or another organization's, is refused). */
  const ownApp = async (org: string, id: string) => {
    const a = await getApp(kv, org, id);
    if (a.followed) {
      throw invalid("app: credentials belong to own apps; a followed app is read from public sources");
    }
    return a;
  };

  app.get(p, orgMember(ctx, "member"), async (c) => {
    const org = c.get("org");
    const manage = can.manageSettings(c.get("membership").role);
    const frame = (await frameOf(ctx, c))!;
    const { flash } = await pageFlash(ctx, c);
    const apps = (await listApps(kv, org.id)).filter((a) => !a.followed);
    const kinds = await Promise.all(apps.map((a) => credentialKind(kv, org.id, a.id)));
    return c.html(
      <Layout
        title={`Store credentials · ${org.name}`}
        frame={frame}
        section="store-credentials"
        flash={flash}
      >
        <h1>Store credentials</h1>
        <p class="lead">
          With an App Store Connect API key or a Google Play service account, the reviews of your own apps are
          read from the stores' official APIs. Credentials are stored encrypted and never shown again; to
          change one, enter it anew. Followed apps need none.
        </p>
        {!config.credentialsKey && (
          <p class="card" role="status">
            This service has no CREDENTIALS_KEY, so no credential can be stored yet; ask its operator.
          </p>
        )}
        {apps.length === 0
          ? <p>No own apps yet: give an iOS or Android touchpoint its store id to add one.</p>
          : apps.map((a, i) => (
            <section class="card" aria-label={a.name}>
              <div class="row between">
                <h2>
                  {a.name} <span class="hint">{STORE_NAMES[a.store]} {a.store_id}</span> {kinds[i]
                    ? <span class="badge on">credential stored</span>
                    : <span class="badge off">no credential</span>}
                </h2>
                {manage && kinds[i] && (
                  <PostButton
                    action={`${path(org.id)}/${a.id}/remove`}
                    csrf={frame.csrf}
                    label="Remove"
                    kind="danger"
                    confirm={`Remove the credential of ${a.name}?`}
                  />
                )}
              </div>
              {manage && (
                <form method="post" action={`${path(org.id)}/${a.id}`} class="stack" autocomplete="off">
                  <CsrfField csrf={frame.csrf} />
                  {a.store === "app_store"
                    ? (
                      <>
                        <label>
                          Issuer ID <input type="text" name="issuer_id" required />
                        </label>
                        <label>
                          Key ID <input type="text" name="key_id" required />
                        </label>
                        <label>
                          Private key <span class="hint">the .p8 file's text</span>
                          <textarea name="private_key" rows={5} required spellcheck={false} />
                        </label>
                      </>
                    )
                    : (
                      <label>
                        Service account key <span class="hint">the JSON key file's text</span>
                        <textarea name="service_account" rows={6} required spellcheck={false} />
                      </label>
                    )}
                  <div>
                    <button type="submit">{kinds[i] ? "Replace" : "Save"}</button>
                  </div>
                </form>
              )}
            </section>
          ))}
      </Layout>,
    );
  });

  app.post(`${p}/:app`, orgMember(ctx, "admin"), (c) => {
    const org = c.get("org");
    return act(ctx, c, path(org.id), async () => {
      const a = await ownApp(org.id, c.req.param("app"));
      await saveCredential(kv, config.credentialsKey, org.id, a.id, credentialOf(c, a), clock.now());
      return `Credential of ${a.name} saved.`;
    });
  });

  app.post(`${p}/:app/remove`, orgMember(ctx, "admin"), (c) => {
    const org = c.get("org");
    return act(ctx, c, path(org.id), async () => {
      const a = await ownApp(org.id, c.req.param("app"));
      await deleteCredential(kv, org.id, a.id);
      return `Credential of ${a.name} removed.`;
    });
  });

  return app;
}
