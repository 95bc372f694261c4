/**
 * Observable Plot on the server: Plot draws into a `linkedom` document (no browser, no canvas), and the
 * chart leaves as SVG markup. Both load on the first chart, not at start: most requests never draw one.
 */
// deno-lint-ignore no-explicit-any
type PlotModule = any;

interface Drawing {
  Plot: PlotModule;
  document: unknown;
}

let loading: Promise<Drawing> | null = null;

/** Plot and one shared document to draw in (a chart is serialized at once and never attached to it). */
export function drawing(): Promise<Drawing> {
  loading ??= (async () => {
    const [Plot, { parseHTML }] = await Promise.all([import("@observablehq/plot"), import("linkedom")]);
    // linkedom's types describe a browser window, which Deno's types do not include
    const { document } = parseHTML("<!doctype html><html><body></body></html>") as unknown as {
      document: unknown;
    };
    return { Plot, document };
  })();
  return loading;
}
