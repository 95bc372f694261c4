/**
 * Service configuration. main.ts reads the environment and hands it to `readConfig`; everything below gets
 * the result through Deps. Nothing here reads the environment or opens KV by itself.
 */
import { ALLOWANCE_KINDS, type AllowanceKind, type Plan, PLANS } from "./store/records.ts";

/** An operator's change to one plan's limits; the defaults and how they apply: lib/tenancy/plans.ts. */
export interface PlanOverride {
  api_access?: boolean;
  history_days?: number;
  allowances?: Partial<Record<AllowanceKind, number>>;
}
export type PlanOverrides = Partial<Record<Plan, PlanOverride>>;

export interface Config {
  port: number;
  /** a file path, ":memory:", a KV_URL for a remote denokv / Deno Deploy, or "" for Deno Deploy's own KV */
  kvPath: string;
  adminToken: string;
  trustProxy: boolean;
  /** undefined: the npm package's file; null: turned off ("off"); else a file or folder path. */
  geoCityPath: string | null | undefined;
  geoAsnPath: string | null | undefined;
  /** Default per-minute limit of a public write key when the key sets none. */
  publicKeyRatePerMinute: number;
  serverKeyRatePerMinute: number;
  readKeyRatePerMinute: number;
  /** Bytes of decoded parts kept in memory by the read engine. */
  partCacheBytes: number;
  /**
   * The most working memory one question may hold beyond the engine's caches (lib/working_memory.ts; the caches
   * make room for it): past it the question is refused with a 422. QUESTION_MEMORY_MB; 0 (the default): the
   * scan's share of PART_CACHE_MB (two thirds), at least 8 MB.
   */
  questionMemoryBytes: number;
  /**
   * Rows a closed day's event parts merge into (lib/jobs/compact.ts; the generator writes closed days so too):
   * fewer parts make every cold question cheaper, a larger merge needs more memory while it runs (~400 MB peak
   * at 333,000 rows; lib/query/HISTORY.md). DAY_PART_ROWS; at least 50,000, the merges of open days.
   */
  dayPartRows: number;
  /**
   * How often pending crawler verifications are swept, and how old a marker must be first: 60 (the cron,
   * every minute) unless set lower, for tests that cannot wait a minute (VERIFY_SWEEP_SECONDS).
   */
  verifySweepSeconds: number;
  /**
   * Use the KV's queue to do post-response work sooner (KV_QUEUE, default on). Off: the sweeps alone, as on
   * a KV without queues (KV Connect is detected by itself).
   */
  kvQueue: boolean;
  /**
   * log2 of scrypt's N for new password hashes (lib/people/passwords.ts): 15 (the default, production's).
   * PASSWORD_COST may raise it (at most 20), never lower it. Tests set it in their Config (tests/helpers/deps.ts)
   * as low as MIN_PASSWORD_COST (10), or with PASSWORD_TEST_COST for a started server (tests/helpers/server.ts).
   */
  passwordCost: number;
  /** Per-plan overrides of history limits and allowances (PLAN_LIMITS, JSON); defaults in lib/tenancy/plans.ts. */
  plans: PlanOverrides;
  /**
   * The service's public origin (PUBLIC_URL, e.g. https://analytics.example.com): names the OAuth issuer and
   * the MCP resource assistants sign in for. Null: each request's own origin (right when nothing rewrites it).
   */
  publicUrl: string | null;
  /**
   * Tests only (OAUTH_TEST_ALLOW_LOOPBACK_CLIENTS): a client metadata document may be served from a loopback
   * address, as a test serves it. Never set in production: it lets the service fetch from its own host.
   */
  oauthAllowLoopbackClients: boolean;
  /** AES-256 key (base64 of 32 bytes) sealing store API credentials at rest; "" refuses to store them. */
  credentialsKey: string;
  /** SMTP_URL for invitation and reset mail; null: the links go to the operator log. */
  smtpUrl: string | null;
  mailFrom: string;
  dev: boolean;
}

export class ConfigError extends Error {}

/** Password hashing costs (log2 of scrypt's N; lib/people/passwords.ts): production's, the least, the most. */
export const PASSWORD_COST = 15;
export const MIN_PASSWORD_COST = 10;
export const MAX_PASSWORD_COST = 20;

export const defaultConfig: Config = {
  port: 8000,
  kvPath: "./data/kv.sqlite3",
  adminToken: "",
  trustProxy: false,
  geoCityPath: undefined,
  geoAsnPath: undefined,
  publicKeyRatePerMinute: 6000,
  serverKeyRatePerMinute: 3000,
  readKeyRatePerMinute: 60,
  partCacheBytes: 288 * 1024 * 1024,
  questionMemoryBytes: 0,
  dayPartRows: 400_000,
  verifySweepSeconds: 60,
  kvQueue: true,
  passwordCost: PASSWORD_COST,
  plans: {},
  publicUrl: null,
  oauthAllowLoopbackClients: false,
  credentialsKey: "",
  smtpUrl: null,
  mailFrom: "Behavior service <no-reply@localhost>",
  dev: false,
};

function int(env: Record<string, string | undefined>, name: string, fallback: number, min = 1): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) {
    throw new ConfigError(`${name} must be an integer >= ${min}, got "${raw}"`);
  }
  return n;
}

/** Parses and checks the `PLAN_LIMITS` JSON; a bad value throws with a message naming the field. */
export function parsePlanOverrides(json: string): PlanOverrides {
  const raw = JSON.parse(json) as Record<string, unknown>;
  const out: PlanOverrides = {};
  for (const [plan, v] of Object.entries(raw)) {
    if (!PLANS.includes(plan as Plan)) throw new Error(`PLAN_LIMITS: unknown plan "${plan}"`);
    const entry = v as Record<string, unknown>;
    const nonNeg = (name: string, x: unknown) => {
      if (x !== undefined && (!Number.isInteger(x) || (x as number) < 0)) {
        throw new Error(`PLAN_LIMITS.${plan}.${name} must be an integer >= 0`);
      }
    };
    nonNeg("history_days", entry.history_days);
    for (const k of ALLOWANCE_KINDS) {
      nonNeg(`allowances.${k}`, (entry.allowances as Record<string, unknown>)?.[k]);
    }
    if (entry.api_access !== undefined && typeof entry.api_access !== "boolean") {
      throw new Error(`PLAN_LIMITS.${plan}.api_access must be true or false`);
    }
    out[plan as Plan] = entry as PlanOverride;
  }
  return out;
}

function planLimits(raw: string | undefined): PlanOverrides {
  if (!raw) return {};
  try {
    return parsePlanOverrides(raw);
  } catch (e) {
    throw new ConfigError(
      e instanceof SyntaxError ? `PLAN_LIMITS must be JSON: ${e.message}` : String((e as Error).message),
    );
  }
}

/** PUBLIC_URL: an http(s) origin with no path, query or fragment; kept without a trailing slash. */
function publicUrl(raw: string | undefined): string | null {
  if (!raw) return null;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ConfigError(`PUBLIC_URL must be a URL such as https://analytics.example.com, got "${raw}"`);
  }
  if (!["http:", "https:"].includes(u.protocol) || u.pathname !== "/" || u.search || u.hash || u.username) {
    throw new ConfigError(`PUBLIC_URL must be an http(s) origin with no path, got "${raw}"`);
  }
  return u.origin;
}

function credentialsKey(raw: string | undefined): string {
  if (!raw) return "";
  let n = -1;
  try {
    n = atob(raw).length;
  } catch { /* not base64 */ }
  if (n !== 32) {
    throw new ConfigError("CREDENTIALS_KEY must be 32 random bytes in base64 (openssl rand -base64 32)");
  }
  return raw;
}

function smtpUrl(raw: string | undefined): string | null {
  if (!raw) return null;
  if (!/^smtps?:\/\/[^/\s]+/.test(raw)) {
    throw new ConfigError("SMTP_URL must look like smtp://user:pass@host:587 or smtps://user:pass@host:465");
  }
  return raw;
}

/**
 * PASSWORD_COST: from production's 15 up to 20. PASSWORD_TEST_COST (tests only, like OAUTH_TEST_…): from 10 up,
 * for a test's started server; never set it in production (every new password would be cheap to guess).
 */
function passwordCost(env: Record<string, string | undefined>): number {
  const test = env.PASSWORD_TEST_COST;
  if (test && env.PASSWORD_COST) throw new ConfigError("set PASSWORD_COST or PASSWORD_TEST_COST, not both");
  if (test && env.DENO_DEPLOYMENT_ID) {
    throw new ConfigError("PASSWORD_TEST_COST is for tests: never on Deno Deploy");
  }
  const name = test ? "PASSWORD_TEST_COST" : "PASSWORD_COST";
  const n = int(env, name, PASSWORD_COST, test ? MIN_PASSWORD_COST : PASSWORD_COST);
  if (n > MAX_PASSWORD_COST) {
    throw new ConfigError(`${name} must be at most ${MAX_PASSWORD_COST}, got "${env[name]}"`);
  }
  return n;
}

const geoPath = (v: string | undefined) => (v === "off" ? null : v || undefined);

/** Builds a Config from environment variables; bad values stop the start with a message naming the variable. */
export function readConfig(env: Record<string, string | undefined>, opts: { dev?: boolean } = {}): Config {
  const dev = opts.dev ?? false;
  const port = int(env, "PORT", defaultConfig.port, 0);
  if (port > 65535) throw new ConfigError(`PORT must be at most 65535, got "${env.PORT}"`);
  const adminToken = env.ADMIN_TOKEN ?? "";
  if (!dev && adminToken === "") {
    throw new ConfigError("ADMIN_TOKEN is required: set it to a long random secret (it guards /admin/v1)");
  }
  if (adminToken !== "" && adminToken.length < 16) {
    throw new ConfigError("ADMIN_TOKEN must be at least 16 characters long");
  }
  const queue = env.KV_QUEUE ?? "";
  if (!["", "on", "off"].includes(queue)) {
    throw new ConfigError(`KV_QUEUE must be "on" or "off", got "${queue}"`);
  }
  const trust = env.TRUST_PROXY ?? "";
  if (!["", "0", "1", "true", "false"].includes(trust)) {
    throw new ConfigError(`TRUST_PROXY must be "true" or "false", got "${trust}"`);
  }
  if (env.KV_URL && env.KV_PATH) throw new ConfigError("set KV_PATH or KV_URL, not both");
  return {
    ...defaultConfig,
    dev,
    port,
    adminToken,
    // on Deno Deploy (which sets DENO_DEPLOYMENT_ID) the default is the platform's KV: Deno.openKv() with no path
    kvPath: env.KV_URL || env.KV_PATH || (env.DENO_DEPLOYMENT_ID ? "" : defaultConfig.kvPath),
    trustProxy: trust === "1" || trust === "true",
    geoCityPath: geoPath(env.GEO_CITY_MMDB),
    geoAsnPath: geoPath(env.GEO_ASN_CSV),
    publicKeyRatePerMinute: int(env, "PUBLIC_KEY_RATE_PER_MINUTE", defaultConfig.publicKeyRatePerMinute),
    serverKeyRatePerMinute: int(env, "SERVER_KEY_RATE_PER_MINUTE", defaultConfig.serverKeyRatePerMinute),
    readKeyRatePerMinute: int(env, "READ_KEY_RATE_PER_MINUTE", defaultConfig.readKeyRatePerMinute),
    partCacheBytes: int(env, "PART_CACHE_MB", defaultConfig.partCacheBytes / 1048576) * 1048576,
    questionMemoryBytes: int(env, "QUESTION_MEMORY_MB", 0, 0) * 1048576,
    dayPartRows: Math.max(50_000, int(env, "DAY_PART_ROWS", defaultConfig.dayPartRows)),
    verifySweepSeconds: Math.min(60, int(env, "VERIFY_SWEEP_SECONDS", defaultConfig.verifySweepSeconds)),
    kvQueue: queue !== "off",
    passwordCost: passwordCost(env),
    plans: planLimits(env.PLAN_LIMITS),
    publicUrl: publicUrl(env.PUBLIC_URL),
    oauthAllowLoopbackClients: env.OAUTH_TEST_ALLOW_LOOPBACK_CLIENTS === "1",
    credentialsKey: credentialsKey(env.CREDENTIALS_KEY),
    smtpUrl: smtpUrl(env.SMTP_URL),
    mailFrom: env.MAIL_FROM || defaultConfig.mailFrom,
  };
}

/**
 * Paths set explicitly must exist: a typo would otherwise run the service with empty geo fields (an unset
 * path that is missing only warns, so a checkout without `deno install` still starts). The one check that
 * touches the disk, called by main.ts after readConfig.
 */
export async function checkConfiguredPaths(env: Record<string, string | undefined>): Promise<void> {
  for (const name of ["GEO_CITY_MMDB", "GEO_ASN_CSV"]) {
    const path = env[name];
    if (!path || path === "off") continue;
    try {
      await Deno.stat(path);
    } catch {
      throw new ConfigError(`${name}: nothing at "${path}" (give a database file or folder, or "off")`);
    }
  }
}

/**
 * Opens the configured KV with `open` (main.ts passes Deno.openKv); a path or URL that cannot be opened stops
 * the start naming its variable. A local file's folder is made first.
 */
export async function openConfiguredKv(
  env: Record<string, string | undefined>,
  kvPath: string,
  open: (path?: string) => Promise<Deno.Kv>,
): Promise<Deno.Kv> {
  const name = env.KV_URL ? "KV_URL" : "KV_PATH";
  try {
    if (kvPath === "") return await open(); // Deno Deploy's own KV
    if (!/^https?:\/\//.test(kvPath) && kvPath !== ":memory:") {
      const dir = kvPath.replace(/[^/]*$/, "");
      if (dir) await Deno.mkdir(dir, { recursive: true });
    }
    return await open(kvPath);
  } catch (e) {
    throw new ConfigError(
      `${name}: cannot open "${kvPath || "the platform KV"}": ${e instanceof Error ? e.message : String(e)}`,
    );
  }
}
