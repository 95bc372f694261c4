/** Time and timers behind one interface so tests can drive the sender with a fake clock. */
export interface Timers {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  /** Lets the process exit while this timer is pending (used for the idle flush timer only). */
  unref?(handle: unknown): void;
}

interface DenoTimerApi {
  unrefTimer?(id: number): void;
}

export const systemTimers: Timers = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as Parameters<typeof clearTimeout>[0]),
  unref(handle) {
    // Node and Bun return an object with unref(); Deno returns a number and offers Deno.unrefTimer.
    if (typeof handle === "object" && handle !== null && "unref" in handle) {
      (handle as { unref(): void }).unref();
    } else if (typeof handle === "number") {
      const deno = (globalThis as { Deno?: DenoTimerApi }).Deno;
      deno?.unrefTimer?.(handle);
    }
  },
};

/** Resolves after `ms` on the given timers (kept referenced: an active send may need it). */
export function sleep(timers: Timers, ms: number): Promise<void> {
  return new Promise((resolve) => timers.setTimeout(resolve, ms));
}
