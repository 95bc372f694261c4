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
import {
  act,
  type AppEnv,
  type C,
  field,
  isRefusal,
  orgMember,
  pageFlash,
  redirectWith,
  secretField,
} from "./http.ts";
import { CsrfField, Layout, orgPath, PostButton } from "./layout.tsx";
import { frameOf } from "./frame.ts";

const path = (org: string) => orgPath(org, "settings/store-credentials");
const STORE_NAMES = { app_store: "App Store", google_play: "Google Play" } as const;

/** The form's fields by the words the form shows them with, for refusals. */
const LABEL = {
  issuer_id: "Issuer ID",
  key_id: "Key ID",
  private_key: "Private key (the .p8 file's text)",
  service_account: "Service account key (the JSON key file's text)",
} as const;

/** What a person typed that may be shown back on a refusal: never a private key or a key file. */
interface Entered {
  app: string;
  issuer_id: string;
  key_id: string;
}

/**
 * The credential a form describes, checked by the same schema as the admin API; a refusal (422) names the
 * field as the form labels it.
 */
function credentialOf(c: C, app: FeedbackApp) {
  if (app.store === "app_store") {
    const pem = secretField(c, "private_key");
    const r = FeedbackCredential.safeParse({
      kind: "app_store_connect",
      issuer_id: field(c, "issuer_id"),
      key_id: field(c, "key_id"),
      private_key: pem.trim(),
    });
    const issue = r.success ? null : r.error.issues[0];
    const name = issue?.path[0];
    if (issue && (name === "issuer_id" || name === "key_id")) {
      throw invalid(`${LABEL[name]}: ${tooWhat(issue.code)}; copy it from App Store Connect (Integrations).`);
    }
    checkPrivateKey(pem, LABEL.private_key);
    if (!r.success) {
      throw invalid(`${LABEL.private_key}: paste the whole .p8 file as App Store Connect gave it.`);
    }
    return r.data;
  }
  const label = LABEL.service_account;
  const asIs = `${label}: paste the JSON key file as Google Cloud gave it`;
  let account: Record<string, unknown>;
  try {
    account = JSON.parse(secretField(c, "service_account"));
  } catch {
    throw invalid(`${asIs}; this is not its text.`);
  }
  if (typeof account !== "object" || account === null) throw invalid(`${asIs}; this is not its text.`);
  const r = FeedbackCredential.safeParse({
    kind: "google_play",
    client_email: account.client_email,
    private_key: account.private_key,
    ...(account.token_uri ? { token_uri: account.token_uri } : {}),
  });
  const issue = r.success ? null : r.error.issues[0];
  if (issue?.path[0] === "client_email") {
    throw invalid(`${asIs}; its client_email is missing or not an email address.`);
  }
  checkPrivateKey(String(account.private_key ?? ""), `${label}, its private_key`);
  if (issue?.path[0] === "token_uri") throw invalid(`${asIs}; its token_uri is not a web address.`);
  if (!r.success) throw invalid(`${asIs}.`);
  return r.data;
}

const tooWhat = (code: string) => code === "too_big" ? "too long" : "missing";

export function storeCredentialsRoutes(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { kv, clock, config } = ctx.deps;
  const p = "/o/:org/settings/store-credentials";

  /** One of the organization's own apps (a followed app, or another organization's, is refused). */
  const ownApp = async (org: string, id: string) => {
    const a = await getApp(kv, org, id);
    if (a.followed) {
      throw invalid("Credentials belong to your own apps; a followed app is read from public sources.");
    }
    return a;
  };

  /**
   * The page; after a refusal, with its message and the refused form's non-secret fields as they were typed
   * (a private key or key file is never shown back: it is asked for again).
   */
  const page = async (c: C, refused?: { error: string; status: number; entered: Entered }) => {
    const org = c.get("org");
    const manage = can.manageSettings(c.get("membership").role);
    const frame = (await frameOf(ctx, c))!;
    const flash = refused ? { error: refused.error } : (await pageFlash(ctx, c)).flash;
    const typed = (a: FeedbackApp) => refused?.entered.app === a.id ? refused.entered : null;
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
                          Issuer ID{" "}
                          <input type="text" name="issuer_id" required value={typed(a)?.issuer_id ?? ""} />
                        </label>
                        <label>
                          Key ID <input type="text" name="key_id" required value={typed(a)?.key_id ?? ""} />
                        </label>
                        <label>
                          Private key <span class="hint">the .p8 file's text</span>{" "}
                          {typed(a) && <span class="hint">(paste it again: a key is never shown back)</span>}
                          <textarea name="private_key" rows={5} required spellcheck={false} />
                        </label>
                      </>
                    )
                    : (
                      <label>
                        Service account key <span class="hint">the JSON key file's text</span>{" "}
                        {typed(a) && (
                          <span class="hint">(paste it again: a key file is never shown back)</span>
                        )}
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
      (refused?.status ?? 200) as 200,
    );
  };

  app.get(p, orgMember(ctx, "member"), (c) => page(c));

  app.post(`${p}/:app`, orgMember(ctx, "admin"), async (c) => {
    const org = c.get("org");
    try {
      const a = await ownApp(org.id, c.req.param("app"));
      await saveCredential(kv, config.credentialsKey, org.id, a.id, credentialOf(c, a), clock.now());
      return await redirectWith(ctx, c, path(org.id), { notice: `Credential of ${a.name} saved.` });
    } catch (err) {
      if (!isRefusal(err)) throw err;
      const entered = {
        app: c.req.param("app"),
        issuer_id: field(c, "issuer_id"),
        key_id: field(c, "key_id"),
      };
      return await page(c, { error: err.message, status: err.status, entered });
    }
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
