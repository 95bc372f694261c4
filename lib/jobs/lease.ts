/**
 * One run per scheduled slot across every instance sharing the KV. Each instance's cron fires (outside Deno
 * Deploy every process has its own); the first to claim the slot in KV runs the job, the others skip it.
 * A claim also stands while its run lasts (up to the job's maxRunMs), so a long run is never doubled by the
 * next slot; a run that crashed holds nothing past its deadline.
 */
import type { Deps } from "../deps.ts";
import { keys } from "../store/keys.ts";

export interface Lease {
  /** floor(now / period) when claimed */
  slot: number;
  holder: string;
  /** the claim lapses then if the run never finishes (a crash) */
  until: number;
  done: boolean;
}

export interface LeasedJob {
  name: string;
  /** time between two scheduled runs: one run per period */
  periodMs: number;
  /** longest a run may hold the job; default 10 minutes */
  maxRunMs?: number;
  run: (deps: Deps) => Promise<void>;
}

export const DEFAULT_MAX_RUN_MS = 10 * 60_000;

/**
 * Runs the job if this instance claims its current slot; false when another instance has it (or the
 * previous run is still going). A failing run is logged with the job's name and counts as done: the next
 * slot tries again.
 */
export async function runLeased(deps: Deps, job: LeasedJob): Promise<boolean> {
  const { kv, clock } = deps;
  const key = keys.jobLease(job.name);
  const now = clock.now();
  const slot = Math.floor(now / job.periodMs);
  const cur = await kv.get<Lease>(key);
  const held = cur.value;
  if (held && (held.slot >= slot || (!held.done && held.until > now))) return false;
  const mine: Lease = {
    slot,
    holder: crypto.randomUUID(),
    until: now + (job.maxRunMs ?? DEFAULT_MAX_RUN_MS),
    done: false,
  };
  if (!(await kv.atomic().check(cur).set(key, mine).commit()).ok) return false; // another instance won
  try {
    await job.run(deps);
  } catch (err) {
    deps.log.error("scheduled job failed", { job: job.name, error: String(err).slice(0, 500) });
  } finally {
    const latest = await kv.get<Lease>(key);
    if (latest.value?.holder === mine.holder) {
      await kv.atomic().check(latest).set(key, { ...mine, done: true }).commit();
    }
  }
  return true;
}
