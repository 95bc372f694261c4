/**
 * Every recurring job of the service, in one place: main.ts registers them with Deno.cron; tests pass a
 * fake `cron` to see what runs when and to run the registered handlers.
 */
import type { Deps } from "../deps.ts";
import { sweepAddresses } from "./ip_sweep.ts";
import { startVerificationJobs } from "./verify.ts";
import { startCompaction } from "./compact.ts";
import { refreshAllRobots, ROBOTS_REFRESH_CRON } from "../read/robots.ts";

export type Cron = (name: string, schedule: string, handler: () => Promise<void>) => unknown;

export function startJobs(deps: Deps, cron: Cron = Deno.cron, opts: { listen?: boolean } = {}): void {
  cron("sweep addresses older than 30 days", "17 * * * *", async () => {
    const n = await sweepAddresses(deps.kv, deps.clock);
    deps.log.info("address sweep", { deleted: n });
  });
  startVerificationJobs(deps, { listen: opts.listen, cron });
  startCompaction(deps, cron);
  cron("refresh robots files of every website", ROBOTS_REFRESH_CRON, async () => {
    const n = await refreshAllRobots(deps);
    deps.log.info("robots refresh", { sites: n });
  });
}
