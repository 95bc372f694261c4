/**
 * The worst bodies the blast-radius bench's attacker sends (and bench/body_cost.ts times in-process): each
 * as its endpoint's client would send it, so it reaches the body guard rather than being refused by its
 * headers: an Origin only where a browser sends one (a server-events request with one is refused before
 * its body is read), a key where the endpoint wants one.
 */
import { event } from "../tests/helpers/events.ts";

export interface WorstKeys {
  domain: string;
  publicKey: string;
  serverKey: string;
  readKey: string;
}

export interface WorstBody {
  name: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

export function worstBodies(t: WorstKeys): WorstBody[] {
  const list: [string, string, string][] = [
    ["1 MB of '['", "/v1/behavior/events", "[".repeat(1_000_000)],
    [
      "64k-char fingerprint text",
      "/v1/behavior/events",
      JSON.stringify({
        api_key: t.publicKey,
        batch: [event({ fingerprint: { tag: "a", selector: "a", text: "x".repeat(64_000) } })],
      }),
    ],
    ["oauth register nested 3,000", "/oauth/register", "[".repeat(3_000) + "]".repeat(3_000)],
    [
      "read body nested 10,000",
      "/v1/read/behavior_overview",
      '{"a":'.repeat(10_000) + "1" + "}".repeat(10_000),
    ],
    [
      "5,000 server events of 1e400",
      "/v1/behavior/server-events",
      '{"events":[' + '{"x":1e400},'.repeat(5_000) + "{}]}",
    ],
  ];
  return list.map(([name, path, body]) => ({
    name,
    path,
    body,
    headers: {
      "content-type": "application/json",
      ...(path === "/v1/behavior/events" ? { origin: `https://${t.domain}` } : {}),
      ...(path.startsWith("/oauth") ? {} : {
        authorization: `Bearer ${path.includes("read") ? t.readKey : t.serverKey}`,
      }),
    },
  }));
}
