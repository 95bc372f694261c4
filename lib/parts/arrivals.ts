/**
 * When data last arrived in an environment: the one source of data freshness (account_overview and the
 * notice every read answer carries). Reads only.
 */
import type { Deps } from "../deps.ts";
import { keys } from "../store/keys.ts";
import type { EnvName } from "../store/records.ts";
import { badTime, healingRaw } from "../store/readable.ts";
import { indexStamp, listParts } from "./store.ts";
import { remember } from "../lru.ts";

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
 * The newest receive time folded into a part of that kind; null when there is no part. Hit parts place rows
 * by corrected timestamp (max_t), so their receive time is max_rt.
 */
async function newestPart(
  kv: Deno.Kv,
  org: string,
  env: EnvName,
  kind: "ev" | "hit",
): Promise<number | null> {
  // every read answer asks (its freshness notice) and an environment with no raw record left lists all its
  // parts for it (214 at 10M events): kept per KV and index while the index's stamp holds
  const key = `${org}|${env}|${kind}`;
  const stamp = await indexStamp(kv, org, env, kind);
  let kept = newestOfIndex.get(kv);
  if (!kept) newestOfIndex.set(kv, kept = new Map());
  const known = kept.get(key);
  if (known?.stamp === stamp) return known.newest;
  const parts = await listParts(kv, org, env, kind);
  const newest = parts.reduce<number | null>(
    (m, p) => Math.max(m ?? -Infinity, p.meta.max_rt ?? p.meta.max_t),
    null,
  );
  remember(kept, key, { stamp, newest }, 256);
  return newest;
}

/** The newest part arrival per KV and environment, with the index stamp it was read under. */
const newestOfIndex = new WeakMap<Deno.Kv, Map<string, { stamp: string; newest: number | null }>>();

/**
 * Arrival times of the newest event and hit of an environment. The raw tail holds the newest records, so
 * one reverse read answers; only when compaction (or the demo generator, which writes parts directly) left no
 * raw record of a kind are that kind's parts looked at.
 */
export async function arrivals(deps: Reader, org: string, env: EnvName): Promise<Arrivals> {
  const [rawEvents, rawHits] = await Promise.all([
    newestRaw(deps, org, env, "ev"),
    newestRaw(deps, org, env, "hit"),
  ]);
  const [events, hits] = await Promise.all([
    rawEvents ?? newestPart(deps.kv, org, env, "ev"),
    rawHits ?? newestPart(deps.kv, org, env, "hit"),
  ]);
  return { events, hits };
}

/** The newest arrival of either kind; null when nothing arrived yet. */
export async function latestArrival(deps: Reader, org: string, env: EnvName): Promise<number | null> {
  const a = await arrivals(deps, org, env);
  if (a.events === null) return a.hits;
  if (a.hits === null) return a.events;
  return Math.max(a.events, a.hits);
}
