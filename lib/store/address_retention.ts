/**
 * Addresses are kept 30 days, then cleared. KV's expireIn removes them too, but expiry is not immediate,
 * so an hourly sweep (lib/jobs/schedule.ts) deletes every address whose receive day is past the retention,
 * and on the boundary day every entry whose own time (`{ip, at}` values) is past it. Events and hits are
 * untouched.
 */
import { type Clock, DAY } from "../clock.ts";
import { dayNumber, keys } from "./keys.ts";

/** How long an address is kept (KV expiry plus the hourly sweep). */
export const IP_RETENTION_MS = 30 * DAY;

export async function sweepAddresses(kv: Deno.Kv, clock: Clock): Promise<number> {
  const cutoff = clock.now() - IP_RETENTION_MS;
  const boundaryDay = dayNumber(cutoff);
  let deleted = 0;
  let op = kv.atomic();
  let pending = 0;
  const flush = async () => {
    if (pending) await op.commit();
    op = kv.atomic();
    pending = 0;
  };
  for await (const e of kv.list({ start: keys.ips(), end: keys.ipDay(boundaryDay + 1) })) {
    const day = e.key[1] as number;
    const at = (e.value as { at?: number } | null)?.at;
    const due = day < boundaryDay || (typeof at === "number" ? at <= cutoff : false);
    if (!due) continue;
    op.delete(e.key);
    deleted++;
    if (++pending >= 500) await flush();
  }
  await flush();
  return deleted;
}
