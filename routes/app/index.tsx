/**
 * The app under /app: server-rendered pages (hono/jsx), no client framework. Sign-in pages work without a
 * session; everything under /app/o/:org needs one and a membership (the role each page needs is checked
 * by `orgMember`). Errors become pages: 403 and 404 with the app's frame, 429 with Retry-After.
 */
import { Hono } from "hono";
import type { AppContext } from "../../lib/context.ts";
import { HttpError, isFailure, notFound } from "../../lib/errors.ts";
import { type AppEnv, type C, sessionLayer, signedIn } from "./http.ts";
import { ErrorPage } from "./layout.tsx";
import { frameOf } from "./frame.ts";
import { APP_CSS, APP_JS, FAVICON_SVG } from "./assets.ts";
import { signInRoutes } from "./sign_in.tsx";
import { inviteRoutes } from "./invite.tsx";
import { accountRoutes } from "./account.tsx";
import { touchpointsRoutes } from "./touchpoints.tsx";
import { touchpointRoutes } from "./touchpoint.tsx";
import { readKeysRoutes } from "./read_keys.tsx";
import { membersRoutes } from "./members.tsx";
import { domainsRoutes } from "./domains.tsx";
import { storeCredentialsRoutes } from "./store_credentials.tsx";
import { assistantsRoutes } from "./assistants.tsx";
import { cohortsRoutes } from "./saved_cohorts.tsx";
import { insightsRoutes } from "./saved_insights.tsx";
import { dashboardsRoutes } from "./saved_dashboards.tsx";
import { reportsRoutes } from "./reports.tsx";

/** A page title for every status the failures of lib/errors.ts map to (and the app's own 410). */
export const TITLES: Record<number, string> = {
  401: "Please sign in again",
  402: "This month's allowance is used",
  403: "Not allowed",
  404: "Not found",
  408: "The form took too long to arrive",
  409: "Not saved",
  410: "Link not valid",
  413: "Too large",
  415: "Sent in a form this page cannot read",
  422: "Please check the form",
  429: "Too many attempts",
};

const MAX_PATH_SEGMENT = 255;

export function appRoutes(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  const asset = (body: string, type: string) => () =>
    new Response(body, { headers: { "content-type": type, "cache-control": "public, max-age=300" } });
  app.get("/assets/app.css", asset(APP_CSS, "text/css; charset=utf-8"));
  app.get("/assets/app.js", asset(APP_JS, "text/javascript; charset=utf-8"));
  app.get("/assets/favicon.svg", asset(FAVICON_SVG, "image/svg+xml"));

  app.onError(async (err, c) => {
    const cc = c as C;
    if (!(err instanceof HttpError)) {
      ctx.deps.log.error("app page failed", {
        path: c.req.path,
        error: String(err?.stack ?? err).slice(0, 2000),
      });
      return c.html(
        <ErrorPage status={500} title="Something went wrong" message="Please try again in a moment." />,
        500,
      );
    }
    if (isFailure(err, "unauthorized") && c.req.method === "GET") return c.redirect("/app/sign-in", 303);
    const frame = cc.get("auth") ? await frameOf(ctx, cc).catch(() => null) : null;
    const title = TITLES[err.status] ?? "Something went wrong";
    const action = isFailure(err, "unauthorized")
      ? (
        <p>
          <a href="/app/sign-in">Sign in</a>
        </p>
      )
      : undefined;
    return c.html(
      <ErrorPage
        status={err.status}
        title={title}
        message={capitalize(err.message)}
        frame={frame}
        action={action}
      />,
      err.status as 403,
      err.headers,
    );
  });

  app.use("*", sessionLayer(ctx));
  app.use("/o/*", signedIn);
  // ids in these paths go into KV keys (2 KiB at most); none is this long (a domain is 253 at most): 404
  app.use("/o/*", async (c, next) => {
    if (c.req.path.split("/").some((segment) => segment.length > MAX_PATH_SEGMENT)) {
      throw notFound("there is no such page");
    }
    await next();
  });
  app.route("/", signInRoutes(ctx));
  app.route("/", inviteRoutes(ctx));
  app.route("/", accountRoutes(ctx));
  app.route("/", touchpointsRoutes(ctx));
  app.route("/", touchpointRoutes(ctx));
  app.route("/", readKeysRoutes(ctx));
  app.route("/", membersRoutes(ctx));
  app.route("/", domainsRoutes(ctx));
  app.route("/", storeCredentialsRoutes(ctx));
  app.route("/", assistantsRoutes(ctx));
  app.route("/", cohortsRoutes(ctx));
  app.route("/", insightsRoutes(ctx));
  app.route("/", dashboardsRoutes(ctx));
  app.route("/", reportsRoutes(ctx));
  app.all("*", () => {
    throw notFound("there is no such page");
  });
  return app;
}

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1) + (/[.!?]$/.test(s) ? "" : ".");
