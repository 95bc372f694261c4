/**
 * OAuth's own error answers (RFC 6749 §5.2, RFC 7591 §3.2.2, RFC 7009 §2.2.1): `{error, error_description}`,
 * not the service's Error body, because OAuth clients parse exactly this shape.
 */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    description: string,
    readonly status = 400,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
  }
}

export const invalidRequest = (msg: string) => new OAuthError("invalid_request", msg);
export const invalidGrant = (msg: string) => new OAuthError("invalid_grant", msg);
export const invalidClient = (msg: string, basic = false) =>
  new OAuthError("invalid_client", msg, 401, basic ? { "WWW-Authenticate": 'Basic realm="oauth"' } : {});
export const invalidTarget = (msg: string) => new OAuthError("invalid_target", msg);

export function oauthErrorResponse(err: OAuthError): Response {
  return Response.json({ error: err.error, error_description: err.message }, {
    status: err.status,
    headers: { "Cache-Control": "no-store", ...err.headers },
  });
}
