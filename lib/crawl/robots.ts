/**
 * robots.txt of each website environment: fetched on a schedule through deps.fetch (main.ts runs
 * `refreshAllRobots` from a Deno.cron), stored under keys.robots, parsed by RFC 9309 with robots-parser and
 * evaluated per crawler token. The read tool only reads what the job stored: read keys write nothing.
 *
 * RFC 9309 outcomes: 2xx → the rules apply; 4xx → "unavailable", everything is allowed; 5xx or no answer →
 * "unreachable", everything is disallowed, unless a copy fetched in the last 30 days is kept and used.
 */
import robotsParserModule from "robots-parser";
import type { Deps } from "../deps.ts";
import { hostProblem } from "./address_guard.ts";
import { keys } from "../store/keys.ts";
import { storedBytes } from "../store/stored_size.ts";
import type { EnvName, Org, Touchpoint } from "../store/records.ts";
import { ENV_NAMES } from "../store/records.ts";
import { latestVersion, recordFetch, versionBody } from "./robots_history.ts";

// The package's typings declare a module, not its CommonJS function export.
type Robots = { isAllowed(url: string, ua?: string): boolean | undefined };
const robotsParser = robotsParserModule as unknown as (url: string, body: string) => Robots;

export const ROBOTS_REFRESH_CRON = "17 */6 * * *"; // every 6 hours
export const ROBOTS_MAX_BYTES = 512 * 1024; // RFC 9309: parse at least 500 KiB
export const ROBOTS_TIMEOUT_MS = 10_000;
const KEEP_GOOD_MS = 30 * 86_400_000;

export type RobotsOutcome = "ok" | "unavailable" | "unreachable";

export interface RobotsRecord {
  url: string;
  fetched_at: number;
  status: number | null;
  outcome: RobotsOutcome;
  error: string | null;
  /** The rules in force: this fetch's body when ok, else the last good body of the past 30 days. */
  body: string | null;
  body_fetched_at: number | null;
  /** set when the body is too large for this record: it is then read from the latest stored version */
  body_in_history?: boolean;
}

/**
 * A head record larger than this, as KV stores it, keeps its body only in the version history (one KV value
 * holds 64 KiB). Measured by `storedBytes`, not UTF-8: one character past U+00FF (a curly apostrophe in a
 * comment) makes V8 store the whole body at two bytes a character, so 35,000 characters took ~70 KB.
 */
const HEAD_RECORD_MAX = 60_000;

async function readCapped(res: Response): Promise<string> {
  const reader = res.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (size < ROBOTS_MAX_BYTES) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.length;
  }
  await reader.cancel().catch(() => {});
  const all = new Uint8Array(Math.min(size, ROBOTS_MAX_BYTES));
  let at = 0;
  for (const c of chunks) {
    const part = c.subarray(0, all.length - at);
    all.set(part, at);
    at += part.length;
  }
  return new TextDecoder().decode(all);
}

const MAX_REDIRECTS = 5;

/**
 * A GET that follows at most MAX_REDIRECTS redirects by hand, each to http(s) on public addresses only: a
 * website's owner chooses its domain and where it redirects, and the body is kept and quoted, so an unchecked
 * fetch would let them read the service's own network (a cloud metadata address, a loopback admin page).
 */
async function fetchPublic(deps: Deps, start: string, signal: AbortSignal): Promise<Response> {
  let url = start;
  for (let hop = 0;; hop++) {
    const u = new URL(url);
    if (u.protocol !== "https:" && u.protocol !== "http:") {
      throw new Error(`redirected to a ${u.protocol} URL`);
    }
    const problem = await hostProblem(u.hostname, deps.dns, false, true);
    if (problem) throw new Error(`not fetched: ${problem}`);
    const res = await deps.fetch(url, {
      redirect: "manual",
      signal,
      headers: { "user-agent": "behavior-service-robots-check/1.0" },
    });
    const location = res.status >= 300 && res.status < 400 ? res.headers.get("location") : null;
    if (!location) return res;
    await res.body?.cancel();
    if (hop >= MAX_REDIRECTS) throw new Error(`more than ${MAX_REDIRECTS} redirects`);
    url = new URL(location, url).href;
  }
}

/** Fetches one domain's robots.txt; `previous` supplies the copy kept when the server cannot be reached. */
export async function fetchRobots(
  deps: Deps,
  domain: string,
  previous: RobotsRecord | null,
): Promise<RobotsRecord> {
  const url = `https://${domain}/robots.txt`;
  const now = deps.clock.now();
  const kept =
    previous?.body !== null && previous?.body_fetched_at && now - previous.body_fetched_at < KEEP_GOOD_MS
      ? { body: previous.body, body_fetched_at: previous.body_fetched_at }
      : { body: null, body_fetched_at: null };
  try {
    const res = await fetchPublic(deps, url, AbortSignal.timeout(ROBOTS_TIMEOUT_MS));
    if (res.status >= 200 && res.status < 300) {
      return {
        url,
        fetched_at: now,
        status: res.status,
        outcome: "ok",
        error: null,
        body: await readCapped(res),
        body_fetched_at: now,
      };
    }
    await res.body?.cancel();
    if (res.status >= 400 && res.status < 500) {
      return {
        url,
        fetched_at: now,
        status: res.status,
        outcome: "unavailable",
        error: null,
        body: null,
        body_fetched_at: null,
      };
    }
    return {
      url,
      fetched_at: now,
      status: res.status,
      outcome: "unreachable",
      error: `HTTP ${res.status}`,
      ...kept,
    };
  } catch (err) {
    return {
      url,
      fetched_at: now,
      status: null,
      outcome: "unreachable",
      error: String((err as Error)?.message ?? err).slice(0, 200),
      ...kept,
    };
  }
}

export async function refreshRobots(
  deps: Deps,
  org: string,
  tp: Touchpoint,
  env: EnvName,
): Promise<RobotsRecord | null> {
  const domain = tp.environments[env]?.domain;
  if (!domain) return null;
  const previous = await readRobots(deps.kv, org, tp.id, env);
  const rec = await fetchRobots(deps, domain, previous);
  // the version history first: a hit is judged by the rules of its time (robots_history.ts)
  await recordFetch(deps.kv, org, tp.id, env, rec);
  const large = rec.body !== null && storedBytes(rec) > HEAD_RECORD_MAX;
  await deps.kv.set(
    keys.robots(org, tp.id, env),
    large ? { ...rec, body: null, body_in_history: true } : rec,
  );
  return rec;
}

/** The scheduled job: every enabled website environment of every active organization. */
export async function refreshAllRobots(deps: Deps): Promise<number> {
  let n = 0;
  for await (const o of deps.kv.list<Org>({ prefix: keys.orgs() })) {
    if (!o.value?.active || o.key.length !== 2) continue;
    try {
      for await (const t of deps.kv.list<Touchpoint>({ prefix: keys.touchpoints(o.value.id) })) {
        const tp = t.value;
        if (tp.archived || tp.kind !== "website") continue;
        for (const env of ENV_NAMES) {
          if (!tp.environments[env]?.enabled || !tp.environments[env]?.domain) continue;
          try {
            if (await refreshRobots(deps, o.value.id, tp, env)) n++;
          } catch (err) {
            deps.log.warn("robots.txt refresh failed", {
              org: o.value.id,
              touchpoint: tp.id,
              env,
              error: String(err),
            });
          }
        }
      }
    } catch (err) {
      // one organization's records failing to load never stops the others' refresh
      deps.log.error("robots.txt refresh of an organization failed", { org: o.value.id, error: String(err) });
    }
  }
  return n;
}

export async function readRobots(
  kv: Deno.Kv,
  org: string,
  tp: string,
  env: EnvName,
): Promise<RobotsRecord | null> {
  const rec = (await kv.get<RobotsRecord>(keys.robots(org, tp, env))).value;
  if (!rec?.body_in_history) return rec;
  const latest = await latestVersion(kv, org, tp, env);
  const body = latest ? await versionBody(kv, org, tp, env, latest.value) : null;
  const { body_in_history: _, ...plain } = rec;
  return { ...plain, body, body_fetched_at: body === null ? null : rec.body_fetched_at };
}

/** User-agent names that have a group of their own in the file (lower case, version stripped). */
export function groupNames(body: string): Set<string> {
  const out = new Set<string>();
  for (const line of body.split(/\r\n|\r|\n/)) {
    const m = /^\s*user-agent\s*:\s*([^#]*)/i.exec(line);
    if (m && m[1].trim()) out.add(m[1].trim().toLowerCase().split("/")[0].trim());
  }
  return out;
}

export type Access = "allowed" | "partly blocked" | "blocked";

export interface TokenAccess {
  /** whose rules apply: the token's own group, the "*" group, or none (no rules: all allowed) */
  group: "own" | "*" | "none";
  access: Access;
  home_allowed: boolean;
  paths_checked: number;
  paths_disallowed: number;
  disallowed_examples: string[];
}

/** A parsed body, for judging many paths: whether one path is disallowed for one token. */
export function rulesOf(body: string, host: string): (token: string, path: string) => boolean {
  const base = `https://${host}`;
  const robots = robotsParser(`${base}/robots.txt`, body);
  return (token, path) => robots.isAllowed(base + path, token) === false;
}

/** Evaluates the rules in force for one crawler token over a set of paths ("/" always included). */
export function evaluateToken(
  rec: RobotsRecord | null,
  token: string,
  paths: string[],
  host: string,
): TokenAccess {
  const all = ["/", ...paths.filter((p) => p !== "/")];
  const verdict = (allowed: boolean, group: TokenAccess["group"]): TokenAccess => ({
    group,
    access: allowed ? "allowed" : "blocked",
    home_allowed: allowed,
    paths_checked: all.length,
    paths_disallowed: allowed ? 0 : all.length,
    disallowed_examples: allowed ? [] : all.slice(0, 3),
  });
  if (!rec || rec.outcome === "unavailable") return verdict(true, "none");
  if (rec.body === null) return verdict(false, "none"); // unreachable with no copy kept: all disallowed
  const base = `https://${host}`;
  const robots = robotsParser(`${base}/robots.txt`, rec.body);
  const names = groupNames(rec.body);
  const lower = token.toLowerCase();
  const group = names.has(lower) ? "own" : names.has("*") ? "*" : "none";
  const disallowed = all.filter((p) => robots.isAllowed(base + p, token) === false);
  return {
    group,
    access: disallowed.length === 0
      ? "allowed"
      : disallowed.length === all.length
      ? "blocked"
      : "partly blocked",
    home_allowed: !disallowed.includes("/"),
    paths_checked: all.length,
    paths_disallowed: disallowed.length,
    disallowed_examples: disallowed.slice(0, 3),
  };
}
