/**
 * What the read side needs from storage beyond the query engine's API. Reads only; read keys write nothing.
 */
import type { AppContext } from "../context.ts";
import { openEngine } from "../query/api.ts";
import { keys } from "../store/keys.ts";
import type { EnvName } from "../store/records.ts";

export interface Arrivals {
  events: number | null; // ms of the newest web event, null when none
  hits: number | null; // ms of the newest crawler hit
}

async function newest(app: AppContext, prefix: Deno.KvKey): Promise<number | null> {
  for await (const e of app.deps.kv.list({ prefix }, { reverse: true, limit: 1 })) {
    const at = e.key[3];
    if (typeof at === "number") return at;
  }
  return null;
}

/**
 * Arrival times of the newest event and hit of an environment. The raw tail holds the newest records, so
 * one reverse read answers; only when compaction left no raw event does the engine look at its parts.
 * (Hits are read from the raw tail only: the engine exposes no freshness of compacted hits yet.)
 */
export async function arrivals(app: AppContext, org: string, env: EnvName): Promise<Arrivals> {
  const [raw, hits] = await Promise.all([
    newest(app, keys.rawEvents(org, env)),
    newest(app, keys.rawHits(org, env)),
  ]);
  const events = raw ?? (await openEngine(app).freshness(org, env)).last_event_at;
  return { events, hits };
}

/** The newest arrival of either kind; null when nothing arrived yet. */
export async function latestArrival(app: AppContext, org: string, env: EnvName): Promise<number | null> {
  const a = await arrivals(app, org, env);
  if (a.events === null) return a.hits;
  if (a.hits === null) return a.events;
  return Math.max(a.events, a.hits);
}
