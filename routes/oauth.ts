/**
 * The service as its own OAuth authorization server for /mcp: discovery documents, the authorization
 * endpoint (checks the request, then hands the person to the consent page under /app/connect), the token,
 * registration and revocation endpoints. Answers use OAuth's error shape, with CORS open to any origin
 * (browser-based MCP clients call these; no cookie is involved).
 */
import { type Context, Hono } from "hono";
import { cors } from "hono/cors";
import type { AppContext } from "../lib/context.ts";
import { readBodyLimited } from "../lib/schemas/request_body.ts";
import { isFailure } from "../lib/errors.ts";
import { BODY_LIMITS, guardJson } from "../lib/schemas/json_limits.ts";
import { clientAddress, type ConnInfo } from "../lib/enrich/client_address.ts";
import { sha256Hex } from "../lib/keys/apikeys.ts";
import { endpoints, MCP_PATH, PRM_PATH } from "../lib/oauth/urls.ts";
import { authorizationServerMetadata, protectedResourceMetadata } from "../lib/oauth/metadata.ts";
import { invalidRequest, OAuthError, oauthErrorResponse } from "../lib/oauth/errors.ts";
import { authenticateClient, registerClient } from "../lib/oauth/clients.ts";
import { exchangeCode, refreshTokens, revokeToken } from "../lib/oauth/tokens.ts";
import { checkAuthorizationRequest } from "../lib/oauth/authorization.ts";
import { savePending } from "../lib/oauth/codes.ts";
import { connectPath, messagePage } from "./connect.tsx";

const FORM_LIMIT = 16 * 1024;
/** Dynamic registrations from one address per minute: enough for any client, not for filling the store. */
export const REGISTRATIONS_PER_MINUTE = 20;

/** A body that did not arrive in time is answered with the service's 408, not as bad metadata. */
const tooSlow = (err: unknown) => isFailure(err, "tooSlow");

async function readForm(req: Request): Promise<URLSearchParams> {
  const type = req.headers.get("content-type") ?? "";
  if (!type.toLowerCase().startsWith("application/x-www-form-urlencoded")) {
    throw invalidRequest("send the parameters as application/x-www-form-urlencoded");
  }
  try {
    return new URLSearchParams(await readBodyLimited(req, FORM_LIMIT));
  } catch (err) {
    if (tooSlow(err)) throw err;
    throw invalidRequest(`the body is larger than ${FORM_LIMIT} bytes`);
  }
}

async function oauthAnswer(run: () => Promise<Response>): Promise<Response> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof OAuthError) return oauthErrorResponse(err);
    throw err;
  }
}

const noStore = { "Cache-Control": "no-store", Pragma: "no-cache" };

export function oauthRoutes(ctx: AppContext): Hono {
  const app = new Hono();
  const ep = (c: Context) => endpoints(ctx.deps.config, c.req.url);
  const open = cors({
    origin: "*",
    allowMethods: ["GET", "POST", "OPTIONS"],
    allowHeaders: ["authorization", "content-type", "mcp-protocol-version"],
    maxAge: 600,
  });
  app.use("/.well-known/*", open);
  app.use("/oauth/token", open);
  app.use("/oauth/register", open);
  app.use("/oauth/revoke", open);

  const prm = (c: Context) => c.json(protectedResourceMetadata(ep(c)));
  app.get(PRM_PATH + MCP_PATH, prm);
  app.get(PRM_PATH, prm);
  const asm = (c: Context) => c.json(authorizationServerMetadata(ep(c)));
  app.get("/.well-known/oauth-authorization-server", asm);
  app.get("/.well-known/openid-configuration", asm);

  app.get("/oauth/authorize", async (c) => {
    const e = ep(c);
    const checked = await checkAuthorizationRequest(ctx, new URL(c.req.url).searchParams, e);
    if (checked.kind === "page") {
      return c.html(messagePage("This assistant cannot connect", checked.message), checked.status);
    }
    if (checked.kind === "redirect") return c.redirect(checked.location, 302);
    const pending = await savePending(ctx, checked.request, e.issuer);
    return c.redirect(connectPath(pending.id), 303);
  });

  app.post("/oauth/token", (c) =>
    oauthAnswer(async () => {
      const form = await readForm(c.req.raw);
      const client = await authenticateClient(ctx, c.req.header("authorization"), form);
      const grantType = form.get("grant_type");
      if (grantType === "authorization_code") {
        return c.json(await exchangeCode(ctx, client, form), 200, noStore);
      }
      if (grantType === "refresh_token") {
        return c.json(await refreshTokens(ctx, client, form), 200, noStore);
      }
      throw new OAuthError(
        "unsupported_grant_type",
        `grant_type must be authorization_code or refresh_token, not "${(grantType ?? "").slice(0, 50)}"`,
      );
    }));

  app.post("/oauth/register", (c) =>
    oauthAnswer(async () => {
      const addr = clientAddress(c.req.raw, c.env as ConnInfo | undefined, ctx.deps.config.trustProxy);
      const rate = await ctx.rates.take(
        "oauth_register",
        sha256Hex(addr ?? "unknown"),
        REGISTRATIONS_PER_MINUTE,
      );
      if (!rate.ok) {
        throw new OAuthError(
          "invalid_request",
          "too many registrations from this address; wait a minute",
          429,
          {
            "Retry-After": String(rate.retryAfterS),
          },
        );
      }
      let text: string;
      try {
        text = await readBodyLimited(c.req.raw, FORM_LIMIT);
      } catch (err) {
        if (tooSlow(err)) throw err;
        throw new OAuthError(
          "invalid_client_metadata",
          `the client metadata is larger than ${FORM_LIMIT} bytes`,
        );
      }
      const guarded = guardJson(text, BODY_LIMITS, "metadata");
      if (!guarded.ok) {
        throw new OAuthError(
          "invalid_client_metadata",
          guarded.notJson ? "send the client metadata as a JSON object (at most 16 KiB)" : guarded.message,
        );
      }
      const body = guarded.value;
      return c.json(await registerClient(ctx, body), 201, noStore);
    }));

  app.post("/oauth/revoke", (c) =>
    oauthAnswer(async () => {
      const form = await readForm(c.req.raw);
      const client = await authenticateClient(ctx, c.req.header("authorization"), form);
      await revokeToken(ctx, client, form);
      return c.body(null, 200, noStore);
    }));

  return app;
}
