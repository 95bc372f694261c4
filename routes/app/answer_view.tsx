/**
 * Any read tool's answer as people read it: its headline figures (labelled, formatted, against the period
 * before), one chart drawn on the server (a line with a dot per bucket for a series over days, else bars of
 * its first list) and its first list as a table whose cells keep their column names on phones. Dashboards,
 * an insight's own page and the builder's preview all show answers this way.
 */
import type { FC } from "hono/jsx";
import { raw } from "hono/html";
import { type ChartSpec, renderSized } from "../../lib/charts/charts.ts";
import { FEWER_THAN_5 } from "../../lib/answers/privacy.ts";
import { shownPath } from "../../lib/url_path.ts";
import { formatValue, metricLabel, versus } from "./format.ts";

type Row = Record<string, unknown>;
type Answer = Record<string, unknown>;

export interface ShownFigure {
  name: string;
  label: string;
  text: string;
  compared: string | null;
}

export interface ShownAnswer {
  figures: ShownFigure[];
  /** Server-drawn SVG markup (escaped by the serializer), or null when the answer has nothing to draw. */
  chart: string | null;
  /** Points the chart draws: for a series over time, one per bucket of the answer. */
  points: number;
  /** `newest`: a series, whose last rows (the newest buckets) are kept when it is cut */
  table: { title: string; columns: string[]; rows: Row[]; total: number; newest: boolean } | null;
  period: string | null;
  notices: string[];
}

const SKIP = new Set(["scope", "notices", "offset", "sort"]);
const LABEL_KEYS = [
  "label",
  "page",
  "name",
  "bucket",
  "cohort",
  "step",
  "source",
  "country",
  "device",
  "event",
  "value",
];
const MEASURES = [
  "visitors",
  "pageviews",
  "count",
  "events",
  "sessions",
  "requests",
  "clicks",
  "reviews",
  "value",
];
const isCompared = (v: unknown): v is { value: unknown; previous: unknown; change?: number | null } =>
  !!v && typeof v === "object" && !Array.isArray(v) && "value" in v && "previous" in v;
const isScalar = (v: unknown) => v === null || ["string", "number", "boolean"].includes(typeof v);
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The answer's top-level figures (compared ones against the period before), at most 8. */
export function figuresOf(answer: Answer): ShownFigure[] {
  const out: ShownFigure[] = [];
  for (const [k, v] of Object.entries(answer)) {
    if (SKIP.has(k) || k.endsWith("_total") || out.length >= 8) continue;
    // nothing withheld is nothing to say
    if (k.endsWith("_withheld") && v === 0) continue;
    if (typeof v === "number" || v === "fewer than 5") {
      out.push({ name: k, label: metricLabel(k), text: formatValue(k, v), compared: null });
    } else if (isCompared(v)) {
      const name = k === "total" && typeof answer.metric === "string" ? answer.metric : k;
      out.push({
        name: k,
        label: metricLabel(name),
        text: formatValue(name, v.value),
        compared: v.previous === null || v.previous === undefined
          ? null
          : versus(name, v.value, v.previous, v.change).replace(/^.*? vs /, "vs "),
      });
    }
  }
  return out;
}

/** The answer's first list of objects, with the field that names a row and the number to chart. */
function firstList(answer: Answer) {
  for (const [k, v] of Object.entries(answer)) {
    if (SKIP.has(k) || !Array.isArray(v) || !v.length || typeof v[0] !== "object" || v[0] === null) continue;
    const rows = v as Row[];
    const label = LABEL_KEYS.find((l) => isScalar(rows[0][l]) && rows[0][l] !== null);
    const preferred = typeof answer.metric === "string" ? [answer.metric, ...MEASURES] : MEASURES;
    const measure = preferred.find((n) => n !== label && rows.some((x) => typeof x[n] === "number"));
    return { key: k, rows, label, measure };
  }
  return null;
}

/** Rows whose figure reads "fewer than 5" (a small group under a saved cohort) are left out, never drawn as 0. */
function chartSpec(title: string, list: NonNullable<ReturnType<typeof firstList>>): ChartSpec | null {
  const { label, measure } = list;
  if (!label || !measure) return null;
  const rows = list.rows.filter((r) => typeof r[measure] === "number");
  if (!rows.length) return null;
  const num = (x: Row, f: string) => x[f] as number;
  if (label === "bucket" && rows.every((r) => DAY.test(String(r.bucket)))) {
    return {
      kind: "line",
      title,
      y_label: metricLabel(measure).toLowerCase(),
      dots: true,
      series: [{
        name: metricLabel(measure),
        points: rows.map((r) => ({ date: String(r.bucket), value: num(r, measure) })),
      }],
    };
  }
  const previous = `previous_${measure}`;
  return {
    kind: "bar",
    title,
    x_label: metricLabel(measure).toLowerCase(),
    bars: rows.slice(0, label === "bucket" ? 60 : 12).map((r, i) => ({
      label: label === "step" || list.key === "steps"
        ? `${r.step ?? i + 1}. ${readable(String(r.name ?? ""))}`.trim()
        : r[label] === null || r[label] === undefined
        ? `#${i + 1}`
        : readable(String(r[label])),
      value: num(r, measure),
      previous: typeof r[previous] === "number" ? r[previous] as number : undefined,
    })),
  };
}

/** Reads an answer into what the page shows; the chart is titled `title`. */
export async function showAnswer(title: string, answer: Answer): Promise<ShownAnswer> {
  const list = firstList(answer);
  const spec = list ? chartSpec(title, list) : null;
  const notices = Array.isArray(answer.notices) ? answer.notices.map(String) : [];
  const withheld = list?.measure ? list.rows.filter((r) => r[list.measure!] === FEWER_THAN_5).length : 0;
  if (spec && withheld) {
    notices.push(
      `${withheld === 1 ? "one group reads" : `${withheld} groups read`} "fewer than 5" and ${
        withheld === 1 ? "is" : "are"
      } left out of the chart`,
    );
  }
  const chart = spec ? await renderSized(spec) : null;
  const points = !spec ? 0 : spec.kind === "line" ? spec.series[0].points.length : spec.bars.length;
  const table = list
    ? {
      title: metricLabel(list.key),
      columns: Object.keys(list.rows[0]).filter((c) => list.rows.some((r) => isScalar(r[c]))).slice(0, 7),
      // a time series keeps its newest buckets, the ones a reader looks for
      rows: list.key === "series" ? list.rows.slice(-25) : list.rows.slice(0, 25),
      newest: list.key === "series",
      total: typeof answer[`${list.key}_total`] === "number"
        ? answer[`${list.key}_total`] as number
        : list.rows.length,
    }
    : null;
  const scope = answer.scope as { period?: { from_date?: string; to_date?: string } | null } | undefined;
  const p = scope?.period;
  return {
    figures: figuresOf(answer),
    chart,
    points,
    table,
    period: p?.from_date
      ? (p.from_date === p.to_date ? p.from_date : `${p.from_date} to ${p.to_date}`)
      : null,
    notices,
  };
}

/** A page path as people read it ("/café", not the stored "/caf%C3%A9"); other names as they are. */
const readable = (s: string) => (s.startsWith("/") ? shownPath(s) : s);

const cell = (col: string, v: unknown) =>
  v === null || v === undefined
    ? "—"
    : typeof v === "boolean"
    ? (v ? "yes" : "no")
    : typeof v === "string"
    ? readable(v)
    : formatValue(col, v);

/** The figures, chart and table of a shown answer; `compact` (a dashboard tile) leaves the table out. */
export const AnswerBlock: FC<{ shown: ShownAnswer; compact?: boolean }> = ({ shown, compact }) => (
  <div class="answer">
    {shown.figures.length > 0 && (
      <dl class="figures">
        {shown.figures.map((f) => (
          <div>
            <dt>{f.label}</dt>
            <dd>
              <span class="figure">{f.text}</span>
              {f.compared && <span class="muted">{` ${f.compared}`}</span>}
            </dd>
          </div>
        ))}
      </dl>
    )}
    {shown.chart && <figure class="chart" data-points={String(shown.points)}>{raw(shown.chart)}</figure>}
    {!compact && shown.table && (
      <div class="table-wrap">
        <table class="stack-sm">
          <caption>
            {shown.table.title}
            {shown.table.total > shown.table.rows.length && " "}
            {shown.table.total > shown.table.rows.length && (
              <span class="muted">
                ({shown.table.newest ? "last" : "first"} {shown.table.rows.length} of{" "}
                {shown.table.total.toLocaleString("en-US")})
              </span>
            )}
          </caption>
          <thead>
            <tr>{shown.table.columns.map((c) => <th scope="col">{metricLabel(c)}</th>)}</tr>
          </thead>
          <tbody>
            {shown.table.rows.map((r) => (
              <tr>{shown.table!.columns.map((c) => <td data-label={metricLabel(c)}>{cell(c, r[c])}</td>)}</tr>
            ))}
          </tbody>
        </table>
      </div>
    )}
    {shown.notices.length > 0 && <ul class="notices muted">{shown.notices.map((n) => <li>{n}</li>)}</ul>}
  </div>
);
