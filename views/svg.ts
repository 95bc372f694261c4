/// <reference lib="dom" />
/**
 * Small SVG charts drawn with DOM calls (no innerHTML of data, no eval). Every mark carries its figure as
 * text or a <title>, and data-label/data-value attributes, so a screen reader, a host and a test can tell
 * what is drawn. Colors come from CSS variables, so light and dark follow the host.
 */
const NS = "http://www.w3.org/2000/svg";

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string | null)[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  for (const c of children) if (c !== null) el.append(c);
  return el;
}

export function s(tag: string, attrs: Record<string, string | number> = {}, ...children: (Node | string)[]) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) el.append(c);
  return el;
}

export function fmt(v: unknown, unit = ""): string {
  if (v === null || v === undefined) return "n/a";
  if (typeof v !== "number") return String(v);
  if (unit === "%") return `${Math.round(v * 1000) / 10}%`;
  const n = Math.abs(v) >= 100 ? Math.round(v) : Math.round(v * 100) / 100;
  return `${n.toLocaleString("en-US")}${unit}`;
}

export function change(c: unknown): string {
  return typeof c === "number" ? `${c >= 0 ? "+" : ""}${Math.round(c * 1000) / 10}%` : "";
}

function svgRoot(width: number, height: number, label: string) {
  const root = s("svg", {
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    // a figure, not an img: an img's children are hidden from screen readers, and the figures are in them
    role: "figure",
    "aria-label": label,
  });
  root.append(s("title", {}, label));
  return root;
}

/**
 * A figure as the answer gives it: a number, a text the answer writes in its place ("fewer than 5": spec rule
 * 5), or null (withheld, n/a). Only numbers are drawn to scale; the others are marked as what they are, with
 * the answer's own words in their label, title and data-value, never as 0.
 */
export type Figure = number | string | null;
const isNumber = (v: Figure): v is number => typeof v === "number" && Number.isFinite(v);
const dataValue = (v: Figure) => (v === null ? "" : String(v));

export interface Bar {
  label: string;
  value: Figure;
  note?: string;
}

/**
 * Horizontal bars, one row each, label left, value at the bar's end. With `wrap`, labels too long for the
 * left column get a line of their own over their bar, the whole width, and are shortened in the middle when
 * still too long, so the end of a path ("/signup → … → /docs") tells rows apart on a narrow screen.
 */
export function bars(title: string, rows: Bar[], width: number, unit = "", wrap = false): SVGElement {
  const labelW0 = Math.min(180, Math.max(80, width * 0.35));
  const stacked = wrap && rows.some((r) => r.label.length > labelW0 / 7);
  const row = stacked ? 38 : 22;
  const top = stacked ? 16 : 0;
  const labelW = stacked ? 0 : labelW0;
  const valueW = 90;
  const plotW = Math.max(40, width - labelW - valueW);
  const max = Math.max(1e-9, ...rows.map((r) => (isNumber(r.value) ? Math.abs(r.value) : 0)));
  const root = svgRoot(width, rows.length * row + 4, title);
  root.setAttribute("data-chart", "bars");
  rows.forEach((r, i) => {
    const y = i * row + 2;
    const n = isNumber(r.value) ? r.value : null;
    // a figure that is no number gets a short outlined stub: something is there, not drawn to scale
    const w = n === null ? 6 : Math.max(1, (Math.abs(n) / max) * plotW);
    const text = `${r.label}: ${fmt(r.value, unit)}${r.note ? ` (${r.note})` : ""}`;
    const g = s("g", { class: "mark", "data-label": r.label, "data-value": dataValue(r.value) });
    g.append(
      s("title", {}, text),
      stacked ? s("text", { x: 0, y: y + 12, class: "label" }, clipMiddle(r.label, (width - 4) / 7)) : s(
        "text",
        { x: labelW - 6, y: y + 14, "text-anchor": "end", class: "label" },
        clip(r.label, labelW / 7),
      ),
      s("rect", {
        x: labelW,
        y: y + top + 3,
        width: w,
        height: row - top - 8,
        rx: 2,
        class: n === null ? "bar withheld" : n < 0 ? "bar neg" : "bar",
      }),
      s(
        "text",
        { x: labelW + w + 4, y: y + top + 14, class: "value" },
        `${fmt(r.value, unit)}${r.note ? ` · ${r.note}` : ""}`,
      ),
    );
    root.append(g);
  });
  return root;
}

/** A text cut to `n` characters in its middle: its start and, longer, its end stay ("/signup → …/docs"). */
export function clipMiddle(t: string, n: number): string {
  const keep = Math.max(2, Math.floor(n) - 1);
  if (t.length <= keep + 1) return t;
  const head = Math.floor(keep * 0.4);
  return `${t.slice(0, head)}…${t.slice(t.length - (keep - head))}`;
}

const clip = (t: string, n: number) => (t.length > n ? `${t.slice(0, Math.max(1, Math.floor(n) - 1))}…` : t);

export interface Line {
  name: string;
  points: { x: string; y: Figure }[];
  dashed?: boolean;
}

/** Lines over shared x positions (index-aligned: the period before lies under the period shown). */
export function lines(title: string, series: Line[], width: number, unit = ""): SVGElement {
  const height = 220;
  const pad = { l: 48, r: 12, t: 12, b: 40 };
  const n = Math.max(2, ...series.map((x) => x.points.length));
  const max = Math.max(1e-9, ...series.flatMap((x) => x.points.map((p) => (isNumber(p.y) ? p.y : 0))));
  const X = (i: number) => pad.l + (i / (n - 1)) * (width - pad.l - pad.r);
  const Y = (v: number) => pad.t + (1 - v / max) * (height - pad.t - pad.b);
  const root = svgRoot(width, height, title);
  root.setAttribute("data-chart", "lines");
  for (const t of [0, 0.5, 1]) {
    root.append(
      s("line", { x1: pad.l, x2: width - pad.r, y1: Y(max * t), y2: Y(max * t), class: "grid" }),
      s("text", { x: pad.l - 4, y: Y(max * t) + 4, "text-anchor": "end", class: "axis" }, fmt(max * t, unit)),
    );
  }
  const first = series[0]?.points ?? [];
  const ticks = Math.min(first.length, Math.max(2, Math.floor((width - pad.l) / 90)));
  for (let k = 0; k < ticks; k++) {
    const i = Math.round((k / Math.max(1, ticks - 1)) * (first.length - 1));
    if (first[i]) {
      root.append(
        s("text", { x: X(i), y: height - pad.b + 16, "text-anchor": "middle", class: "axis" }, first[i].x),
      );
    }
  }
  series.forEach((line, si) => {
    // the line breaks at a point that is no number (it starts again at the next one)
    let d = "", open = false;
    line.points.forEach((p, i) => {
      if (!isNumber(p.y)) return void (open = false);
      d += `${open ? "L" : "M"}${X(i).toFixed(1)},${Y(p.y).toFixed(1)}`;
      open = true;
    });
    const g = s("g", { class: `series s${si}`, "data-series": line.name });
    g.append(s("path", { d, class: line.dashed ? "line dashed" : "line" }));
    line.points.forEach((p, i) => {
      const dot = s("circle", {
        cx: X(i),
        cy: isNumber(p.y) ? Y(p.y) : Y(0),
        r: isNumber(p.y) ? 2.5 : 4,
        // an outlined ring on the axis: a figure the answer gives in words, not a value of 0
        class: isNumber(p.y) ? "dot" : "dot withheld",
        "data-label": p.x,
        "data-value": dataValue(p.y),
      });
      dot.append(s("title", {}, `${line.name} ${p.x}: ${fmt(p.y, unit)}`));
      g.append(dot);
    });
    root.append(g);
  });
  // legend
  series.forEach((line, si) => {
    const x = pad.l + si * 170;
    root.append(
      s("line", {
        x1: x,
        x2: x + 18,
        y1: height - 8,
        y2: height - 8,
        class: line.dashed ? "line dashed" : "line",
        "data-legend": si,
      }),
      s("text", { x: x + 22, y: height - 4, class: "axis" }, line.name),
    );
  });
  return root;
}

/** A grid of cells shaded by value (0..1 by default), each with its figure written in it. */
export function grid(
  title: string,
  rows: string[],
  cols: string[],
  value: (r: number, c: number) => number | null,
  width: number,
  unit = "%",
  max = 1,
): SVGElement {
  const labelW = Math.min(170, width * 0.3);
  const cell = Math.max(26, Math.min(64, (width - labelW) / Math.max(1, cols.length)));
  const rowH = 24;
  const root = svgRoot(labelW + cell * cols.length, rowH * (rows.length + 1) + 4, title);
  root.setAttribute("data-chart", "grid");
  cols.forEach((c, j) => {
    root.append(
      s(
        "text",
        { x: labelW + j * cell + cell / 2, y: 16, "text-anchor": "middle", class: "axis" },
        clip(c, cell / 6),
      ),
    );
  });
  rows.forEach((r, i) => {
    const y = rowH * (i + 1);
    root.append(
      s("text", { x: labelW - 6, y: y + 16, "text-anchor": "end", class: "label" }, clip(r, labelW / 7)),
    );
    cols.forEach((c, j) => {
      const v = value(i, j);
      const g = s("g", { class: "mark", "data-label": `${r} × ${c}`, "data-value": v ?? "" });
      const alpha = v === null ? 0 : Math.max(0.06, Math.min(1, v / max));
      g.append(
        s("title", {}, `${r}, ${c}: ${fmt(v, unit)}`),
        s("rect", {
          x: labelW + j * cell + 1,
          y: y + 1,
          width: cell - 2,
          height: rowH - 2,
          class: "cell",
          "fill-opacity": alpha,
        }),
      );
      if (v !== null) {
        g.append(
          s("text", {
            x: labelW + j * cell + cell / 2,
            y: y + 16,
            "text-anchor": "middle",
            class: alpha > 0.55 ? "cellText strong" : "cellText",
          }, fmt(v, unit)),
        );
      }
      root.append(g);
    });
  });
  return root;
}

export interface Band {
  label: string;
  p50: number;
  p75: number;
  p95: number;
  good: number;
  poor: number;
  unit: string;
}

/** Percentile bands on a scale with the good and poor thresholds marked. */
export function bands(title: string, rows: Band[], width: number): SVGElement {
  const rowH = 46;
  const labelW = 60;
  const plotW = width - labelW - 20;
  const root = svgRoot(width, rows.length * rowH + 6, title);
  root.setAttribute("data-chart", "bands");
  rows.forEach((b, i) => {
    const max = Math.max(b.p95, b.poor * 1.2);
    const X = (v: number) => labelW + (v / max) * plotW;
    const y = i * rowH + 6;
    const g = s("g", { class: "mark", "data-label": b.label, "data-value": b.p75 });
    g.append(
      s(
        "title",
        {},
        `${b.label}: p50 ${fmt(b.p50)}${b.unit}, p75 ${fmt(b.p75)}${b.unit}, p95 ${fmt(b.p95)}${b.unit}`,
      ),
      s("text", { x: 0, y: y + 16, class: "label" }, b.label),
      s("rect", { x: labelW, y: y + 4, width: X(b.good) - labelW, height: 16, class: "zone good" }),
      s("rect", { x: X(b.good), y: y + 4, width: X(b.poor) - X(b.good), height: 16, class: "zone ni" }),
      s("rect", {
        x: X(b.poor),
        y: y + 4,
        width: labelW + plotW - X(b.poor),
        height: 16,
        class: "zone poor",
      }),
      s("rect", { x: X(b.p50), y: y + 8, width: Math.max(2, X(b.p95) - X(b.p50)), height: 8, class: "band" }),
      s("line", { x1: X(b.p75), x2: X(b.p75), y1: y + 2, y2: y + 22, class: "p75" }),
      s(
        "text",
        { x: labelW, y: y + 36, class: "axis" },
        `p50 ${fmt(b.p50)}${b.unit} · p75 ${fmt(b.p75)}${b.unit} · p95 ${fmt(b.p95)}${b.unit}`,
      ),
    );
    root.append(g);
  });
  return root;
}
