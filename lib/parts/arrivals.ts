/**
 * When data last arrived in an environment: the one source of data freshness (account_overview and the
 * notice every read answer carries). Reads only.
 */
import type { Deps } from "../deps.ts";
import { keys } from "../store/keys.ts";
import type { EnvName } from "../store/records.ts";
import { badTime, healingRaw } from "../store/readable.ts";
import { listParts, type PartMeta } from "./store.ts";

export interface Arrivals {
  events: number | null; // ms of the newest web event, null when none
  hits: number | null; // ms of the newest crawler hit
}

type Reader = Pick<Deps, "kv" | "log" | "clock">;

async function newestRaw(
  deps: Reader,
  org: string,
  env: EnvName,
  kind: "ev" | "hit",
): Promise<number | null> {
  const prefix = kind === "ev" ? keys.rawEvents(org, env) : keys.rawHits(org, env);
  const now = deps.clock.now();
  const newest = async () => {
    for await (const e of deps.kv.list({ prefix }, { reverse: true, limit: 1 })) {
      const at = e.key[3]; // raw keys sort by receive time
      // a time no date can hold: the healing pass below moves its record aside (it fails to decode)
      if (badTime("receive time", at, now)) {
        throw new Error(`raw ${kind}: receive time ${String(at)} unusable`);
      }
      return at as number;
    }
    return null;
  };
  // the newest record may be one KV cannot read: it is moved aside, then read again
  return await healingRaw(deps.kv, { org, env, log: deps.log, now: deps.clock.now() }, kind, newest);
}

/**
 * The newest receive time folded into parts (null when there are none). Hit parts place rows by corrected
 * timestamp (max_t), so their receive time is max_rt.
 */
export function newestOf(parts: readonly PartMeta[]): number | null {
  return parts.reduce<number | null>((m, p) => Math.max(m ?? -Infinity, p.max_rt ?? p.max_t), null);
}

/** The newest part arrival of a kind; the engine's keeps the part index it lists (`Engine.newestPartArrival`). */
export type NewestPart = (kind: "ev" | "hit") => Promise<number | null>;

/** Lists the part index each time: for callers without an engine. */
const listedNewest = (kv: Deno.Kv, org: string, env: EnvName): NewestPart => async (kind) =>
  newestOf((await listParts(kv, org, env, kind)).map((p) => p.meta));

/**
 * Arrival times of the newest event and hit of an environment. The raw tail holds the newest records, so
 * one reverse read answers; only when compaction (or the demo generator, which writes parts directly) left no
 * raw record of a kind are that kind's parts looked at.
 */
export async function arrivals(
  deps: Reader,
  org: string,
  env: EnvName,
  newestPart: NewestPart = listedNewest(deps.kv, org, env),
): Promise<Arrivals> {
  const [rawEvents, rawHits] = await Promise.all([
    newestRaw(deps, org, env, "ev"),
    newestRaw(deps, org, env, "hit"),
  ]);
  const [events, hits] = await Promise.all([
    rawEvents ?? newestPart("ev"),
    rawHits ?? newestPart("hit"),
  ]);
  return { events, hits };
}

/** The newest arrival of either kind; null when nothing arrived yet. */
export async function latestArrival(
  deps: Reader,
  org: string,
  env: EnvName,
  newestPart?: NewestPart,
): Promise<number | null> {
  const a = await arrivals(deps, org, env, newestPart);
  if (a.events === null) return a.hits;
  if (a.hits === null) return a.events;
  return Math.max(a.events, a.hits);
}
