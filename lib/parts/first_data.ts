/**
 * When an environment's first web event was received: the start of what any comparison can compare against.
 * A question whose previous window starts before it compares with a window partly (or wholly) without data,
 * and its changes overstate growth (pipeline/notices.ts says so). Read cheaply: the raw tail's oldest key (one
 * forward read of one key) and the event part index's oldest placement time (events are placed by receive
 * time), kept per process while the index's stamp (`indexStamp`, one small read) is unchanged, so a question
 * lists the index only after compaction changed it (214 entries at 10M events). Reads only.
 */
import { keys } from "../store/keys.ts";
import type { EnvName } from "../store/records.ts";
import { indexStamp, listParts } from "./store.ts";

const kept = new Map<string, { stamp: string; oldest: number | null }>();
const MAX_KEPT = 1_000;

async function oldestPart(kv: Deno.Kv, org: string, env: EnvName): Promise<number | null> {
  const id = `${org}\u0000${env}`;
  const stamp = await indexStamp(kv, org, env, "ev");
  const known = kept.get(id);
  if (known?.stamp === stamp) return known.oldest;
  let oldest: number | null = null;
  for (const { meta } of await listParts(kv, org, env, "ev")) {
    if (Number.isFinite(meta.min_t) && (oldest === null || meta.min_t < oldest)) oldest = meta.min_t;
  }
  if (kept.size >= MAX_KEPT) kept.clear();
  kept.set(id, { stamp, oldest });
  return oldest;
}

async function oldestRaw(kv: Deno.Kv, org: string, env: EnvName): Promise<number | null> {
  for await (const e of kv.list({ prefix: keys.rawEvents(org, env) }, { limit: 1 })) {
    const at = e.key[3]; // raw keys sort by receive time
    return typeof at === "number" && Number.isFinite(at) ? at : null;
  }
  return null;
}

/** The receive time (ms) of the environment's oldest stored web event; null when none was received yet. */
export async function firstEventAt(kv: Deno.Kv, org: string, env: EnvName): Promise<number | null> {
  const [part, raw] = await Promise.all([oldestPart(kv, org, env), oldestRaw(kv, org, env)]);
  if (part === null) return raw;
  if (raw === null) return part;
  return Math.min(part, raw);
}
