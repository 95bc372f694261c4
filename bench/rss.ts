/** The bench process's own memory (Linux /proc), for the benches that report a peak resident set. */

/** The process's resident set now and at its peak since the last reset, in MB; null off Linux. */
export async function rss(): Promise<{ now: number; peak: number } | null> {
  try {
    const s = await Deno.readTextFile("/proc/self/status");
    const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(s)?.[1] ?? NaN) / 1024;
    return { now: Math.round(kb("VmRSS")), peak: Math.round(kb("VmHWM")) };
  } catch {
    return null;
  }
}

/** Starts the peak over (writing 5 to clear_refs resets VmHWM), so what ran before (a site generated) does not count. */
export async function resetPeak(): Promise<void> {
  try {
    await Deno.writeTextFile("/proc/self/clear_refs", "5");
  } catch { /* not Linux: the peak includes what ran before */ }
}
