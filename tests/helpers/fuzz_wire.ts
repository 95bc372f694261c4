/**
 * Hostile requests on the wire, where a Request object cannot go: Host, method, header and framing
 * mutations over a real loopback socket against the app behind the connection guard. Every answer is
 * counted by status; a 5xx is a failure. Status 0 means the connection closed without an answer (the
 * server's HTTP layer refusing a request it cannot parse: RFC 9112 lets it close).
 */
import fc from "fast-check";
import type { FuzzWorld } from "./fuzz.ts";
import { rawRequest } from "./raw_http.ts";

export const WIRE_PATHS = [
  "/mcp",
  "/.well-known/oauth-authorization-server",
  "/.well-known/oauth-protected-resource/mcp",
  "/.well-known/openid-configuration",
  "/app",
  "/app/sign-in",
  "/oauth/authorize?client_id=oc_12345678&redirect_uri=http%3A%2F%2F127.0.0.1%3A1%2Fcb",
  "/oauth/register",
  "/oauth/token",
  "/oauth/revoke",
  "/v1/behavior/events",
  "/v1/behavior/server-events",
  "/v1/read/behavior_overview",
  "/admin/v1/orgs",
  "/healthz",
];

const HOSTS = [
  "127.0.0.1",
  "127.0.0.1:99999",
  "a b",
  "[::1",
  "[::1]:8080",
  "x/y",
  "a@b",
  "a?b",
  "evil.test",
  "",
  "%00",
  "a".repeat(300),
  "-",
  "127.0.0.1:",
];
const METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD", "FOO", "CONNECT"];
const BODIES = [
  "",
  "{}",
  "[".repeat(3_000) + "]".repeat(3_000),
  '{"a":'.repeat(2_000) + "1" + "}".repeat(2_000),
  '{"x":1e400}',
  '{"x":"\\ud800"}',
  '{"redirect_uris":["\\u0000http://127.0.0.1:1/cb"]}',
  '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
  "grant_type=authorization_code&code=x&client_id=oc_12345678",
  "not json",
  "\u0000\u0001\u0002",
];

export interface WireCase {
  method: string;
  path: string;
  host: string | null;
  headers: [string, string][];
  framing: "length" | "chunked" | "bad-chunk" | "short-length" | "te-and-cl" | "none";
  body: string;
}

export function wireCase(w: FuzzWorld): fc.Arbitrary<WireCase> {
  const auth = fc.constantFrom<[string, string][]>(
    [],
    [["Authorization", `Bearer ${w.t.readKey}`]],
    [["Authorization", `Bearer ${w.t.serverKey}`]],
    [["Authorization", "Bearer x"]],
    [["Origin", "https://acme.test"], ["X-Api-Key", w.t.publicKey]],
    [["Origin", "https://evil.test"]],
  );
  const extra = fc.constantFrom<[string, string][]>(
    [],
    [["Content-Type", "application/json"]],
    [["Content-Type", "application/x-www-form-urlencoded"]],
    [["Content-Type", "application/json"], ["Content-Type", "text/plain"]],
    [["Accept", "application/json, text/event-stream"], ["Content-Type", "application/json"]],
    [["X-Long", "v".repeat(8_000)]],
    [["Content-Length", "abc"]],
    [["Expect", "100-continue"]],
    [["X-Forwarded-For", "1.2.3.4, [::1"]],
  );
  return fc.record({
    method: fc.constantFrom(...METHODS),
    path: fc.constantFrom(...WIRE_PATHS),
    host: fc.constantFrom<string | null>(null, ...HOSTS),
    headers: fc.tuple(auth, extra).map(([a, b]) => [...a, ...b]),
    framing: fc.constantFrom("length", "chunked", "bad-chunk", "short-length", "te-and-cl", "none"),
    body: fc.constantFrom(...BODIES),
  });
}

export function wireText(c: WireCase): string {
  const lines = [`${c.method} ${c.path} HTTP/1.1`, "Connection: close"];
  if (c.host !== null) lines.push(`Host: ${c.host}`);
  for (const [k, v] of c.headers) lines.push(`${k}: ${v}`);
  const bytes = new TextEncoder().encode(c.body).length;
  let body = c.body;
  if (c.framing === "length") lines.push(`Content-Length: ${bytes}`);
  else if (c.framing === "short-length") lines.push(`Content-Length: ${bytes + 10}`);
  else if (c.framing === "chunked") {
    lines.push("Transfer-Encoding: chunked");
    body = (bytes ? `${bytes.toString(16)}\r\n${c.body}\r\n` : "") + "0\r\n\r\n";
  } else if (c.framing === "bad-chunk") {
    lines.push("Transfer-Encoding: chunked");
    body = `zz\r\n${c.body}\r\n0\r\n\r\n`;
  } else if (c.framing === "te-and-cl") {
    lines.push("Transfer-Encoding: chunked", `Content-Length: ${bytes}`);
    body = `${bytes.toString(16)}\r\n${c.body}\r\n0\r\n\r\n`;
  } else body = "";
  return lines.join("\r\n") + "\r\n\r\n" + body;
}

/** Sends `n` generated cases to the server on `port`; counts statuses; collects 5xx as failures. */
export async function fuzzWire(
  w: FuzzWorld,
  port: number,
  n: number,
  opts: { seed: number; failures: string[]; statuses: Map<number, number> },
): Promise<void> {
  const cases = fc.sample(wireCase(w), { numRuns: n, seed: opts.seed });
  for (const c of cases) {
    const res = await rawRequest(port, wireText(c), 3_000);
    opts.statuses.set(res.status, (opts.statuses.get(res.status) ?? 0) + 1);
    if (res.status >= 500) {
      opts.failures.push(
        `${c.method} ${c.path} Host ${JSON.stringify(c.host)} ${c.framing}: ${res.status} ${
          res.body.slice(0, 200)
        }`,
      );
    }
  }
}
