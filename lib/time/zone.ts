/**
 * A timezone's offsets and wall-clock fields, DST-correct, with Intl only (no timezone database of our
 * own). One Intl formatter per timezone serves both. Offsets are looked up once per 15-minute slot (every
 * real transition falls on such a boundary) and cached, so bucketing a million events costs a million map
 * lookups, not a million Intl calls.
 */

/** Every real offset change falls on a multiple of 15 minutes. */
export const SLOT_MS = 15 * 60_000;
const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const zones = new Map<string, Zone>();

export function isValidTimezone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** The zone of an IANA timezone name (kept: made once per name). */
export function zone(tz: string): Zone {
  let z = zones.get(tz);
  if (!z) {
    z = new Zone(tz);
    if (zones.size > 200) zones.clear();
    zones.set(tz, z);
  }
  return z;
}

/** Wall-clock fields of an instant. `weekday` is 0 (Sunday) to 6. */
export interface WallParts {
  y: number;
  m: number; // 1-12
  d: number;
  hour: number;
  minute: number;
  second: number;
  weekday: number;
}

export class Zone {
  private fmt: Intl.DateTimeFormat;
  private offsets = new Map<number, number>();
  constructor(readonly tz: string) {
    this.fmt = new Intl.DateTimeFormat("en-US", {
      timeZone: tz,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      weekday: "short",
    });
  }

  /** Wall-clock fields of the instant, straight from Intl (no cache). */
  parts(ms: number): WallParts {
    const p: Record<string, string> = {};
    for (const part of this.fmt.formatToParts(new Date(ms))) p[part.type] = part.value;
    return {
      y: Number(p.year),
      m: Number(p.month),
      d: Number(p.day),
      hour: Number(p.hour),
      minute: Number(p.minute),
      second: Number(p.second),
      weekday: WEEKDAYS.indexOf(p.weekday),
    };
  }

  /** The offset at an instant on a slot boundary, to the minute. */
  private exact(at: number): number {
    const p = this.parts(at);
    return Date.UTC(p.y, p.m - 1, p.d, p.hour, p.minute) - at;
  }

  /** Milliseconds to add to UTC to get local wall time at `ms`. */
  offsetMs(ms: number): number {
    const slot = Math.floor(ms / SLOT_MS);
    let off = this.offsets.get(slot);
    if (off === undefined) {
      // Ask Intl once per hour: when the hour's start and end agree, its four slots share the offset.
      const h0 = Math.floor(slot / 4) * 4;
      const a = this.exact(h0 * SLOT_MS), b = this.exact((h0 + 4) * SLOT_MS);
      if (this.offsets.size > 50_000) this.offsets.clear();
      for (let k = 0; k < 4; k++) {
        this.offsets.set(h0 + k, a === b || k === 0 ? a : this.exact((h0 + k) * SLOT_MS));
      }
      off = this.offsets.get(slot)!;
    }
    return off;
  }

  /** Local wall time as a UTC-based ms number (read its fields with getUTC*). */
  wall(ms: number): number {
    return ms + this.offsetMs(ms);
  }

  /** The first instant whose local wall time is at or after the given wall time. */
  fromWall(wallMs: number): number {
    let guess = wallMs - this.offsetMs(wallMs);
    for (let i = 0; i < 3; i++) {
      const next = wallMs - this.offsetMs(guess);
      if (next === guess) break;
      guess = next;
    }
    // In a spring-forward gap no instant has this wall time: move to the first one after it.
    if (this.wall(guess) < wallMs) guess += wallMs - this.wall(guess);
    return guess;
  }
}

/** Wall-clock fields of an instant in tz. */
export const zonedParts = (ms: number, tz: string): WallParts => zone(tz).parts(ms);
