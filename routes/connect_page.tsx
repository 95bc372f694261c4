/**
 * The consent page an assistant's sign-in leads to, and the plain message page of the OAuth flow. Server
 * rendered, no script: labelled controls in fieldsets, one heading, the two decisions as real buttons.
 */
import type { FC, PropsWithChildren } from "hono/jsx";
import { ENV_NAMES } from "../lib/store/records.ts";

const STYLE = `
body{font:16px/1.5 system-ui,sans-serif;margin:0;color:#1b1f24;background:#f6f7f9}
main{max-width:34rem;margin:2rem auto;padding:1.5rem;background:#fff;border:1px solid #d8dde3;border-radius:8px}
@media (max-width:40rem){main{margin:0;border:0;border-radius:0}}
h1{font-size:1.35rem;margin-top:0}dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem}
dt{color:#57606a}dd{margin:0;overflow-wrap:anywhere}fieldset{border:1px solid #d8dde3;border-radius:6px;margin:1rem 0}
legend{font-weight:600;padding:0 .25rem}label{display:block;padding:.35rem 0}
.actions{display:flex;gap:.75rem;flex-wrap:wrap;margin-top:1.25rem}
button{font:inherit;padding:.6rem 1.2rem;border-radius:6px;border:1px solid #1f6feb;cursor:pointer}
.approve{background:#1f6feb;color:#fff}.deny{background:#fff;color:#1f6feb}
button:focus-visible,input:focus-visible{outline:3px solid #f0a000;outline-offset:2px}
.alert{background:#ffebe9;border:1px solid #ff8182;padding:.5rem .75rem;border-radius:6px}
.muted{color:#57606a;font-size:.9rem}`;

export const Page: FC<PropsWithChildren<{ title: string }>> = ({ title, children }) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>{title}</title>
      <style>{STYLE}</style>
    </head>
    <body>
      <main id="main">{children}</main>
    </body>
  </html>
);

export const MessagePage: FC<{ title: string; message: string }> = ({ title, message }) => (
  <Page title={title}>
    <h1>{title}</h1>
    <p>{message}</p>
  </Page>
);

export interface OrgOption {
  id: string;
  name: string;
  role: string;
}

export interface ConsentView {
  action: string;
  clientName: string;
  /** Where the client's identity comes from: its metadata document's host, or "registered itself". */
  clientSource: string;
  redirectHost: string;
  email: string;
  csrf: string;
  orgs: OrgOption[];
  chosen: string[];
  env: string;
  error?: string;
}

export const ConsentPage: FC<{ v: ConsentView }> = ({ v }) => (
  <Page title={`Connect ${v.clientName}?`}>
    <h1>Connect {v.clientName} to your analytics?</h1>
    {v.error && <p class="alert" role="alert">{v.error}</p>}
    <dl>
      <dt>Assistant</dt>
      <dd>
        {v.clientName} <span class="muted">({v.clientSource})</span>
      </dd>
      <dt>Returns you to</dt>
      <dd>{v.redirectHost}</dd>
      <dt>Signed in as</dt>
      <dd>{v.email}</dd>
    </dl>
    <p>
      It will be able to <strong>read</strong>{" "}
      the analytics of the organizations you choose: visitors, pages, sources, events, crawler activity and
      the plan's allowances. It cannot change anything, and it never sees a visitor's address or identity. It
      acts as you: if you leave an organization, it can no longer read it.
    </p>
    {v.orgs.length === 0
      ? (
        <p class="alert" role="alert">
          You are not a member of any organization, so there is nothing to share.
        </p>
      )
      : null}
    <form method="post" action={v.action}>
      <input type="hidden" name="_csrf" value={v.csrf} />
      {v.orgs.length > 0 && (
        <fieldset>
          <legend>Organizations it may read</legend>
          {v.orgs.map((o) => (
            <label>
              <input
                type="checkbox"
                name="organization"
                value={o.id}
                checked={v.chosen.includes(o.id) || v.orgs.length === 1}
              />{" "}
              {o.name} <span class="muted">({o.role})</span>
            </label>
          ))}
        </fieldset>
      )}
      {v.orgs.length > 0 && (
        <fieldset>
          <legend>Data to read</legend>
          {ENV_NAMES.map((e) => (
            <label>
              <input type="radio" name="environment" value={e} checked={v.env === e} /> {e}
              {e === "production" ? " (your live sites and apps)" : ""}
            </label>
          ))}
        </fieldset>
      )}
      <div class="actions">
        {v.orgs.length > 0 && (
          <button type="submit" name="decision" value="approve" class="approve">Allow</button>
        )}
        <button type="submit" name="decision" value="deny" class="deny">Deny</button>
      </div>
    </form>
    <p class="muted">You can disconnect it at any time under Settings, Connected assistants.</p>
  </Page>
);
