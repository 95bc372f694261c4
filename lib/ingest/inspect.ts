/** Lists raw stored events or hits of an organization, newest last, for operators and tests. */
import type { Deps } from "../deps.ts";
import { invalid } from "../errors.ts";
import { keys } from "../store/keys.ts";
import { unpackEvent } from "../store/event_codec.ts";
import { healingRaw, listQuarantined } from "../store/readable.ts";
import { ENV_NAMES, type EnvName } from "../store/records.ts";
import { getOrg } from "../tenancy/admin.ts";

export async function listStored(
  deps: Deps,
  org: string,
  kind: "ev" | "hit",
  q: Record<string, string>,
) {
  await getOrg(deps, org);
  const env = (q.environment ?? "production") as EnvName;
  if (!ENV_NAMES.includes(env)) throw invalid(`environment: must be one of ${ENV_NAMES.join(", ")}`);
  const limit = Math.min(Math.max(Number(q.limit ?? 100) || 100, 1), 1000);
  const prefix = kind === "ev" ? keys.rawEvents(org, env) : keys.rawHits(org, env);
  const newest = async () => {
    const out: unknown[] = [];
    for await (const e of deps.kv.list({ prefix }, { reverse: true, limit })) {
      out.push(kind === "ev" ? unpackEvent(e.value) : e.value);
    }
    return out.reverse();
  };
  // a record that cannot be read or decoded is moved aside, then the listing is read again
  return await healingRaw(deps.kv, { org, env, log: deps.log, now: deps.clock.now() }, kind, newest);
}

/** Records moved aside because they could not be read or decoded: how many, and the first 100. */
export async function listQuarantine(deps: Deps, org: string) {
  await getOrg(deps, org);
  return await listQuarantined(deps.kv, org);
}
