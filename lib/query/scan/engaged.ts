/**
 * What makes a session engaged (the `engaged_visitors` metric, and tools that judge one session): it lasted
 * 10 s or more (first to last event in scope), saw 2+ pageviews, or had an interaction, i.e. any event that
 * is not one of the passive ones below (a click, a custom event).
 */
export const ENGAGED_MIN_MS = 10_000;
export const PASSIVE_EVENTS: ReadonlySet<string> = new Set([
  "$pageview",
  "$pageleave",
  "$web_vitals",
  "$identify",
]);

export const isEngagedSession = (durationMs: number, pageviews: number, interacted: boolean): boolean =>
  durationMs >= ENGAGED_MIN_MS || pageviews >= 2 || interacted;
