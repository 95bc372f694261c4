/**
 * Dense visitor numbers per organization and environment, kept in KV: every anonymous id that reaches a
 * part gets the next number once, for good, so a rollup's visitor sets from any part, hour or day unite
 * exactly (lib/parts/visitor_set.ts). Numbers are given out in ranges claimed on a counter (checked commit),
 * and an id's entry is written only if absent, so two writers (compaction, the rollup backfill, the
 * generator) never give one id two numbers: the loser reads the winner's.
 */
import { keys } from "../store/keys.ts";
import type { EnvName } from "../store/records.ts";
import { readMany } from "../store/read_many.ts";

/** The numbers of `ids` (distinct or not), giving new ones to ids that have none yet. */
export async function numberVisitors(
  kv: Deno.Kv,
  org: string,
  env: EnvName,
  ids: Iterable<string>,
): Promise<Map<string, number>> {
  const { numbers, missing } = await lookup(kv, org, env, ids);
  while (missing.length) {
    const first = await claimRange(kv, org, env, missing.length);
    const retry: string[] = [];
    for (let i = 0; i < missing.length; i += 100) {
      const slice = missing.slice(i, i + 100);
      const op = kv.atomic();
      slice.forEach((id, j) => {
        const key = keys.visitorNumber(org, env, id);
        op.check({ key, versionstamp: null }).set(key, first + i + j);
      });
      if ((await op.commit()).ok) slice.forEach((id, j) => numbers.set(id, first + i + j));
      else retry.push(...slice); // another writer numbered some of them: read theirs, number the rest anew
    }
    const again = await lookup(kv, org, env, retry);
    for (const [id, n] of again.numbers) numbers.set(id, n);
    missing.splice(0, missing.length, ...again.missing);
  }
  return numbers;
}

/** The numbers `ids` have; ids without one get numbers past every given one (not stored: a raw tail). */
export async function visitorNumbersForReading(
  kv: Deno.Kv,
  org: string,
  env: EnvName,
  ids: Iterable<string>,
): Promise<{ numbers: Map<string, number>; size: number }> {
  const [{ numbers, missing }, count] = await Promise.all([
    lookup(kv, org, env, ids),
    kv.get<number>(keys.visitorCount(org, env)),
  ]);
  let next = count.value ?? 0;
  for (const id of missing) numbers.set(id, next++);
  return { numbers, size: next };
}

/** How many numbers were given out (visitor numbers are below it). */
export async function visitorCount(kv: Deno.Kv, org: string, env: EnvName): Promise<number> {
  return (await kv.get<number>(keys.visitorCount(org, env))).value ?? 0;
}

async function lookup(kv: Deno.Kv, org: string, env: EnvName, ids: Iterable<string>) {
  const distinct = [...new Set(ids)];
  const got = await readMany<number>(kv, distinct.map((id) => keys.visitorNumber(org, env, id)));
  const numbers = new Map<string, number>(), missing: string[] = [];
  got.forEach((g, i) => g.value === null ? missing.push(distinct[i]) : numbers.set(distinct[i], g.value));
  return { numbers, missing };
}

/** Claims `n` consecutive numbers; answers the first. */
async function claimRange(kv: Deno.Kv, org: string, env: EnvName, n: number): Promise<number> {
  const key = keys.visitorCount(org, env);
  for (;;) {
    const cur = await kv.get<number>(key);
    const first = cur.value ?? 0;
    if ((await kv.atomic().check(cur).set(key, first + n).commit()).ok) return first;
  }
}
