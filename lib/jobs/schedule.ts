/**
 * Every recurring job of the service, in one table: main.ts registers them with Deno.cron through
 * `startJobs`; tests pass a recorder to see what runs when and to run the handlers. A job's body is a plain
 * exported function of its own module; here it only gets its name, its schedule and its log line. A job runs
 * with the process's context (`JobContext`: deps, the crawler verifier and the queue's state, which
 * createContext builds).
 */
import type { Cron } from "./cron.ts";
import { type LeasedJob, runLeased } from "./lease.ts";
import { useNoQueue, type VerifyQueue } from "../store/pending_verification.ts";
import { sweepAddresses } from "../store/address_retention.ts";
import { sweepRateCounters } from "../limits/rate.ts";
import { sweepUnknownKeyStrikes } from "../ingest/server_access.ts";
import {
  handleVerifyMessage,
  refreshIpLists,
  sweepPendingVerifications,
  type VerifyContext,
} from "./verify.ts";
import { compactAll } from "./compact.ts";
import { refreshAllRobots, ROBOTS_REFRESH_CRON } from "../crawl/robots.ts";
import { fetchDueReviews, LISTINGS_CRON, refreshAllListings, REVIEWS_CRON } from "../feedback/fetch_job.ts";
import { reanalyseStale } from "../feedback/reanalyse.ts";

/** What a job runs with: deps, the process's verifier and its queue's state (an AppContext is one). */
export interface JobContext extends VerifyContext {
  verifyQueue: VerifyQueue;
}

/**
 * A job: its cron schedule (UTC) and the period that schedule has, one run per period on any instance.
 * startJobs runs it with the process's context (a test passes its app's, `app.ctx`).
 */
export interface Job extends Omit<LeasedJob, "run"> {
  schedule: string;
  run: (ctx: JobContext) => Promise<void>;
}

const MINUTE = 60_000, HOUR = 60 * MINUTE, DAY = 24 * HOUR;

export const JOBS: readonly Job[] = [
  {
    name: "sweep addresses older than 30 days",
    schedule: "17 * * * *", // hourly: addresses go within an hour of 30 days
    periodMs: HOUR,
    run: async ({ deps }) => {
      const n = await sweepAddresses(deps.kv, deps.clock);
      deps.log.info("address sweep", { deleted: n });
    },
  },
  {
    name: "sweep spent rate counters and unknown-key strikes",
    schedule: "19 * * * *", // hourly: KV's expiry removes them too, but not at once
    periodMs: HOUR,
    run: async ({ deps }) => {
      const n = await sweepRateCounters(deps.kv, deps.clock);
      const strikes = await sweepUnknownKeyStrikes(deps.kv, deps.clock.now());
      if (n || strikes) deps.log.info("rate counter sweep", { deleted: n, strikes });
    },
  },
  {
    name: "crawler verification sweep", // every marker: queues are a speed-up, never needed
    schedule: "* * * * *",
    periodMs: MINUTE,
    run: async (ctx) => {
      const r = await sweepPendingVerifications(ctx);
      if (r.verified || r.failed) ctx.deps.log.info("verification sweep", r);
    },
  },
  {
    name: "crawler IP list refresh",
    schedule: "41 3 * * *",
    periodMs: DAY,
    run: async (ctx) => {
      const r = await refreshIpLists(ctx);
      ctx.deps.log.info("ip list refresh", {
        ok: r.filter((x) => x.ok).length,
        failed: r.filter((x) => !x.ok).length,
      });
    },
  },
  {
    name: "compact read parts",
    schedule: "* * * * *",
    periodMs: MINUTE,
    maxRunMs: 2 * MINUTE, // a killed run blocks the next ones this long at most (each environment has its own lease)
    run: async ({ deps }) => {
      try {
        const r = await compactAll(deps);
        if (r.parts || r.merged) deps.log.info("compaction", { ...r });
      } catch (err) {
        deps.log.error("compaction failed", { error: String(err).slice(0, 500) });
      }
    },
  },
  {
    name: "refresh robots files of every website",
    schedule: ROBOTS_REFRESH_CRON,
    periodMs: 6 * HOUR,
    run: async ({ deps }) => {
      const n = await refreshAllRobots(deps);
      deps.log.info("robots refresh", { sites: n });
    },
  },
  {
    name: "fetch new app-store reviews",
    schedule: REVIEWS_CRON, // every 30 minutes; each app after its backoff
    periodMs: 30 * MINUTE,
    run: async ({ deps }) => {
      const n = await fetchDueReviews(deps);
      // Reviews stored under an older analysis, a bounded batch a run (lib/feedback/reanalyse.ts).
      const re = await reanalyseStale(deps);
      deps.log.info("review fetch", { apps: n, reanalysed: re.reviews });
    },
  },
  {
    name: "refresh app-store listings",
    schedule: LISTINGS_CRON, // daily
    periodMs: DAY,
    run: async ({ deps }) => {
      const n = await refreshAllListings(deps);
      deps.log.info("listing refresh", { apps: n });
    },
  },
];

/**
 * Registers every job of the table with `cron` (main.ts passes Deno.cron). Each run first claims its slot
 * in KV (lib/jobs/lease.ts): with several instances on one KV, each slot runs once.
 */
export function startJobs(ctx: JobContext, cron: Cron, jobs: readonly Job[] = JOBS): void {
  const { deps } = ctx;
  for (const job of jobs) {
    cron(job.name, job.schedule, () => runLeased(deps, { ...job, run: () => job.run(ctx) }).then(() => {}));
  }
  const quick = deps.config.verifySweepSeconds;
  if (quick < 60) {
    // tests only (VERIFY_SWEEP_SECONDS): a cron cannot run more often than every minute
    const sweep = async () => {
      const r = await sweepPendingVerifications(ctx, { minAgeMs: quick * 1000 }).catch(() => null);
      if (r && (r.verified || r.failed)) deps.log.info("verification sweep", r);
    };
    setInterval(sweep, quick * 1000);
  }
}

/**
 * Has the KV's queue deliver messages to `handleQueueMessage`, where it has a queue: KV Connect (KV_URL) has
 * none, and nothing needs one (the sweeps do all the work; a queue only does it sooner).
 */
export function listenToQueue(ctx: JobContext): void {
  const { deps } = ctx;
  if (!deps.config.kvQueue) {
    useNoQueue(ctx.verifyQueue);
    deps.log.info("KV queue not used (KV_QUEUE=off); pending work is done by the sweeps");
    return;
  }
  const none = (e: unknown) =>
    deps.log.info("no KV queue here; pending work is done by the sweeps", {
      reason: String((e as Error)?.message ?? e).slice(0, 200),
    });
  try {
    deps.kv.listenQueue((msg) => handleQueueMessage(ctx, msg)).catch(none);
  } catch (e) {
    none(e);
  }
}

/**
 * The queue worker's body, for main.ts's one `listenQueue`: dispatches a message by its kind. Throws to have
 * the queue retry; a message of an unknown kind is logged and dropped.
 */
export async function handleQueueMessage(ctx: JobContext, msg: unknown): Promise<void> {
  if (!(await handleVerifyMessage(ctx, msg))) ctx.deps.log.warn("queue message of unknown kind dropped");
}
