/** Every piece of code takes time from a Clock so tests can move it. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock tests can set and advance. */
export class FakeClock implements Clock {
  constructor(private ms: number = Date.parse("2026-11-20T12:00:00Z")) {}
  now(): number {
    return this.ms;
  }
  set(ms: number | string): void {
    this.ms = typeof ms === "string" ? Date.parse(ms) : ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/**
 * The times the service accepts as when something happened or arrived: from 2000-01-01 to AHEAD_ALLOWED_MS
 * past now. A time outside it (1e20, year +275760) is refused at the door, and a stored record with one is
 * moved aside on read (with a wider margin: lib/store/readable.ts), so no date arithmetic downstream sees it.
 */
export const EARLIEST_TIME_MS = Date.UTC(2000, 0, 1);
/**
 * How far ahead of the service's clock a time it stores may lie: the one bound for every sender's clock. A
 * crawler hit's timestamp (after the sent_at correction) past it becomes the receive time; a history import
 * line past it is refused. Servers keep NTP time, so minutes cover their skew, and a time stored ahead would
 * be counted under "today" again tomorrow. A web or app event's time is the service's receive time: a
 * device's own clock (device_time, often hours off) only orders events within a page load and is not bounded.
 */
export const AHEAD_ALLOWED_MS = 5 * MINUTE;

export function timeInRange(ms: number, now: number, ahead = AHEAD_ALLOWED_MS): boolean {
  return Number.isFinite(ms) && ms >= EARLIEST_TIME_MS && ms <= now + ahead;
}
