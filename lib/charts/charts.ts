/**
 * Charts as SVG markup rendered on the server, for report pages, dashboards and mail-free printing. A chart
 * is described by data (`ChartSpec`), so callers never touch Plot: a time series (one or more lines, e.g.
 * this period against the one before, dashed) or labelled bars (e.g. pages by views, with a tick at the
 * previous value). Lines are labelled at their ends instead of a legend, so the output is one `<svg>`
 * element that can be inlined into any page. Text is escaped by the serializer; the SVG carries
 * `role="img"`, an `aria-label` and a `<title>` naming the chart.
 */
import { drawing } from "./plot.ts";

/** One day's value; `date` is a local calendar day (YYYY-MM-DD) and is drawn as that day. */
export interface TimePoint {
  date: string;
  value: number;
}

export interface Series {
  name: string;
  points: TimePoint[];
  /** Dashed and grey (a comparison period); default solid in the series' colour. */
  dashed?: boolean;
}

export interface LineChart {
  kind: "line";
  title: string;
  series: Series[];
  /** Axis label of the values, e.g. "visitors". */
  y_label?: string;
  width?: number;
  height?: number;
}

export interface Bar {
  label: string;
  value: number;
  /** Drawn as a tick across the bar: the value in the period before. */
  previous?: number | null;
}

export interface BarChart {
  kind: "bar";
  title: string;
  bars: Bar[];
  x_label?: string;
  width?: number;
}

export type ChartSpec = LineChart | BarChart;

/** What Plot's removed <style> did, for the stylesheet of a page that shows charts. */
export const CHART_CSS = `
svg.chart { display: block; max-width: 100%; height: auto; background: #fff; overflow: visible; }
svg.chart text, svg.chart tspan { white-space: pre; }
`;

/** Series colours in order (colour-blind safe, Okabe–Ito); a dashed series is grey. */
export const PALETTE = ["#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9"] as const;
const GREY = "#8a8a8a";
const MAX_LABEL = 40;

const dayOf = (date: string) => new Date(`${date}T00:00:00Z`);
const shorten = (s: string) => s.length > MAX_LABEL ? `${s.slice(0, MAX_LABEL - 1)}…` : s;

/** Renders a chart to SVG markup. An empty chart is a small SVG saying "No data". */
export async function renderChart(spec: ChartSpec): Promise<string> {
  const { Plot, document } = await drawing();
  const svg = spec.kind === "line" ? lineChart(Plot, document, spec) : barChart(Plot, document, spec);
  // Plot's own <style> element would need 'unsafe-inline' under the app's CSP: CHART_CSS goes in the page's
  // stylesheet instead
  svg.querySelector("style")?.remove();
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", spec.title);
  svg.setAttribute("class", `${svg.getAttribute("class") ?? ""} chart chart-${spec.kind}`.trim());
  const title = document_(document).createElementNS("http://www.w3.org/2000/svg", "title");
  title.textContent = spec.title;
  svg.insertBefore(title, svg.firstChild);
  return svg.outerHTML;
}

// deno-lint-ignore no-explicit-any
const document_ = (d: unknown) => d as any;

// deno-lint-ignore no-explicit-any
function empty(Plot: any, document: unknown, width: number, height: number) {
  return Plot.plot({
    document,
    width,
    height,
    axis: null,
    marks: [Plot.text(["No data"], { frameAnchor: "middle", fontSize: 14, fill: GREY })],
  });
}

// deno-lint-ignore no-explicit-any
function lineChart(Plot: any, document: unknown, spec: LineChart) {
  const width = spec.width ?? 640, height = spec.height ?? 220;
  const series = spec.series.filter((s) => s.points.length > 0);
  if (series.length === 0) return empty(Plot, document, width, height);
  const marks: unknown[] = [Plot.ruleY([0], { stroke: "#ccc" })];
  let colour = 0;
  let longestName = 0;
  for (const s of series) {
    const stroke = s.dashed ? GREY : PALETTE[colour++ % PALETTE.length];
    const rows = s.points.map((p) => ({ date: dayOf(p.date), value: p.value }));
    marks.push(
      Plot.lineY(rows, {
        x: "date",
        y: "value",
        stroke,
        strokeWidth: s.dashed ? 1.5 : 2,
        strokeDasharray: s.dashed ? "4,3" : undefined,
      }),
    );
    if (rows.length === 1) marks.push(Plot.dot(rows, { x: "date", y: "value", fill: stroke }));
    if (series.length > 1) {
      marks.push(
        Plot.text([rows[rows.length - 1]], {
          x: "date",
          y: "value",
          text: () => shorten(s.name),
          dx: 6,
          textAnchor: "start",
          fill: stroke,
        }),
      );
      longestName = Math.max(longestName, Math.min(s.name.length, MAX_LABEL));
    }
  }
  return Plot.plot({
    document,
    width,
    height,
    marginRight: series.length > 1 ? 12 + longestName * 6 : 20,
    x: { type: "utc", label: null },
    y: { grid: true, label: spec.y_label ?? null, zero: true },
    marks,
  });
}

// deno-lint-ignore no-explicit-any
function barChart(Plot: any, document: unknown, spec: BarChart) {
  const width = spec.width ?? 640;
  const rows = spec.bars.map((b) => ({ ...b, label: shorten(b.label) }));
  if (rows.length === 0) return empty(Plot, document, width, 80);
  const longest = Math.max(...rows.map((r) => r.label.length));
  const withPrevious = rows.filter((r) => r.previous !== undefined && r.previous !== null);
  return Plot.plot({
    document,
    width,
    height: 30 + rows.length * 24,
    marginLeft: Math.min(12 + longest * 6.2, width / 2),
    marginRight: 40,
    x: { grid: true, label: spec.x_label ?? null },
    y: { label: null, domain: [...new Set(rows.map((r) => r.label))] },
    marks: [
      Plot.barX(rows, { x: "value", y: "label", fill: PALETTE[0] }),
      Plot.tickX(withPrevious, { x: "previous", y: "label", stroke: "#222", strokeWidth: 2 }),
      Plot.text(rows, {
        x: "value",
        y: "label",
        text: (r: Bar) => r.value.toLocaleString("en-US"),
        dx: 4,
        textAnchor: "start",
      }),
      Plot.ruleX([0]),
    ],
  });
}
