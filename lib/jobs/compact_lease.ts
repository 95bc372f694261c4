/**
 * Who compacts an organization's environment now. A run claims a short lease (one minute) and renews it
 * every few seconds while it works, so a process killed mid-run (kill -9, an evicted isolate) holds nothing
 * a minute later and the next run resumes its work (compaction's mark says what it left). Writes that must
 * not happen after the lease was lost (publishing a part) go through `guarded`: they commit only while the
 * lease entry is still this run's (checked in the same atomic commit), renewals wait for them, so a run that
 * stalled past its lease never publishes beside the run that took over.
 */
import type { Clock } from "../clock.ts";

export const COMPACT_LEASE_MS = 60_000;
/** Renewals per lease period: a few missed ones (a long synchronous sort) still keep it. */
const RENEWALS = 6;

interface LeaseRecord {
  holder: string;
  until: number;
}

export class LeaseLostError extends Error {}

export class CompactLease {
  private chain: Promise<unknown> = Promise.resolve();
  private timer: ReturnType<typeof setInterval> | null = null;
  lost = false;

  private constructor(
    private kv: Deno.Kv,
    private key: Deno.KvKey,
    private clock: Clock,
    private holder: string,
    private versionstamp: string,
    private ms: number,
  ) {}

  /** The lease, or null while another run holds it (its renewals not older than `ms`). */
  static async claim(
    kv: Deno.Kv,
    key: Deno.KvKey,
    clock: Clock,
    ms = COMPACT_LEASE_MS,
  ): Promise<CompactLease | null> {
    const cur = await kv.get<LeaseRecord>(key);
    const now = clock.now();
    if (cur.value && cur.value.until > now) return null;
    const holder = crypto.randomUUID();
    const res = await kv.atomic().check(cur).set(key, { holder, until: now + ms }).commit();
    if (!res.ok) return null; // another run won
    const lease = new CompactLease(kv, key, clock, holder, res.versionstamp, ms);
    const timer = setInterval(() => void lease.renew(), ms / RENEWALS);
    Deno.unrefTimer(timer);
    lease.timer = timer;
    return lease;
  }

  /** Runs `commit` with the check that the lease is still this run's; throws LeaseLostError when not. */
  guarded<T extends Deno.KvCommitResult | Deno.KvCommitError>(
    commit: (check: Deno.AtomicCheck) => Promise<T>,
  ): Promise<T> {
    return this.serial(async () => {
      if (this.lost) throw new LeaseLostError("compaction lease lost");
      return await commit({ key: this.key, versionstamp: this.versionstamp });
    });
  }

  /** Renews now (also after a long step, so a slow timer never lets the lease lapse). */
  renew(): Promise<void> {
    return this.serial(async () => {
      if (this.lost) return;
      const res = await this.kv.atomic()
        .check({ key: this.key, versionstamp: this.versionstamp })
        .set(this.key, { holder: this.holder, until: this.clock.now() + this.ms })
        .commit();
      if (res.ok) this.versionstamp = res.versionstamp;
      else this.lost = true;
    });
  }

  /** Stops renewing and frees the lease for the next run (if it is still this run's). */
  async release(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.serial(async () => {
      if (this.lost) return;
      await this.kv.atomic().check({ key: this.key, versionstamp: this.versionstamp }).delete(this.key)
        .commit();
    });
  }

  private serial<T>(f: () => Promise<T>): Promise<T> {
    const next = this.chain.then(f, f);
    this.chain = next.catch(() => {});
    return next;
  }
}
