/**
 * The app's shared page frame and form pieces: Layout (header with the organization switcher and account
 * menu, section nav, flash message), CsrfField, PostButton and ErrorPage. Every page under /app uses them.
 */
import type { Child, FC, PropsWithChildren } from "hono/jsx";
import { raw } from "hono/html";
import type { Flash } from "../../lib/people/flash.ts";
import type { Role } from "../../lib/people/records.ts";

export interface OrgChoice {
  id: string;
  name: string;
  role: Role;
}

/** What the frame needs to know about the signed-in person; null on the sign-in pages. */
export interface Frame {
  email: string;
  csrf: string;
  orgs: OrgChoice[];
  org?: OrgChoice;
}

/** One link of the organization's navigation. */
export interface Section {
  id: string;
  label: string;
  path: string;
  /** a page only admins and owners may open: not offered to members (it answered them a 403) */
  admins?: true;
}

/** The organization's navigation in two groups: what people read (analytics) and how it is set up. */
export const NAV_GROUPS: { label: string; sections: Section[] }[] = [
  {
    label: "Analytics",
    sections: [
      { id: "dashboards", label: "Dashboards", path: "dashboards" },
      { id: "insights", label: "Insights", path: "insights" },
      { id: "cohorts", label: "Cohorts", path: "cohorts" },
      { id: "reports", label: "Reports", path: "reports" },
    ],
  },
  {
    label: "Settings",
    sections: [
      { id: "touchpoints", label: "Touchpoints", path: "settings/touchpoints" },
      { id: "read-keys", label: "Read keys", path: "settings/read-keys", admins: true },
      { id: "members", label: "Members", path: "settings/members" },
      { id: "domains", label: "Verified domains", path: "settings/domains" },
      { id: "store-credentials", label: "Store credentials", path: "settings/store-credentials" },
      { id: "assistants", label: "Connected assistants", path: "settings/assistants" },
    ],
  },
];

/** Every section, settings first: an organization opens on its touchpoints (the first thing to set up). */
export const SECTIONS: Section[] = [...NAV_GROUPS[1].sections, ...NAV_GROUPS[0].sections];

export const orgPath = (org: string, path = "") => `/app/o/${org}${path ? `/${path}` : ""}`;

export const CsrfField: FC<{ csrf: string }> = ({ csrf }) => (
  <input
    type="hidden"
    name="_csrf"
    value={csrf}
  />
);

/** A one-button form (sign out, revoke, remove): POST with the CSRF token, optionally confirmed first. */
export const PostButton: FC<
  {
    action: string;
    csrf: string;
    label: string;
    confirm?: string;
    kind?: string;
    fields?: Record<string, string>;
  }
> = (p) => (
  <form method="post" action={p.action} class="inline" data-confirm={p.confirm}>
    <CsrfField csrf={p.csrf} />
    {Object.entries(p.fields ?? {}).map(([k, v]) => <input type="hidden" name={k} value={v} />)}
    <button type="submit" class={p.kind ?? "secondary"}>{p.label}</button>
  </form>
);

const FlashBox: FC<{ flash: Flash | null | undefined }> = ({ flash }) => (
  <>
    {flash?.notice && <p class="flash notice" role="status">{flash.notice}</p>}
    {flash?.error && <p class="flash error" role="alert">{flash.error}</p>}
  </>
);

const Header: FC<{ frame: Frame; section?: string }> = ({ frame, section }) => (
  <header class="top">
    <div class="bar">
      <a class="brand" href="/app">Behavior</a>
      {frame.org && <PhoneNav org={frame.org.id} current={section} role={frame.org.role} />}
      {frame.orgs.length > 0 && (
        <details class="menu">
          <summary aria-label="Switch organization">{frame.org?.name ?? "Organizations"} ▾</summary>
          <ul>
            {frame.orgs.map((o) => (
              <li>
                <a
                  href={orgPath(o.id, SECTIONS[0].path)}
                  aria-current={o.id === frame.org?.id ? "true" : undefined}
                >
                  {o.name} <span class="muted">({o.role})</span>
                </a>
              </li>
            ))}
          </ul>
        </details>
      )}
      <details class="menu">
        <summary aria-label="Account menu">{frame.email} ▾</summary>
        <ul>
          <li>
            <a href="/app/account">Account</a>
          </li>
          <li>
            <a href="/app/assistants">Connected assistants</a>
          </li>
          <li>
            <form method="post" action="/app/sign-out">
              <CsrfField csrf={frame.csrf} />
              <button type="submit">Sign out</button>
            </form>
          </li>
        </ul>
      </details>
    </div>
  </header>
);

const NavGroups: FC<{ org: string; current?: string; role: Role }> = ({ org, current, role }) => (
  <>
    {NAV_GROUPS.map((g) => (
      <div class="nav-group" role="group" aria-label={g.label}>
        <p class="nav-label">{g.label}</p>
        <ul>
          {g.sections.filter((s) => !s.admins || role !== "member").map((s) => (
            <li>
              <a href={orgPath(org, s.path)} aria-current={s.id === current ? "page" : undefined}>
                {s.label}
              </a>
            </li>
          ))}
        </ul>
      </div>
    ))}
  </>
);

/** The side navigation on wide screens (hidden on phones, where the header's menu holds the same links). */
const SectionNav: FC<{ org: string; current?: string; role: Role }> = ({ org, current, role }) => (
  <nav class="sections" aria-label="Organization">
    <NavGroups org={org} current={current} role={role} />
  </nav>
);

/** The phone menu: a <details> that opens without any script, naming the page it is on. */
const PhoneNav: FC<{ org: string; current?: string; role: Role }> = ({ org, current, role }) => {
  const here = SECTIONS.find((s) => s.id === current);
  return (
    <details class="phone-nav">
      <summary>
        <span aria-hidden="true">☰</span> Menu{here ? <span class="muted-light">: {here.label}</span> : null}
      </summary>
      <nav aria-label="Organization (menu)">
        <NavGroups org={org} current={current} role={role} />
      </nav>
    </details>
  );
};

export const Layout: FC<
  PropsWithChildren<
    { title: string; frame?: Frame | null; section?: string; flash?: Flash | null; narrow?: boolean }
  >
> = (p) => (
  <>
    {raw("<!doctype html>")}
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{p.title} · Behavior</title>
        <link rel="icon" href="/app/assets/favicon.svg" type="image/svg+xml" />
        <link rel="stylesheet" href="/app/assets/app.css" />
        <script src="/app/assets/app.js" defer></script>
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        {p.frame && <Header frame={p.frame} section={p.section} />}
        <div class={p.frame?.org ? "shell with-nav" : "shell"}>
          {p.frame?.org && <SectionNav org={p.frame.org.id} current={p.section} role={p.frame.org.role} />}
          <main id="main" class={p.narrow ? "narrow" : undefined} tabindex={-1}>
            <FlashBox flash={p.flash} />
            {p.children}
          </main>
        </div>
        <p id="live" class="sr-only" aria-live="polite"></p>
      </body>
    </html>
  </>
);

/** A secret shown once, with a copy button (revealed by the script; without it the text can be selected). */
export const SecretBox: FC<{ id: string; label: string; value: string }> = (p) => (
  <div class="card" role="region" aria-labelledby={`${p.id}-label`}>
    <p id={`${p.id}-label`}>
      <strong>{p.label}</strong> It is shown only now: copy it somewhere safe.
    </p>
    <div class="secret">
      <code id={p.id}>{p.value}</code>
      <button type="button" class="secondary" data-copy={`#${p.id}`} hidden>Copy</button>
    </div>
  </div>
);

export const CodeBlock: FC<{ id: string; label: string; code: string }> = (p) => (
  <div>
    <div class="row between">
      <p>{p.label}</p>
      <button type="button" class="secondary" data-copy={`#${p.id}`} hidden>Copy</button>
    </div>
    <pre id={p.id}>{p.code}</pre>
  </div>
);

export const ErrorPage: FC<
  { status: number; title: string; message: string; frame?: Frame | null; action?: Child }
> = (
  p,
) => (
  <Layout title={p.title} frame={p.frame} narrow>
    <h1>{p.title}</h1>
    <p>{p.message}</p>
    {p.action ?? (
      <p>
        <a href="/app">Back to the app</a>
      </p>
    )}
  </Layout>
);
