/**
 * The Host header as an authority (RFC 9112 §3.2: a request whose Host is not one is answered 400). The
 * server builds the request's URL from it, so a Host such as "a b" or "127.0.0.1:99999" makes a URL that
 * does not parse, and "x/y" one whose path is not the path asked for: both are refused before routing.
 */
const AUTHORITY = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252}))(?::(\d{1,5}))?$/;

/** Why this request's Host (or the URL built from it) cannot be used, or null when it can. */
export function hostProblem(req: Request): string | null {
  const host = req.headers.get("host");
  const quoted = JSON.stringify((host ?? "").slice(0, 100));
  if (host !== null) {
    const m = host.match(AUTHORITY);
    if (!m || (m[1] !== undefined && Number(m[1]) > 65_535)) {
      return `the Host header ${quoted} is not a valid authority (host or host:port)`;
    }
  }
  try {
    new URL(req.url);
  } catch {
    return `the Host header ${quoted} does not make a valid request URL`;
  }
  return null;
}
