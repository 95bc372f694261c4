/** Who may write web events: key, organization, touchpoint and environment state, and the Origin. */
import type { Deps } from "../deps.ts";
import type { IngestContext } from "./context.ts";
import { forbidden, unauthorized } from "../errors.ts";
import type { EnvName } from "../store/records.ts";
import { hostAllowedFor, hostOfOrigin, isLocalHost, normalizeHost } from "../tenancy/domains.ts";
import { keys } from "../store/keys.ts";
import type { WebTarget } from "./enrich_event.ts";

export interface WebAccess extends WebTarget {
  keyId: string;
  ratePerMinute: number;
}

/** 401 for an unknown, revoked or non-public key, an inactive organization, an archived touchpoint or a
 * disabled environment; 403 when a website key's request comes from an origin outside its environment. */
export async function authorizeWebWrite(
  { deps, directory }: Pick<IngestContext, "deps" | "directory">,
  apiKey: string,
  origin: string | null,
): Promise<WebAccess> {
  const found = await directory.resolveKey(apiKey);
  const key = found?.key;
  if (!found || !key || key.kind !== "public" || key.revoked_at) {
    throw unauthorized("api_key is unknown or revoked");
  }
  const { org, touchpoint } = found;
  if (!org.active) throw unauthorized("the organization of this api_key is inactive");
  if (!touchpoint || touchpoint.archived) throw unauthorized("the touchpoint of this api_key is archived");
  const env = key.environment as EnvName;
  if (!touchpoint.environments[env]?.enabled) {
    throw unauthorized(`the ${env} environment of this api_key is turned off`);
  }

  if (touchpoint.kind === "website") {
    if (!origin) throw forbidden("website keys accept events only from a browser Origin");
    const host = hostOfOrigin(origin);
    const listed = key.allowed_origins.includes(origin.replace(/\/$/, ""));
    const owned = host !== null &&
      hostAllowedFor(await directory.touchpoints(org.id), host, touchpoint.id, env);
    if (!listed && !owned) {
      throw forbidden(`origin ${origin} is not allowed for this api_key's ${env} environment`);
    }
  }
  return {
    org,
    touchpoint,
    env,
    keyId: key.id,
    ratePerMinute: key.rate_per_minute ?? deps.config.publicKeyRatePerMinute,
  };
}

/** Preflight: an origin may send when its host (or a parent domain) is a touchpoint domain or an allowed
 * origin's host, or it is localhost. The POST itself still checks the key's own environment. */
export async function preflightAllowed(deps: Deps, origin: string): Promise<boolean> {
  const host = hostOfOrigin(origin);
  // longer than DNS allows: no touchpoint has it, and its lookup keys would pass KV's 2 KiB key limit
  if (!host || host.length > 253) return false;
  if (isLocalHost(host)) return true;
  const labels = normalizeHost(host).split(".");
  const candidates = labels.map((_, i) => labels.slice(i).join("."));
  const found = await deps.kv.getMany(candidates.slice(0, 10).map((h) => keys.corsHost(h)));
  return found.some((e) => e.value !== null);
}
