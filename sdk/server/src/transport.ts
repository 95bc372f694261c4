/** One POST to /v1/behavior/server-events, reduced to an outcome the sender can act on. */
import type { CrawlHit } from "./hit.ts";
import type { Timers } from "./timers.ts";

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface Endpoint {
  baseUrl: string;
  serverKey: string;
  fetch: FetchLike;
  timers: Timers;
  timeoutMs: number;
  sdk: { name: string; version: string };
}

export type Outcome =
  | { kind: "response"; status: number; retryAfter: string | null; body: string }
  | { kind: "network" | "timeout"; message: string };

const ENDPOINT_PATH = "/v1/behavior/server-events";

/** Posts one batch with a fresh `sent_at`; never throws, a timeout aborts the request. */
export async function postHits(endpoint: Endpoint, hits: CrawlHit[]): Promise<Outcome> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = endpoint.timers.setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, endpoint.timeoutMs);
  try {
    const sentAt = new Date(endpoint.timers.now()).toISOString();
    const res = await endpoint.fetch(endpoint.baseUrl.replace(/\/+$/, "") + ENDPOINT_PATH, {
      method: "POST",
      headers: { "authorization": `Bearer ${endpoint.serverKey}`, "content-type": "application/json" },
      body: JSON.stringify({ sdk: endpoint.sdk, sent_at: sentAt, events: hits }),
      signal: controller.signal,
    });
    const body = await res.text().catch(() => "");
    return { kind: "response", status: res.status, retryAfter: res.headers.get("retry-after"), body };
  } catch (err) {
    if (timedOut) return { kind: "timeout", message: `no answer in ${endpoint.timeoutMs} ms` };
    return { kind: "network", message: describeError(err) };
  } finally {
    endpoint.timers.clearTimeout(timer);
  }
}

/** The bytes of a request body around its events, for keeping batches under the size limit. */
export function envelopeBytes(sdk: Endpoint["sdk"]): number {
  const sample = { sdk, sent_at: new Date(0).toISOString(), events: [] };
  return new TextEncoder().encode(JSON.stringify(sample)).length;
}

/** Retry-After is integer seconds or an HTTP date; anything else falls back to the backoff. */
export function parseRetryAfter(value: string | null, now: number): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** "HTTP 401 UNAUTHORIZED: server key unknown", "timeout: …", "network error: …" (never the key). */
export function describeOutcome(outcome: Outcome): string {
  if (outcome.kind !== "response") {
    return `${outcome.kind === "timeout" ? "timeout" : "network error"}: ${outcome.message}`;
  }
  let detail = "";
  try {
    const body = JSON.parse(outcome.body) as { code?: unknown; error?: unknown };
    detail = [body.code, body.error].filter((x) => typeof x === "string" && x).join(": ");
  } catch {
    // not an Error body
  }
  return `HTTP ${outcome.status}${detail ? ` ${detail.slice(0, 200)}` : ""}`;
}

export function describeError(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}
