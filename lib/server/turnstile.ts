/**
 * The connection guard's per-address cap on requests arriving at once: a connection takes a place when it
 * begins sending a request and gives it back once the request has arrived whole, been answered or the
 * connection closed. Past the cap the next connection of that address waits, first come first served, with
 * its bytes left unread, so one address's slow or huge bodies queue behind each other, not before others'.
 */

/** Requests one address may be sending at once: a browser opens at most 6 connections to a host. */
export const ARRIVING = 16;

export interface Entrant {
  address: string;
  arriving: boolean;
  closed: boolean;
}

export class Turnstile {
  #inside = new Map<string, number>();
  #waiting = new Map<string, { who: Entrant; go: () => void }[]>();
  /** entries that had to wait, so far */
  waited = 0;
  constructor(readonly cap: number) {}

  /** Resolves once `who` holds a place (at once when its address is under the cap); a no-op if it holds one. */
  async enter(who: Entrant): Promise<void> {
    if (who.arriving || this.cap === Infinity) return;
    const n = this.#inside.get(who.address) ?? 0;
    if (n < this.cap) {
      this.#inside.set(who.address, n + 1);
      who.arriving = true;
      return;
    }
    this.waited++;
    const queue = this.#waiting.get(who.address) ?? [];
    this.#waiting.set(who.address, queue);
    // a place given back is handed straight to the first in the queue (leave counts it as taken)
    await new Promise<void>((go) => queue.push({ who, go }));
  }

  /** Gives back `who`'s place, if it holds one, to the first waiting at its address; drops it from the queue. */
  leave(who: Entrant): void {
    const queue = this.#waiting.get(who.address);
    if (!who.arriving) {
      // closed while waiting: out of the queue, let it go on to see it is closed
      const at = queue?.findIndex((q) => q.who === who) ?? -1;
      if (at >= 0) queue!.splice(at, 1)[0].go();
      if (queue?.length === 0) this.#waiting.delete(who.address);
      return;
    }
    who.arriving = false;
    let next = queue?.shift();
    while (next && next.who.closed) {
      next.go();
      next = queue!.shift();
    }
    if (queue?.length === 0) this.#waiting.delete(who.address);
    if (next) {
      next.who.arriving = true; // the place passes on: the count inside stays
      next.go();
      return;
    }
    const n = (this.#inside.get(who.address) ?? 1) - 1;
    if (n > 0) this.#inside.set(who.address, n);
    else this.#inside.delete(who.address);
  }
}
