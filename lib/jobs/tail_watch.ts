/**
 * Compaction started by reads. Every question loads its environment's raw tail whole (what compaction has
 * not folded into parts yet), so a tail left to grow (the job behind, a crashed run's lease, a cron not
 * firing) makes every question slower (issue 32: 10k raw crawler hits took 1.7 s a question, 40k 5.4 s).
 * When a question finds raw records older than compaction should have left (its 2-minute grace plus a
 * cron period, STALE_MS), a compaction of that environment starts in the background: the answer does not
 * wait for it; at most one runs per organization, environment and kind in this process, and the lease
 * (lib/jobs/compact_lease.ts) keeps it from running beside the cron's or another instance's.
 * The check is cheap: the oldest raw key of each kind (keys are time-ordered, one entry read), at most once
 * per organization and environment every CHECK_EVERY_MS. It runs where the jobs run (main.ts starts it).
 */
import type { Deps } from "../deps.ts";
import { keys } from "../store/keys.ts";
import type { EnvName } from "../store/records.ts";
import type { PartKind } from "../parts/store.ts";
import { compact } from "./compact.ts";

/** Raw records older than this should have been compacted: compaction's 2-minute grace plus one period. */
export const STALE_MS = 3 * 60_000;
/** How often one organization's tails are looked at, at most. */
export const CHECK_EVERY_MS = 30_000;

const PREFIX: Record<PartKind, (org: string, env: EnvName) => Deno.KvKey> = {
  ev: keys.rawEvents,
  hit: keys.rawHits,
};

export class TailWatch {
  #checked = new Map<string, number>();
  #running = new Map<string, Promise<void>>();
  #looking = new Set<Promise<void>>();

  #on = false;

  constructor(private deps: Deps) {}

  /**
   * Starts watching: main.ts does, beside the jobs. Until then `asked` does nothing, so a test's app (which
   * runs no jobs) keeps the raw tail it wrote unless it compacts it itself.
   */
  start(): void {
    this.#on = true;
  }

  /**
   * A question about `org`'s `env` is being answered: looks at its raw tails (the caller does not wait) and
   * starts the compactions they need. Resolves once the look is done (tests); never rejects.
   */
  asked(org: string, env: EnvName): Promise<void> {
    if (!this.#on) return Promise.resolve();
    const now = this.deps.clock.now();
    const at = `${org}|${env}`;
    const last = this.#checked.get(at);
    if (last !== undefined && now - last < CHECK_EVERY_MS && now >= last) return Promise.resolve();
    if (this.#checked.size >= 10_000) this.#checked.clear(); // a bound: forgetting only costs a look
    this.#checked.set(at, now);
    const look = this.#look(org, env, now).catch((err) =>
      this.deps.log.warn("raw tail check failed", { org, error: String(err).slice(0, 300) })
    ).finally(() => this.#looking.delete(look));
    this.#looking.add(look);
    return look;
  }

  /** Resolves once the looks and the compactions started so far have ended (tests wait for them). */
  async running(): Promise<void> {
    await Promise.all(this.#looking);
    await Promise.all(this.#running.values());
  }

  async #look(org: string, env: EnvName, now: number) {
    for (const kind of ["ev", "hit"] as const) {
      const key = `${org}|${env}|${kind}`;
      if (this.#running.has(key)) continue;
      if (!(await this.#staleSince(org, env, kind, now - STALE_MS))) continue;
      const run = this.#compact(org, env, kind).finally(() => this.#running.delete(key));
      this.#running.set(key, run);
    }
  }

  /** Whether the environment holds a raw record received before `cutoff` (one key read). */
  async #staleSince(org: string, env: EnvName, kind: PartKind, cutoff: number): Promise<boolean> {
    const prefix = PREFIX[kind](org, env);
    // the first key at or past [...prefix, cutoff] is the end: only records received before it are listed
    try {
      for await (const _ of this.deps.kv.list({ start: prefix, end: [...prefix, cutoff] }, { limit: 1 })) {
        return true;
      }
      return false;
    } catch {
      return true; // a record KV cannot read back: compaction moves it aside (lib/store/readable.ts)
    }
  }

  async #compact(org: string, env: EnvName, kind: PartKind) {
    const t0 = performance.now();
    try {
      const r = await compact(this.deps, org, env, kind);
      if (r.parts || r.merged) {
        this.deps.log.info("compaction started by a read", {
          org,
          env,
          kind,
          parts: r.parts,
          rows: r.rows,
          ms: Math.round(performance.now() - t0),
        });
      }
    } catch (err) {
      this.deps.log.error("compaction started by a read failed", {
        org,
        env,
        kind,
        error: String(err).slice(0, 500),
      });
    }
  }
}
