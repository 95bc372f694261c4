/**
 * Holds for addresses whose requests keep being refused. Each refusal of a body or framing (400, 408, 413,
 * 422, 431) adds one to its address's count, which decays by half every ~7 s (a 10 s time constant). Past
 * the budget each of the address's next requests waits HOLD_MS for every refusal over it, up to MAX_HOLD_MS,
 * before the connection guard passes it on. One address sending refused bodies back to back settles near
 * two or three a second; a client refused now and then stays under the budget and never waits.
 */

/** Refusals in about ten seconds an address may have before its requests are held. */
export const REFUSAL_BUDGET = 10;
const HOLD_MS = 25;
const MAX_HOLD_MS = 2_000;
const DECAY_MS = 10_000;
/**
 * Past this many addresses the ones whose count decayed away are dropped (at most once a second, so many
 * addresses cost one walk a second, not one per refusal), so the map stays small.
 */
const PRUNE_AT = 10_000;

/** The statuses that count: what the body guard and the framing checks answer. */
export function refused(status: number): boolean {
  return status === 400 || status === 408 || status === 413 || status === 422 || status === 431;
}

export class RefusalHolds {
  #counts = new Map<string, { n: number; at: number }>();
  #prunedAt = 0;
  constructor(readonly budget: number) {}

  #count(address: string, now: number): number {
    const c = this.#counts.get(address);
    return c ? c.n * Math.exp(-(now - c.at) / DECAY_MS) : 0;
  }

  refused(address: string, now: number): void {
    if (this.budget === Infinity) return;
    if (this.#counts.size >= PRUNE_AT && now - this.#prunedAt > 1_000) {
      this.#prunedAt = now;
      for (const [a] of this.#counts) if (this.#count(a, now) < 0.5) this.#counts.delete(a);
    }
    this.#counts.set(address, { n: this.#count(address, now) + 1, at: now });
  }

  /** How long the address's next request waits, in ms (0: not held). */
  holdMs(address: string, now: number): number {
    const over = this.#count(address, now) - this.budget;
    return over > 0 ? Math.min(MAX_HOLD_MS, Math.round(over * HOLD_MS)) : 0;
  }
}
