/**
 * Time buckets of a trend in a timezone: their labels, the bucket of an instant, every bucket of a range.
 * An hour that an autumn clock change repeats is two buckets, so a 25-hour day has 25 hours.
 */
import { SLOT_MS, type Zone, zone } from "./zone.ts";

export type Bucket = "hour" | "day" | "week" | "month" | "hour_of_day" | "day_of_week";

const HOUR = 3_600_000;
const pad = (n: number, w = 2) => String(n).padStart(w, "0");

/** Wall time (as UTC ms) at which the bucket holding `wall` starts. Not for hour_of_day/day_of_week. */
function bucketWallStart(wall: number, bucket: Bucket): number {
  const d = new Date(wall);
  switch (bucket) {
    case "hour":
      return Math.floor(wall / HOUR) * HOUR;
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

/** "+02:00" for an offset in milliseconds. */
function offsetLabel(offsetMs: number): string {
  const minutes = Math.round(offsetMs / 60_000), a = Math.abs(minutes);
  return `${minutes < 0 ? "-" : "+"}${pad(Math.floor(a / 60))}:${pad(a % 60)}`;
}

/**
 * The bucket of an instant: "2026-11-20T13:00" (hour), "2026-11-20" (day), the Monday "2026-11-16"
 * (week), "2026-11" (month), 0-23 (hour_of_day), 1-7 with Monday = 1 (day_of_week). An hour that an
 * autumn clock change repeats is two buckets, labelled with their UTC offsets ("2026-10-25T02:00+02:00",
 * then "2026-10-25T02:00+01:00").
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

/** A fast bucketer for many instants: caches per 15-minute slot. */
export function bucketer(bucket: Bucket, tz: string): (ms: number) => string | number {
  const z = zone(tz);
  const cache = new Map<number, string | number>();
  return (ms: number) => {
    const slot = Math.floor(ms / SLOT_MS);
    let v = cache.get(slot);
    if (v === undefined) {
      v = bucketOf(slot * SLOT_MS, bucket, z);
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
