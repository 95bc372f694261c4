/**
 * Durations as people read them: "5.3 s", "56 s", "1 min 19 s", "2 h 5 min", "420 ms". One rule for the app's
 * pages, the assistant views and the text answers carry; only the space inside a figure differs by medium.
 */

/**
 * The space inside one figure. Pages use a no-break space, so a figure never splits over two lines of a narrow
 * column ("1 min 59 / s"); text for assistants uses a plain one (a no-break space is an odd byte to a reader
 * that copies or matches the text).
 */
export type Space = "\u00a0" | " ";
export const NBSP: Space = "\u00a0";

/** Seconds as a duration: tenths below 10 s ("5.3 s"), whole seconds to a minute ("56 s"), then minutes, hours. */
export function duration(seconds: number, space: Space = NBSP): string {
  if (seconds < 0) return `-${duration(-seconds, space)}`;
  const _ = space;
  const tenths = Math.round(seconds * 10) / 10;
  if (tenths < 10) return `${tenths}${_}s`;
  const s = Math.round(seconds);
  if (s < 60) return `${s}${_}s`;
  if (s < 3600) return `${Math.floor(s / 60)}${_}min${s % 60 ? `${_}${s % 60}${_}s` : ""}`;
  const m = Math.round(s / 60);
  return `${Math.floor(m / 60)}${_}h${m % 60 ? `${_}${m % 60}${_}min` : ""}`;
}

/** Milliseconds: "420 ms" below a second, else as a duration ("2.9 s", "1 min 15 s"). */
export function milliseconds(ms: number, space: Space = NBSP): string {
  if (ms < 0) return `-${milliseconds(-ms, space)}`;
  return Math.round(ms) < 1000 ? `${Math.round(ms)}${space}ms` : duration(ms / 1000, space);
}
