/**
 * Addresses are kept 30 days, then cleared. KV's expireIn removes them too, but expiry is not immediate,
 * so an hourly sweep (lib/jobs/schedule.ts) deletes every address whose receive day is past the retention,
 * and on the boundary day every entry whose own time (`{ip, at}` values) is past it. Events and hits are
 * untouched.
 */
import { type Clock, DAY } from "../clock.ts";
import { dayNumber, keys } from "./keys.ts";
import { deleteWhere } from "./delete_where.ts";

/** How long an address is kept (KV expiry plus the hourly sweep). */
export const IP_RETENTION_MS = 30 * DAY;

export function sweepAddresses(kv: Deno.Kv, clock: Clock): Promise<number> {
  const cutoff = clock.now() - IP_RETENTION_MS;
  const boundaryDay = dayNumber(cutoff);
  const range = { start: keys.ips(), end: keys.ipDay(boundaryDay + 1) };
  return deleteWhere<{ at?: number } | null>(kv, range, (e) => {
    const day = e.key[1] as number;
    const at = e.value?.at;
    return day < boundaryDay || (typeof at === "number" ? at <= cutoff : false);
  });
}
