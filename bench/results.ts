/**
 * Where a bench writes what it measured: bench/results/<name>.json, with when and on what machine. The
 * machine is shared, so the load at the start and at the end says how much of its cores the run really had.
 */

/** Notes the load now (call it before the bench does its work); `write` adds the machine block to `fields` and answers what it wrote. */
export function benchRun() {
  const loadAtStart = Deno.loadavg();
  return {
    async write(name: string, fields: Record<string, unknown>): Promise<Record<string, unknown>> {
      const out = {
        measured_at: new Date().toISOString(),
        machine: {
          cores: navigator.hardwareConcurrency,
          load_average_at_start: loadAtStart,
          load_average_at_end: Deno.loadavg(),
        },
        ...fields,
      };
      await Deno.mkdir(new URL("./results/", import.meta.url), { recursive: true });
      await Deno.writeTextFile(
        new URL(`./results/${name}.json`, import.meta.url),
        JSON.stringify(out, null, 2) + "\n",
      );
      return out;
    },
  };
}
