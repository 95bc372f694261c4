/**
 * Calendar arithmetic in an IANA timezone, DST-correct, with Intl only. Offsets are looked up once
 * per 15-minute slot (every real transition falls on such a boundary) and cached, so bucketing a
 * million events costs a million map lookups, not a million Intl calls.
 */
import type { Bucket } from "./types.ts";

const SLOT = 15 * 60_000;
const zones = new Map<string, Zone>();

export function isValidTimezone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

export function zone(tz: string): Zone {
  let z = zones.get(tz);
  if (!z) {
    z = new Zone(tz);
    if (zones.size > 200) zones.clear();
    zones.set(tz, z);
  }
  return z;
}

const pad = (n: number, w = 2) => String(n).padStart(w, "0");

export class Zone {
  private fmt: Intl.DateTimeFormat;
  private offsets = new Map<number, number>();
  constructor(readonly tz: string) {
    this.fmt = new Intl.DateTimeFormat("en-US", {
      timeZone: tz,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
    });
  }

  private exact(at: number): number {
    const p: Record<string, number> = {};
    for (const part of this.fmt.formatToParts(new Date(at))) {
      if (part.type !== "literal") p[part.type] = Number(part.value);
    }
    return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute) - at;
  }

  /** Milliseconds to add to UTC to get local wall time at `ms`. */
  offsetMs(ms: number): number {
    const slot = Math.floor(ms / SLOT);
    let off = this.offsets.get(slot);
    if (off === undefined) {
      // Ask Intl once per hour: when the hour's start and end agree, its four slots share the offset.
      const h0 = Math.floor(slot / 4) * 4;
      const a = this.exact(h0 * SLOT), b = this.exact((h0 + 4) * SLOT);
      if (this.offsets.size > 50_000) this.offsets.clear();
      for (let k = 0; k < 4; k++) {
        this.offsets.set(h0 + k, a === b || k === 0 ? a : this.exact((h0 + k) * SLOT));
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

/** Wall time (as UTC ms) at which the bucket holding `wall` starts. Not for hour_of_day/day_of_week. */
function bucketWallStart(wall: number, bucket: Bucket): number {
  const d = new Date(wall);
  switch (bucket) {
    case "hour":
      return Math.floor(wall / 3_600_000) * 3_600_000;
    case "day":
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
    case "week": {
      const dow = (d.getUTCDay() + 6) % 7; // Monday = 0
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() - dow);
    }
    case "month":
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
    default:
      throw new Error(`bucket ${bucket} has no start`);
  }
}

function labelOfWall(wallStart: number, bucket: Bucket): string {
  const d = new Date(wallStart);
  const ymd = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  if (bucket === "hour") return `${ymd}T${pad(d.getUTCHours())}:00`;
  if (bucket === "month") return ymd.slice(0, 7);
  return ymd;
}

const HOUR = 3_600_000;

/** "+02:00" for an offset in milliseconds. */
function offsetLabel(offsetMs: number): string {
  const minutes = Math.round(offsetMs / 60_000), a = Math.abs(minutes);
  return `${minutes < 0 ? "-" : "+"}${pad(Math.floor(a / 60))}:${pad(a % 60)}`;
}

/**
 * The bucket of an instant: "2026-11-20T13:00" (hour), "2026-11-20" (day), the Monday "2026-11-16"
 * (week), "2026-11" (month), 0-23 (hour_of_day), 1-7 with Monday = 1 (day_of_week). An hour that an
 * autumn clock change repeats is two buckets, labelled with their UTC offsets ("2026-10-25T02:00+02:00",
 * then "2026-10-25T02:00+01:00"), so a 25-hour day has 25 hours.
 */
export function bucketOf(ms: number, bucket: Bucket, z: Zone): string | number {
  const wall = z.wall(ms);
  if (bucket === "hour_of_day") return new Date(wall).getUTCHours();
  if (bucket === "day_of_week") return ((new Date(wall).getUTCDay() + 6) % 7) + 1;
  const label = labelOfWall(bucketWallStart(wall, bucket), bucket);
  if (bucket !== "hour") return label;
  const hourOf = (t: number) => bucketWallStart(z.wall(t), "hour");
  const h = bucketWallStart(wall, "hour");
  const repeated = hourOf(ms - HOUR) === h || hourOf(ms + HOUR) === h;
  return repeated ? label + offsetLabel(wall - ms) : label;
}

/** A fast bucketer for many instants: caches per local hour. */
export function bucketer(bucket: Bucket, tz: string): (ms: number) => string | number {
  const z = zone(tz);
  const cache = new Map<number, string | number>();
  return (ms: number) => {
    const slot = Math.floor(ms / SLOT);
    let v = cache.get(slot);
    if (v === undefined) {
      v = bucketOf(slot * SLOT, bucket, z);
      cache.set(slot, v);
    }
    return v;
  };
}

/** Every bucket label from `from` to `to` (exclusive) in order, for filling gaps in a trend. */
export function bucketsBetween(
  from: number,
  to: number,
  bucket: Bucket,
  tz: string,
): { label: string | number; start: number }[] {
  if (bucket === "hour_of_day") return Array.from({ length: 24 }, (_, h) => ({ label: h, start: NaN }));
  if (bucket === "day_of_week") return Array.from({ length: 7 }, (_, d) => ({ label: d + 1, start: NaN }));
  const z = zone(tz);
  const out: { label: string; start: number }[] = [];
  if (bucket === "hour") {
    // Real hours, one after another: a skipped spring hour never appears, a repeated autumn hour twice.
    const wallFrom = z.wall(from);
    for (let start = from - (wallFrom - bucketWallStart(wallFrom, "hour")); start < to; start += HOUR) {
      out.push({ label: bucketOf(start, "hour", z) as string, start });
    }
    return out;
  }
  let wall = bucketWallStart(z.wall(from), bucket);
  for (let guard = 0; guard < 100_000; guard++) {
    const start = z.fromWall(wall);
    if (start >= to) break;
    out.push({ label: labelOfWall(wall, bucket), start });
    const d = new Date(wall);
    if (bucket === "day") wall = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
    else if (bucket === "week") wall = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 7);
    else wall = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  }
  return out;
}

/** The instant a local calendar day starts, e.g. startOfLocalDay(2026, 11, 20, "Europe/Berlin"). */
export function startOfLocalDay(year: number, month: number, day: number, tz: string): number {
  return zone(tz).fromWall(Date.UTC(year, month - 1, day));
}
