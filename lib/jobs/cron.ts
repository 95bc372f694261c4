/** What registers a recurring job: Deno.cron in main.ts, a recorder in tests. */
export type Cron = (name: string, schedule: string, handler: () => Promise<void>) => unknown;
