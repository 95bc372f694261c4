/**
 * Hours an autumn DST change repeats (02:00-03:00 twice in Berlin). The engine buckets hours by their local
 * label, so both fall in one bucket; behavior_trends asks for each of them apart and gives two points,
 * labelled with their UTC offset ("2026-10-25T02:00+02:00", then "2026-10-25T02:00+01:00").
 */
import { tzOffsetMs, zonedParts } from "../lib/answers/zoned.ts";

export const HOUR_MS = 3_600_000;

export interface RepeatedHour {
  /** The engine's bucket label, shared by both hours. */
  label: string;
  first: number;
  second: number;
}

const pad = (n: number) => String(n).padStart(2, "0");

export function hourLabel(ms: number, tz: string): string {
  const z = zonedParts(ms, tz);
  return `${z.y}-${pad(z.m)}-${pad(z.d)}T${pad(z.hour)}:00`;
}

/** "+02:00" for the offset of tz at the instant. */
export function offsetLabel(ms: number, tz: string): string {
  const minutes = Math.round(tzOffsetMs(ms, tz) / 60_000);
  const a = Math.abs(minutes);
  return `${minutes < 0 ? "-" : "+"}${pad(Math.floor(a / 60))}:${pad(a % 60)}`;
}

/** The repeated hours between two instants (none unless the offset changes in between). */
export function repeatedHours(from: number, to: number, tz: string): RepeatedHour[] {
  if (tzOffsetMs(from, tz) === tzOffsetMs(to - 1, tz)) return [];
  const out: RepeatedHour[] = [];
  let before = hourLabel(from, tz);
  for (let ms = from + HOUR_MS; ms < to; ms += HOUR_MS) {
    const label = hourLabel(ms, tz);
    if (label === before) out.push({ label, first: ms - HOUR_MS, second: ms });
    before = label;
  }
  return out;
}
