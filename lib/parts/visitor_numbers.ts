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

/** Numbering commits waiting at once (one after another, each waited for, cost a round trip to KV each). */
const COMMITS_IN_FLIGHT = 16;

/**
 * Numbers a writer already knows, kept across its parts (the generator's): an id's number never changes once
 * given, so each id is read from KV at most once. With `complete`, every id numbered in the environment is
 * in `numbers` (the writer began on an environment with no numbers), so an id not in it is numbered without
 * being read; the numbering commit still checks the id has no number, and one that meets another writer's
 * reads it, as always.
 */
export interface KnownNumbers {
  numbers: Map<string, number>;
  complete: boolean;
}

/** The numbers of `ids` (distinct or not), giving new ones to ids that have none yet. */
export async function numberVisitors(
  kv: Deno.Kv,
  org: string,
  env: EnvName,
  ids: Iterable<string>,
  known?: KnownNumbers,
): Promise<Map<string, number>> {
  const { numbers, missing } = known
    ? await lookupKnown(kv, org, env, ids, known)
    : await lookup(kv, org, env, ids);
  while (missing.length) {
    const first = await claimRange(kv, org, env, missing.length);
    // up to COMMITS_IN_FLIGHT commits of 100 ids (KV's most checks an atomic takes) wait at once; each
    // slice's numbers are fixed by its place in the claimed range, so the order they land in changes nothing
    const commits: Promise<boolean>[] = [];
    for (let i = 0; i < missing.length; i += 100) {
      const op = kv.atomic();
      for (let j = i; j < Math.min(missing.length, i + 100); j++) {
        const key = keys.visitorNumber(org, env, missing[j]);
        op.check({ key, versionstamp: null }).set(key, first + j);
      }
      commits.push(op.commit().then((r) => r.ok));
      if (commits.length % COMMITS_IN_FLIGHT === 0) await commits[commits.length - 1];
    }
    const done = await Promise.all(commits);
    const retry: string[] = [];
    done.forEach((ok, s) => {
      const slice = missing.slice(s * 100, s * 100 + 100);
      if (ok) slice.forEach((id, j) => numbers.set(id, first + s * 100 + j));
      else retry.push(...slice); // another writer numbered some of them: read theirs, number the rest anew
    });
    const again = await lookup(kv, org, env, retry);
    for (const [id, n] of again.numbers) numbers.set(id, n);
    missing.splice(0, missing.length, ...again.missing);
  }
  if (known) { for (const [id, n] of numbers) known.numbers.set(id, n); }
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

/** As `lookup`, reading only the ids `known` does not hold, and none when it is complete. */
async function lookupKnown(
  kv: Deno.Kv,
  org: string,
  env: EnvName,
  ids: Iterable<string>,
  known: KnownNumbers,
) {
  const numbers = new Map<string, number>(), unknown: string[] = [];
  for (const id of new Set(ids)) {
    const n = known.numbers.get(id);
    if (n === undefined) unknown.push(id);
    else numbers.set(id, n);
  }
  if (known.complete) return { numbers, missing: unknown };
  const read = await lookup(kv, org, env, unknown);
  for (const [id, n] of read.numbers) numbers.set(id, n);
  return { numbers, missing: read.missing };
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
