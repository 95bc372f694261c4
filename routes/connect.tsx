/**
 * The consent step of an assistant's sign-in, at /app/connect/:id (under /app, where the session cookie
 * lives). The id names a checked authorization request (lib/oauth/codes.ts); the first signed-in person to
 * open it owns it. Allow issues a code and sends the browser back to the assistant; Deny sends access_denied.
 * A decision must come from this service's own pages (Origin), carry the sign-in session's CSRF token, and
 * come from the person the request is bound to.
 */
import { type Context, Hono } from "hono";
import type { AppContext } from "../lib/context.ts";
import { readBodyLimited } from "../lib/schemas/request_body.ts";
import { ENV_NAMES, type EnvName } from "../lib/store/records.ts";
import { endpoints, redirectHost } from "../lib/oauth/urls.ts";
import { isMetadataDocumentUrl } from "../lib/oauth/metadata_document.ts";
import { issueCode, pendingFor, settlePending } from "../lib/oauth/codes.ts";
import { redirectBack } from "../lib/oauth/authorization.ts";
import { safeEqual } from "../lib/keys/apikeys.ts";
import type { Person } from "../lib/oauth/people.ts";
import type { PendingAuthorization } from "../lib/oauth/types.ts";
import { ConsentPage, type ConsentView, MessagePage, type OrgOption } from "./connect_page.tsx";

export const connectPath = (id: string) => `/app/connect/${id}`;

export const messagePage = (title: string, message: string) => (
  <MessagePage
    title={title}
    message={message}
  />
);

/** Consent must not be framed (clickjacking), cached or leak its URL. */
const PAGE_HEADERS: Record<string, string> = {
  "Cache-Control": "no-store",
  "X-Frame-Options": "DENY",
  "Content-Security-Policy":
    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  // same-origin, not no-referrer: under no-referrer a browser posts the form with "Origin: null", which the
  // origin check refuses; other sites (the assistant's callback) still get no Referer.
  "Referrer-Policy": "same-origin",
};

const GONE = "This sign-in request expired, was already answered, or belongs to someone else. Start again " +
  "from the assistant.";

async function orgOptions(ctx: AppContext, person: Person): Promise<OrgOption[]> {
  const out: OrgOption[] = [];
  for (const m of await ctx.oauth.people.memberships(person.id)) {
    const org = await ctx.directory.org(m.org);
    if (org) out.push({ id: org.id, name: org.name, role: m.role });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

function view(
  p: PendingAuthorization,
  person: Person,
  orgs: OrgOption[],
  over: Partial<ConsentView>,
): ConsentView {
  return {
    action: connectPath(p.id),
    clientName: p.client_name,
    clientSource: isMetadataDocumentUrl(p.client_id)
      ? `identified by ${new URL(p.client_id).host}`
      : "name given by the assistant itself",
    redirectHost: redirectHost(p.redirect_uri),
    email: person.email,
    csrf: person.csrf,
    orgs,
    chosen: [],
    env: "production",
    ...over,
  };
}

function sameOrigin(ctx: AppContext, c: Context): boolean {
  const origin = c.req.header("origin") ?? c.req.header("referer");
  if (!origin) return false;
  let from: string;
  try {
    from = new URL(origin).origin;
  } catch {
    return false;
  }
  return from === new URL(c.req.url).origin || from === endpoints(ctx.deps.config, c.req.url).issuer;
}

export function connectRoutes(ctx: AppContext): Hono {
  const app = new Hono();
  const page = (c: Context, status: number, title: string, message: string) =>
    c.html(messagePage(title, message), status as 400, PAGE_HEADERS);

  app.get("/:id", async (c) => {
    const id = c.req.param("id");
    const person = await ctx.oauth.people.signedIn(c.req.raw);
    if (!person) return c.redirect(ctx.oauth.people.signInPath(connectPath(id)), 303);
    const entry = await pendingFor(ctx, id, person.id);
    if (!entry) return page(c, 410, "Sign-in request not valid", GONE);
    const orgs = await orgOptions(ctx, person);
    return c.html(<ConsentPage v={view(entry.value, person, orgs, {})} />, 200, PAGE_HEADERS);
  });

  app.post("/:id", async (c) => {
    const id = c.req.param("id");
    if (!sameOrigin(ctx, c)) {
      return page(c, 403, "Refused", "This form must be sent from this service's own page.");
    }
    const person = await ctx.oauth.people.signedIn(c.req.raw);
    if (!person) return page(c, 401, "Signed out", "Your session ended. Start again from the assistant.");
    const form = new URLSearchParams(await readBodyLimited(c.req.raw, 16 * 1024));
    if (!safeEqual(form.get("_csrf") ?? "", person.csrf)) {
      return page(c, 403, "Refused", "This form has expired or was not sent from this page. Reload it.");
    }
    const entry = await pendingFor(ctx, id, person.id);
    if (!entry) return page(c, 410, "Sign-in request not valid", GONE);
    const p = entry.value;
    if (form.get("decision") !== "approve") {
      if (!(await settlePending(ctx, entry))) return page(c, 410, "Sign-in request not valid", GONE);
      const location = redirectBack(
        p.redirect_uri,
        {
          error: "access_denied",
          error_description: "the person denied the connection",
        },
        p.state,
        p.issuer,
      );
      return c.redirect(location, 303);
    }
    const orgs = await orgOptions(ctx, person);
    const chosen = form.getAll("organization");
    const env = form.get("environment") ?? "production";
    const again = (error: string) =>
      c.html(<ConsentPage v={view(p, person, orgs, { chosen, env, error })} />, 422, PAGE_HEADERS);
    if (chosen.length === 0) return again("Choose at least one organization, or deny.");
    const foreign = chosen.find((o) => !orgs.some((m) => m.id === o));
    if (foreign) return again("You can only share organizations you are a member of.");
    if (!ENV_NAMES.includes(env as EnvName)) return again(`Choose production, staging or development.`);
    if (!(await settlePending(ctx, entry))) return page(c, 410, "Sign-in request not valid", GONE);
    const code = await issueCode(ctx, { ...p, user: person.id }, [...new Set(chosen)], env as EnvName);
    return c.redirect(redirectBack(p.redirect_uri, { code }, p.state, p.issuer), 303);
  });

  return app;
}
