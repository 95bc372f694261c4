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
  /** A dot on every point of the first series (one per bucket, so a reader can count them). */
  dots?: boolean;
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
.chart-narrow { display: none; }
@media (max-width: 600px) { .chart-sized .chart-wide { display: none; } .chart-sized .chart-narrow { display: block; } }
@media print { .chart-sized .chart-narrow { display: none !important; } .chart-sized .chart-wide { display: block !important; } }
`;

/** Chart text in px at the size the chart is drawn (charts are never scaled up, see renderSized). */
export const FONT_SIZE = 13;
/** Widths a chart is drawn at: a tile or report figure on a wide screen, and a phone's column. */
export const WIDE = 440;
export const NARROW = 300;

/** Series colours in order (colour-blind safe, Okabe–Ito); a dashed series is grey. */
export const PALETTE = ["#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9"] as const;
const GREY = "#8a8a8a";
const MAX_LABEL = 40;

const dayOf = (date: string) => new Date(`${date}T00:00:00Z`);
/** About how wide a text is at FONT_SIZE (for margins and the legend; generous so labels never touch). */
const textWidth = (s: string) => Math.ceil(s.length * FONT_SIZE * 0.62);
const shorten = (s: string) => s.length > MAX_LABEL ? `${s.slice(0, MAX_LABEL - 1)}…` : s;

/** Renders a chart to SVG markup. An empty chart is a small SVG saying "No data". */
export async function renderChart(spec: ChartSpec): Promise<string> {
  const { Plot, document } = await drawing();
  const svg = spec.kind === "line" ? lineChart(Plot, document, spec) : barChart(Plot, document, spec);
  // Plot's own <style> element would need 'unsafe-inline' under the app's CSP: CHART_CSS goes in the page's
  // stylesheet instead
  svg.querySelector("style")?.remove();
  // the size of every text, as an attribute (an inline style would need 'unsafe-inline' under the CSP)
  svg.setAttribute("font-size", String(FONT_SIZE));
  if (spec.kind === "line") addLegend(document, svg, spec);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", spec.title);
  svg.setAttribute("class", `${svg.getAttribute("class") ?? ""} chart chart-${spec.kind}`.trim());
  const title = document_(document).createElementNS("http://www.w3.org/2000/svg", "title");
  title.textContent = spec.title;
  svg.insertBefore(title, svg.firstChild);
  return svg.outerHTML;
}

/**
 * The same chart drawn twice, at a wide and at a phone's width; the stylesheet shows one of them. A chart is
 * then drawn at about the size it is shown (never scaled up), so its text stays at FONT_SIZE or near it.
 */
export async function renderSized(spec: ChartSpec): Promise<string> {
  const [wide, narrow] = await Promise.all([
    renderChart({ ...spec, width: spec.width ?? WIDE }),
    renderChart({ ...spec, width: NARROW }),
  ]);
  return `<div class="chart-sized"><div class="chart-wide">${wide}</div><div class="chart-narrow">${narrow}</div></div>`;
}

// deno-lint-ignore no-explicit-any
const document_ = (d: unknown) => d as any;

const LEGEND_TOP = 4;
/**
 * A line chart's legend above its plot, one entry per series laid out left to right and wrapping, so no two
 * labels can overlap (labels at the lines' ends collided when the lines ended close together).
 */
function addLegend(document: unknown, svg: unknown, spec: LineChart) {
  const series = spec.series.filter((s) => s.points.length > 0);
  if (series.length < 2) return;
  const d = document_(document), root = svg as ReturnType<typeof d.createElementNS>;
  const width = Number(root.getAttribute("width"));
  const g = d.createElementNS("http://www.w3.org/2000/svg", "g");
  g.setAttribute("class", "legend");
  let x = 8, y = LEGEND_TOP, colour = 0;
  for (const s of series) {
    const stroke = s.dashed ? GREY : PALETTE[colour++ % PALETTE.length];
    const name = shorten(s.name);
    const w = 26 + textWidth(name) + 16;
    if (x > 8 && x + w > width) {
      x = 8;
      y += FONT_SIZE + 8;
    }
    const line = d.createElementNS("http://www.w3.org/2000/svg", "line");
    for (
      const [k, v] of Object.entries({ x1: x, x2: x + 20, y1: y + 8, y2: y + 8, stroke, "stroke-width": 2 })
    ) {
      line.setAttribute(k, String(v));
    }
    if (s.dashed) line.setAttribute("stroke-dasharray", "4,3");
    const text = d.createElementNS("http://www.w3.org/2000/svg", "text");
    text.setAttribute("x", String(x + 26));
    text.setAttribute("y", String(y + 8));
    text.setAttribute("dy", "0.32em");
    text.setAttribute("text-anchor", "start");
    text.setAttribute("fill", "#1c2430");
    text.textContent = name;
    g.appendChild(line);
    g.appendChild(text);
    x += w;
  }
  root.appendChild(g);
}

/** Rows the legend takes at a width (the plot's top margin leaves room for them). */
function legendRows(series: Series[], width: number): number {
  if (series.length < 2) return 0;
  let x = 8, rows = 1;
  for (const s of series) {
    const w = 26 + textWidth(shorten(s.name)) + 16;
    if (x > 8 && x + w > width) {
      x = 8;
      rows++;
    }
    x += w;
  }
  return rows;
}

/** A value axis that reads well: whole numbers for counts, never a 0..0 domain (drawn as "0.000000"). */
function valueAxis(max: number) {
  const top = max > 0 ? max : 1;
  const ticks = top < 4 && Number.isInteger(top) ? top : 4;
  return {
    domain: [0, top],
    nice: true,
    ticks,
    tickFormat: top >= 4 || !Number.isInteger(top) ? ",~r" : ",d",
  };
}

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
  const width = spec.width ?? WIDE, height = spec.height ?? 220;
  const series = spec.series.filter((s) => s.points.length > 0);
  if (series.length === 0) return empty(Plot, document, width, height);
  const marks: unknown[] = [Plot.ruleY([0], { stroke: "#ccc" })];
  let colour = 0, max = 0;
  series.forEach((s, i) => {
    const stroke = s.dashed ? GREY : PALETTE[colour++ % PALETTE.length];
    const rows = s.points.map((p) => ({ date: dayOf(p.date), value: p.value }));
    max = Math.max(max, ...rows.map((r) => r.value));
    marks.push(
      Plot.lineY(rows, {
        x: "date",
        y: "value",
        stroke,
        strokeWidth: s.dashed ? 1.5 : 2,
        strokeDasharray: s.dashed ? "4,3" : undefined,
      }),
    );
    if (rows.length === 1 || (spec.dots && i === 0)) {
      marks.push(Plot.dot(rows, { x: "date", y: "value", fill: stroke, r: 2.5 }));
    }
  });
  const legend = legendRows(series, width);
  const days = Math.max(...series.map((s) => s.points.length));
  const y = valueAxis(max);
  const longestTick = Math.max(...[0, y.domain[1]].map((v) => v.toLocaleString("en-US").length));
  return Plot.plot({
    document,
    width,
    height: height + legend * (FONT_SIZE + 8),
    marginTop: 12 + legend * (FONT_SIZE + 8),
    marginLeft: Math.max(40, 14 + textWidth("0".repeat(longestTick))),
    marginRight: 28,
    marginBottom: 36,
    // whole days as ticks (never hours) when they fit, else as many as fit
    x: { type: "utc", label: null, ticks: days <= width / 70 ? "day" : Math.max(2, Math.floor(width / 90)) },
    // the axis label sits above the plot, where a legend's row is: with a legend the series name it instead
    y: { grid: true, label: legend ? null : spec.y_label ?? null, ...y },
    marks,
  });
}

// deno-lint-ignore no-explicit-any
function barChart(Plot: any, document: unknown, spec: BarChart) {
  const width = spec.width ?? WIDE;
  // a phone's chart keeps its labels shorter, so the bars keep room
  const room = Math.floor((width * 0.42) / (FONT_SIZE * 0.62));
  const rows = spec.bars.map((b) => ({
    ...b,
    label: b.label.length > room ? `${b.label.slice(0, room - 1)}…` : b.label,
    // the value is printed past the bar and past the previous period's tick, never over the tick
    reach: Math.max(b.value, b.previous ?? 0),
  }));
  if (rows.length === 0) return empty(Plot, document, width, 80);
  const longest = Math.max(...rows.map((r) => textWidth(r.label)));
  const withPrevious = rows.filter((r) => r.previous !== undefined && r.previous !== null);
  const max = Math.max(...rows.map((r) => r.reach));
  const widestValue = Math.max(...rows.map((r) => textWidth(r.value.toLocaleString("en-US"))));
  return Plot.plot({
    document,
    width,
    // the margins plus a row per bar (one bar alone used to leave no room for itself)
    height: 16 + (spec.x_label ? 30 + FONT_SIZE + 6 : 30) + rows.length * (FONT_SIZE + 14),
    marginTop: 16,
    marginLeft: Math.min(12 + longest, width / 2),
    marginRight: 12 + widestValue,
    // the axis label on a row of its own under the tick labels (at the end of their row it met the last one)
    marginBottom: spec.x_label ? 30 + FONT_SIZE + 6 : 30,
    x: {
      grid: true,
      label: spec.x_label ?? null,
      labelAnchor: "center",
      labelOffset: 28 + FONT_SIZE,
      ...valueAxis(max),
      ticks: Math.max(2, Math.floor(width / 110)),
    },
    y: { label: null, domain: [...new Set(rows.map((r) => r.label))] },
    marks: [
      Plot.barX(rows, { x: "value", y: "label", fill: PALETTE[0] }),
      Plot.tickX(withPrevious, { x: "previous", y: "label", stroke: "#222", strokeWidth: 2 }),
      Plot.text(rows, {
        x: "reach",
        y: "label",
        text: (r: Bar) => r.value.toLocaleString("en-US"),
        dx: 5,
        textAnchor: "start",
      }),
      Plot.ruleX([0]),
    ],
  });
}
