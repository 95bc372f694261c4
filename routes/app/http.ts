/**
 * What every page of the app shares on the HTTP side: the session cookie, the origin and CSRF checks, form
 * bodies, and post-redirect-get with a flash message. Pages call the same domain functions as the admin API.
 */
import type { Context, MiddlewareHandler } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import type { AppContext } from "../../lib/context.ts";
import { forbidden, HttpError, notFound, unauthorized } from "../../lib/errors.ts";
import { readBodyLimited } from "../../lib/schemas/request_body.ts";
import { safeEqual } from "../../lib/keys/apikeys.ts";
import { clientAddress, type ConnInfo } from "../../lib/enrich/client_address.ts";
import type { Org } from "../../lib/store/records.ts";
import type { Membership, Role, Session, User } from "../../lib/people/records.ts";
import {
  ABSOLUTE_MS,
  type OpenedSession,
  resumeSession,
  SESSION_COOKIES,
} from "../../lib/people/sessions.ts";
import { type Flash, openSecret, setFlash, takeFlash } from "../../lib/people/flash.ts";
import { aRole, atLeast } from "../../lib/people/roles.ts";

export interface Auth {
  user: User;
  session: Session;
  hash: string;
  token: string;
}

export type AppEnv = {
  Variables: {
    auth: Auth | null;
    form: URLSearchParams;
    org: Org;
    membership: Membership;
  };
};
export type C = Context<AppEnv>;

/** The service's own origin: PUBLIC_URL when set (behind a proxy), else the request's. */
export const baseUrl = (ctx: AppContext, c: Context) =>
  ctx.deps.config.publicUrl ?? new URL(c.req.url).origin;

/** Over HTTPS the cookie is `__Host-` prefixed and Secure (so Path=/); over plain HTTP it lives under /app. */
function cookieSpec(ctx: AppContext, c: Context) {
  const secure = baseUrl(ctx, c).startsWith("https:");
  return secure
    ? { name: SESSION_COOKIES[0], path: "/", secure: true }
    : { name: SESSION_COOKIES[1], path: "/app", secure: false };
}

export function setSessionCookie(ctx: AppContext, c: Context, opened: OpenedSession) {
  const spec = cookieSpec(ctx, c);
  setCookie(c, spec.name, opened.token, {
    path: spec.path,
    secure: spec.secure,
    httpOnly: true,
    sameSite: "Lax",
    maxAge: Math.floor(ABSOLUTE_MS / 1000),
  });
}

export function clearSessionCookie(ctx: AppContext, c: Context) {
  const spec = cookieSpec(ctx, c);
  setCookie(c, spec.name, "", {
    path: spec.path,
    secure: spec.secure,
    httpOnly: true,
    sameSite: "Lax",
    maxAge: 0,
  });
}

export const addressOf = (ctx: AppContext, c: Context) =>
  clientAddress(c.req.raw, c.env as ConnInfo | undefined, ctx.deps.config.trustProxy);

const FORM_LIMIT = 64 * 1024;

/**
 * Every request: security headers and the session (if any). Every POST: the Origin (or Referer) must be
 * this service's own, and the form body is read once (at most 64 KiB). Writes clear this process's caches.
 */
export function sessionLayer(ctx: AppContext): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const spec = cookieSpec(ctx, c);
    const token = getCookie(c, spec.name);
    let auth: Auth | null = null;
    if (token) {
      const live = await resumeSession(ctx.deps.kv, ctx.deps.clock, token, (id) => ctx.people.user(id));
      if (live) auth = { ...live, token };
      else clearSessionCookie(ctx, c);
    }
    c.set("auth", auth);
    if (c.req.method === "POST") {
      const own = baseUrl(ctx, c);
      const origin = c.req.header("origin") ?? originOf(c.req.header("referer"));
      if (origin !== own) throw forbidden("this form must be sent from the service's own pages");
      c.set("form", new URLSearchParams(await readBodyLimited(c.req.raw, FORM_LIMIT)));
    }
    await next();
    c.header("Cache-Control", "no-store");
    // same-origin, not no-referrer: with no-referrer a browser sends "Origin: null" on form posts.
    c.header("Referrer-Policy", "same-origin");
    c.header("X-Content-Type-Options", "nosniff");
    c.header("X-Frame-Options", "DENY");
    c.header(
      "Content-Security-Policy",
      "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; connect-src 'self'; " +
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    if (c.req.method !== "GET" && c.req.method !== "HEAD") {
      ctx.directory.invalidate();
      ctx.people.invalidate();
    }
  };
}

function originOf(url: string | undefined): string | null {
  if (!url) return null;
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/** A field of the posted form, trimmed ("" when absent). */
export const field = (c: C, name: string) => (c.get("form")?.get(name) ?? "").trim();
/** Passwords are taken exactly as typed. */
export const secretField = (c: C, name: string) => c.get("form")?.get(name) ?? "";

/**
 * Pages for signed-in people. GET without a session goes to sign-in; every POST must carry the session's
 * CSRF token (compared in constant time).
 */
export const signedIn: MiddlewareHandler<AppEnv> = async (c, next) => {
  const auth = c.get("auth");
  if (!auth) {
    if (c.req.method === "GET") {
      return c.redirect(`/app/sign-in?next=${encodeURIComponent(c.req.path)}`, 303);
    }
    throw unauthorized("your session has ended; sign in again");
  }
  if (c.req.method === "POST") checkCsrf(c, auth);
  await next();
};

/** A form posted within a session carries that session's CSRF token. */
export function checkCsrf(c: C, auth: Auth) {
  if (!safeEqual(field(c, "_csrf"), auth.session.csrf)) {
    throw forbidden("this form has expired or was not sent from this page; reload the page and try again");
  }
}

/**
 * Pages of one organization (`:org` in the path) for its members with at least `min`. Not a member: 404
 * (the organization's existence is not revealed); a member below `min`: 403.
 */
export function orgMember(ctx: AppContext, min: Role): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const auth = c.get("auth")!;
    const orgId = c.req.param("org") ?? "";
    const membership = await ctx.people.membership(orgId, auth.user.id);
    const org = membership ? await ctx.directory.org(orgId) : null;
    if (!membership || !org) {
      throw notFound("no such organization, or you are not a member");
    }
    c.set("org", org); // the 403 page keeps the organization's frame
    c.set("membership", membership);
    if (!atLeast(membership.role, min)) {
      throw forbidden(
        `this needs the ${min} role or higher in ${org.name}; you are ${aRole(membership.role)}`,
      );
    }
    await next();
  };
}

/** Post-redirect-get: stores a message for the next page of this session and redirects there. */
export async function redirectWith(ctx: AppContext, c: C, to: string, flash: Flash) {
  const auth = c.get("auth");
  if (auth) await setFlash(ctx.deps.kv, auth.hash, flash);
  return c.redirect(to, 303);
}

/** The flash of this page view, with its secret (a new key) opened, if any; it is gone after this. */
export async function pageFlash<T>(
  ctx: AppContext,
  c: C,
): Promise<{ flash: Flash | null; secret: T | null }> {
  const auth = c.get("auth");
  if (!auth) return { flash: null, secret: null };
  const flash = await takeFlash(ctx.deps.kv, auth.hash);
  const secret = flash?.secret ? await openSecret<T>(auth.token, flash.secret) : null;
  return { flash, secret };
}

/**
 * A refusal the person can act on (a 422 naming the field, the last-owner rule, ...): shown on the page,
 * not as an error page. A 429 is not one (it has its own page) and neither is a 5xx.
 */
export const isRefusal = (err: unknown): err is HttpError =>
  err instanceof HttpError && err.status >= 400 && err.status < 500 && err.status !== 429;

/**
 * Runs a change and redirects back with its outcome: a 4xx refusal (a 422 naming the field, the last-owner
 * rule, ...) becomes the next page's error message instead of an error page.
 */
export async function act(ctx: AppContext, c: C, back: string, change: () => Promise<Flash | string>) {
  try {
    const done = await change();
    return await redirectWith(ctx, c, back, typeof done === "string" ? { notice: done } : done);
  } catch (err) {
    if (isRefusal(err)) {
      return await redirectWith(ctx, c, back, { error: err.message });
    }
    throw err;
  }
}
