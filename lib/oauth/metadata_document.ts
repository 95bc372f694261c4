/**
 * Client ID Metadata Documents: a client whose client_id is an https URL publishes its metadata there, and
 * the service fetches it through deps.fetch behind a guard: https only, every resolved address public
 * (lib/crawl/address_guard.ts), no redirects, at most DOC_MAX_BYTES within DOC_TIMEOUT_MS, then cached in memory.
 *
 * Known limit: fetch resolves the host again, so a name that changes its answer between our check and the
 * fetch (DNS rebinding) could still point it elsewhere; the guard, the refused redirects and the small size
 * and time limits keep what such a fetch could learn to a few bytes that must also parse as this document.
 */
import type { Deps } from "../deps.ts";
import { invalidClient } from "./errors.ts";
import { hostProblem } from "../crawl/address_guard.ts";
import { redirectUriProblem } from "./urls.ts";
import type { OAuthClient } from "./types.ts";
import { readBodyBytes } from "../schemas/request_body.ts";

export const DOC_MAX_BYTES = 5 * 1024;
export const DOC_TIMEOUT_MS = 5_000;
const MIN_CACHE_MS = 5 * 60_000;
const DEFAULT_CACHE_MS = 60 * 60_000;
const MAX_CACHE_MS = 24 * 60 * 60_000;
const FAILURE_CACHE_MS = 30_000;

/** A client_id that names a metadata document: an https URL with a path, nothing secret or relative in it. */
export function isMetadataDocumentUrl(clientId: string): boolean {
  if (!clientId.startsWith("https://") || clientId.length > 2000) return false;
  try {
    const u = new URL(clientId);
    const segments = clientId.slice(u.origin.length).split(/[?]/)[0].split("/");
    return u.pathname !== "/" && !u.hash && !u.username && !u.password &&
      !segments.some((s) => s === "." || s === "..");
  } catch {
    return false;
  }
}

/** A reason the document cannot be used, worded for the error the client gets. */
class DocumentProblem extends Error {}

async function readLimited(res: Response, max: number): Promise<string> {
  const bytes = await readBodyBytes(
    res,
    max,
    () => new DocumentProblem(`the document is larger than ${max} bytes`),
  );
  return new TextDecoder().decode(bytes);
}

function cacheFor(res: Response): number {
  const m = /max-age=(\d+)/i.exec(res.headers.get("cache-control") ?? "");
  if (!m) return DEFAULT_CACHE_MS;
  return Math.min(MAX_CACHE_MS, Math.max(MIN_CACHE_MS, Number(m[1]) * 1000));
}

/** Checks a fetched document and turns it into the client record; throws a message naming the problem. */
export function clientFromDocument(url: string, doc: unknown, now: number): OAuthClient {
  if (!doc || typeof doc !== "object" || Array.isArray(doc)) {
    throw new DocumentProblem("the document is not a JSON object");
  }
  const d = doc as Record<string, unknown>;
  if (d.client_id !== url) throw new DocumentProblem("its client_id is not the URL it was fetched from");
  if ("client_secret" in d || "client_secret_expires_at" in d) {
    throw new DocumentProblem("it carries a client secret, which a public document may not");
  }
  const method = d.token_endpoint_auth_method ?? "none";
  if (method !== "none") {
    throw new DocumentProblem(`token_endpoint_auth_method "${String(method)}" is not supported; use "none"`);
  }
  if (!Array.isArray(d.redirect_uris) || d.redirect_uris.length === 0) {
    throw new DocumentProblem("redirect_uris must be a non-empty array");
  }
  const redirects = d.redirect_uris.filter((r) => redirectUriProblem(r) === null) as string[];
  if (redirects.length === 0) {
    throw new DocumentProblem(`no usable redirect URI: ${redirectUriProblem(d.redirect_uris[0])}`);
  }
  const name = typeof d.client_name === "string" && d.client_name.trim()
    ? d.client_name.trim()
    : new URL(url).host;
  const clientUri = typeof d.client_uri === "string" && d.client_uri.startsWith("https://")
    ? d.client_uri
    : null;
  return {
    client_id: url,
    kind: "metadata",
    client_name: name.slice(0, 120),
    redirect_uris: redirects.slice(0, 20),
    token_endpoint_auth_method: "none",
    secret_hash: null,
    client_uri: clientUri?.slice(0, 500) ?? null,
    created_at: new Date(now).toISOString(),
  };
}

type Loaded = { client: OAuthClient; ttl: number } | { problem: string };

interface Cached {
  until: number;
  result: Promise<Loaded>;
}

/** Fetches and caches metadata documents for one process (failures for FAILURE_CACHE_MS). */
export class MetadataDocuments {
  #cache = new Map<string, Cached>();
  constructor(
    private deps: Pick<Deps, "fetch" | "dns" | "clock" | "config" | "log">,
    private timeoutMs = DOC_TIMEOUT_MS,
  ) {}

  /** The client the document at `url` describes; a 401 invalid_client naming the problem otherwise. */
  async resolve(url: string): Promise<OAuthClient> {
    const now = this.deps.clock.now();
    let entry = this.#cache.get(url);
    if (!entry || entry.until <= now) {
      const fresh: Cached = { until: now + FAILURE_CACHE_MS, result: this.#load(url, now) };
      fresh.result.then((r) => {
        if ("client" in r) fresh.until = now + r.ttl;
      });
      if (this.#cache.size > 5_000) this.#cache.clear();
      this.#cache.set(url, fresh);
      entry = fresh;
    }
    const result = await entry.result;
    if ("problem" in result) throw invalidClient(`client metadata document ${url}: ${result.problem}`);
    return result.client;
  }

  async #load(url: string, now: number): Promise<Loaded> {
    if (!isMetadataDocumentUrl(url)) return { problem: "a client_id URL must be https with a path" };
    const u = new URL(url);
    const problem = await hostProblem(u.hostname, this.deps.dns, this.deps.config.oauthAllowLoopbackClients);
    if (problem) return { problem };
    try {
      const res = await this.deps.fetch(url, {
        redirect: "manual",
        headers: { accept: "application/json" },
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      if (res.status !== 200) {
        await res.body?.cancel().catch(() => {});
        const redirect = res.status >= 300 && res.status < 400;
        return {
          problem: redirect
            ? `it answered with a redirect (${res.status}), which is not followed`
            : `it answered ${res.status}`,
        };
      }
      const text = await readLimited(res, DOC_MAX_BYTES);
      let doc: unknown;
      try {
        doc = JSON.parse(text);
      } catch {
        return { problem: "the document is not JSON" };
      }
      return { client: clientFromDocument(url, doc, now), ttl: cacheFor(res) };
    } catch (err) {
      if (err instanceof DocumentProblem) return { problem: err.message };
      const timeout = err instanceof DOMException && err.name === "TimeoutError";
      this.deps.log.warn("client metadata document not loaded", {
        host: u.host,
        error: String(err).slice(0, 200),
      });
      return { problem: timeout ? `no answer within ${this.timeoutMs / 1000} s` : "it could not be fetched" };
    }
  }
}
