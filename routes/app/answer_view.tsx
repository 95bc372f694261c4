/**
 * Any read tool's answer as people read it: its headline figures (labelled, formatted, against the period
 * before), one chart drawn on the server (a line with a dot per bucket for a series over days, else bars of
 * its first list) and every list it has as its own titled table (the charted one first, then the others in
 * the answer's order, those inside a section such as robots_violations too), whose cells keep their column
 * names on phones. Dashboards, an insight's own page and the builder's preview all show answers this way.
 */
import type { FC } from "hono/jsx";
import { raw } from "hono/html";
import { type ChartSpec, renderSized } from "../../lib/charts/charts.ts";
import { FEWER_THAN_5 } from "../../lib/answers/privacy.ts";
import { shownPath } from "../../lib/url_path.ts";
import { headlineEntries, isCompared } from "../../toolkit/headline.ts";
import { formatValue, signedDifference, unitOf, versus } from "../../lib/format/figures.ts";
import { metricLabel, valueWords } from "../../lib/format/labels.ts";
import { ISO_TIME, shortTime, timesInText } from "../../lib/format/times.ts";

type Row = Record<string, unknown>;
type Answer = Record<string, unknown>;

export interface ShownFigure {
  name: string;
  label: string;
  text: string;
  compared: string | null;
}

export interface ShownTable {
  title: string;
  /** The fields shown, their headers, and per row its fields as given and its cells as people read them */
  columns: string[];
  labels: string[];
  rows: Row[];
  cells: string[][];
  total: number;
  /** a series, whose last rows (the newest buckets) are kept when it is cut */
  newest: boolean;
}

/** Rows a table shows: the charted list's first 25 (a series its last), any other list's first 10. */
export const FIRST_ROWS = 25;
export const OTHER_ROWS = 10;

export interface ShownAnswer {
  figures: ShownFigure[];
  /** Server-drawn SVG markup (escaped by the serializer), or null when the answer has nothing to draw. */
  chart: string | null;
  /** Points the chart draws: for a series over time, one per bucket of the answer. */
  points: number;
  /** The charted list's table (the first of `tables`), or null when the answer has no list. */
  table: ShownTable | null;
  /** Every list of the answer as a table: the charted one first, then the others in the answer's order. */
  tables: ShownTable[];
  period: string | null;
  notices: string[];
}

const SKIP = new Set(["scope", "notices", "offset", "sort"]);
/** Titles of lists whose name reads badly, by `section.list` for a list inside a section. */
const LIST_TITLES: Record<string, string> = {
  "robots_violations.crawlers": "robots.txt violations by crawler",
  "robots_violations.pages": "robots.txt violations by page",
  "robots_violations.robots_versions": "robots.txt versions",
  spoofed_agents: "Spoofed agents (a crawler's name from an address that failed its check)",
  refusals: "Refused or failed requests by crawler",
};
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
/** Lists whose first fields are not the ones to read (or too many for a card), by the list's name. */
const COLUMNS: Record<string, string[]> = {
  // a visit, narrow enough for the builder's card at 1280 px (590 px): exit page, events, channel, country
  // and device left out
  sessions: ["started_at", "duration_s", "entry_page", "pages_seen", "source"],
  // crawl coverage and robots.txt access: `ai` and `token_used_by` repeat what the kind says, the vendor what the
  // crawler's name does (and the card has no room for it)
  // a review theme: its name, how many and what share of the reviews, the change, the intent, whether rising
  themes: ["label", "reviews", "share", "share_change", "dominant_intent", "rising"],
  // a name claimed from addresses that failed its check: how many claimed it, how many of those were spoofed
  spoofed_agents: [
    "crawler",
    "requests_claiming_name",
    "spoofed_requests",
    "share",
    "pages",
    "last_seen_at",
  ],
  crawlers: [
    "crawler",
    "category",
    "access",
    "robots_txt_group",
    "requests",
    "pages_read",
    "verified_pages",
    "last_read_at",
  ],
};
/** Lists of single items, not groups: one visit's events by its source are no figure to chart. */
const SINGLE_ITEMS = new Set(["sessions"]);
/** Column names where a list's field name reads badly as a header. */
const COLUMN_LABELS: Record<string, string> = {
  started_at: "Started",
  pages_seen: "Pages",
  category: "Kind",
  robots_txt_group: "robots.txt rules",
  pages_read: "Pages read",
  verified_pages: "Verified",
  last_read_at: "Last read",
  token_used_by: "Token used by",
  requests_claiming_name: "Requests claiming the name",
  spoofed_requests: "Spoofed",
  share: "Share",
  days_since: "Days since",
  first_seen_at: "First seen",
  last_seen_at: "Last seen",
  refused_or_failed_rate: "Refused or failed",
  failed_5xx: "Failed (5xx)",
  refused_401: "Refused (401)",
  refused_403: "Refused (403)",
  refused_429: "Refused (429)",
};
/** An agent's traffic kind (behavior_overview's top_agents `kind`) in words. */
const KIND_WORDS: Record<string, string> = { ai_agent: "AI agent" };
/** Columns whose values are identifiers with words (the rest, e.g. event names, stay as sent). */
const WORD_COLUMNS = new Set(["category", "rating", "dominant_intent"]);

const isObject = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === "object" && !Array.isArray(v);
const isScalar = (v: unknown) => v === null || ["string", "number", "boolean"].includes(typeof v);
const DAY = /^\d{4}-\d{2}-\d{2}$/;

const figure = (name: string, v: unknown, label = metricLabel(name)): ShownFigure => ({
  name,
  label,
  text: formatValue(name, v),
  compared: null,
});

/**
 * The answer's headline figures as toolkit/headline.ts chooses them (the dashboards behavior_saved answers
 * choose the same), compared ones against the period before.
 */
export function figuresOf(answer: Answer): ShownFigure[] {
  return headlineEntries(answer).map(([k, v]) => {
    if (!isCompared(v)) return figure(k, v);
    const name = k === "total" && typeof answer.metric === "string" ? answer.metric : k;
    return {
      name: k,
      label: metricLabel(name),
      text: formatValue(name, v.value),
      compared: v.previous === null || v.previous === undefined
        ? null
        : versus(name, v.value, v.previous, v.change).replace(/^.*? vs /, "vs "),
    };
  });
}

/** A list to show: its rows, the field that names a row and the number to chart. */
interface List {
  key: string;
  /** the table's title: the list's name in words, with its section's for a list inside one */
  title: string;
  rows: Row[];
  total: number;
  label: string | undefined;
  measure: string | undefined;
}

/** A column: a field of the rows, its header and, where its name does not tell its unit, how a cell reads. */
interface Column {
  key: string;
  label: string;
  text?: (v: unknown) => string;
}

/**
 * What the page shows of an answer: its figures, the list it charts and tables, and the table's columns; the
 * lists it read from (`read`, not tabled again) and the objects whose other lists are tabled too (`roots`).
 */
interface Reading {
  figures: ShownFigure[];
  list: List | null;
  columns: Column[];
  read: unknown[];
  roots: Answer[];
}

/** A figure as a number to order by; a withheld one ("fewer than 5") orders as nothing. */
const num = (v: unknown) => (typeof v === "number" ? v : -Infinity);

function listOf(answer: Answer, key: string, rows: Row[], total?: unknown): List {
  const label = LABEL_KEYS.find((l) => isScalar(rows[0][l]) && rows[0][l] !== null);
  const sortedBy = (answer.sort as { by?: unknown } | undefined)?.by;
  const preferred = [
    ...(typeof answer.metric === "string" ? [answer.metric] : []),
    ...(typeof sortedBy === "string" ? [sortedBy] : []),
    ...MEASURES,
  ];
  const candidates = preferred.filter((n) => n !== label && rows.some((x) => typeof x[n] === "number"));
  // a list of groups is drawn by the figure it is ordered by, so its bars fall in order (a list by pageviews
  // drawn by visitors put 39 above 40); a time series or a funnel's steps keep theirs whatever they show
  const ordered = label === "bucket" || label === "step"
    ? undefined
    : candidates.find((n) => rows.every((r, i) => i === 0 || !(num(r[n]) > num(rows[i - 1][n]))));
  const measure = ordered ?? candidates[0];
  total ??= answer[`${key}_total`];
  return {
    key,
    title: Object.hasOwn(LIST_TITLES, key) ? LIST_TITLES[key] : metricLabel(key),
    rows,
    total: typeof total === "number" ? total : rows.length,
    label,
    measure,
  };
}

const isList = (v: unknown): v is Row[] => Array.isArray(v) && v.length > 0 && isObject(v[0]);

/** The answer's first list of objects. */
function firstList(answer: Answer): List | null {
  for (const [k, v] of Object.entries(answer)) {
    if (SKIP.has(k) || !isList(v)) continue;
    return listOf(answer, k, v);
  }
  return null;
}

/**
 * Every list of objects of an answer in its order, and those one level inside a section of it (an object
 * such as robots_violations, its lists titled with the section's name), with their totals; empty ones are
 * left out (the figures say "0").
 */
function allLists(answer: Answer): List[] {
  const out: List[] = [];
  for (const [k, v] of Object.entries(answer)) {
    if (SKIP.has(k)) continue;
    if (isList(v)) out.push(listOf(answer, k, v));
    else if (isObject(v)) {
      for (const [k2, v2] of Object.entries(v)) {
        if (!isList(v2)) continue;
        const list = listOf(v, k2, v2);
        const name = `${k}.${k2}`;
        out.push({
          ...list,
          title: Object.hasOwn(LIST_TITLES, name)
            ? LIST_TITLES[name]
            : `${metricLabel(k)}: ${list.title.toLowerCase()}`,
        });
      }
    }
  }
  return out;
}

/** A list's columns: the chosen ones of a known list, else its fields holding plain values, at most 7. */
function columnsOf(list: List): Column[] {
  const plain = (c: string) =>
    list.rows.some((r) => r[c] !== null && r[c] !== undefined) &&
    list.rows.every((r) => isScalar(r[c] ?? null));
  const keys = Object.hasOwn(COLUMNS, list.key) ? COLUMNS[list.key] : Object.keys(list.rows[0]);
  return keys.filter(plain).slice(0, 7).map((key) => ({ key, label: columnLabel(key) }));
}

const columnLabel = (
  key: string,
) => (Object.hasOwn(COLUMN_LABELS, key) ? COLUMN_LABELS[key] : metricLabel(key));

/** Any answer read by its shape: top-level figures, its first list. */
function genericReading(answer: Answer): Reading {
  const list = firstList(answer);
  return {
    figures: figuresOf(answer),
    list,
    columns: list ? columnsOf(list) : [],
    read: list ? [list.rows] : [],
    roots: [answer],
  };
}

const VITALS = ["LCP", "INP", "CLS"] as const;
type Vital = { p75?: number | null; rating?: string | null; previous_p75?: number | null };
type Vitals = Partial<Record<(typeof VITALS)[number], Vital>> | null | undefined;
/** A vital's p75 named with its unit, so it reads as one: LCP and INP in ms (or s), CLS a plain decimal. */
const p75Key = (m: (typeof VITALS)[number]) => (m === "CLS" ? "cls_p75" : `${m.toLowerCase()}_p75_ms`);

/** The worst rating of a page's vitals in words, with the vitals that have it: "poor: INP". */
function worstRating(vitals: Vitals): string | null {
  const rated = VITALS.filter((m) => vitals?.[m]?.rating);
  for (const r of ["poor", "needs_improvement"]) {
    const these = rated.filter((m) => vitals![m]!.rating === r);
    if (these.length) return `${valueWords(r)}: ${these.join(", ")}`;
  }
  return rated.length ? "good" : null;
}

function vitalFigure(m: (typeof VITALS)[number], v: Vital | undefined): ShownFigure {
  const key = p75Key(m);
  const notes = [
    v?.rating ? valueWords(v.rating) : null,
    typeof v?.previous_p75 === "number" ? `vs ${formatValue(key, v.previous_p75)}` : null,
  ].filter(Boolean);
  return { ...figure(key, v?.p75 ?? null, `${m} (p75)`), compared: notes.length ? notes.join(" · ") : null };
}

/** behavior_performance: its Core Web Vitals are nested per vital, overall and per page or device. */
function vitalsReading(answer: Answer): Reading | null {
  const overall = answer.overall;
  if (!isObject(overall) || !isObject(overall.vitals) || !Array.isArray(answer.groups)) return null;
  const vitals = overall.vitals as Vitals;
  const figures = [
    figure("page_loads", overall.page_loads),
    figure("visitors", overall.visitors),
    ...VITALS.map((m) => vitalFigure(m, vitals?.[m])),
  ];
  const rows = (answer.groups as Row[]).map((g) => {
    const v = g.vitals as Vitals;
    const p75s = Object.fromEntries(VITALS.map((m) => [p75Key(m), v?.[m]?.p75 ?? null]));
    return { name: g.name, page_loads: g.page_loads, visitors: g.visitors, ...p75s, rating: worstRating(v) };
  });
  const by = answer.by === "device" ? "device" : "page";
  const columns: Column[] = [
    { key: "name", label: metricLabel(by) },
    { key: "page_loads", label: "Page loads" },
    ...VITALS.map((m) => ({ key: p75Key(m), label: `${m} (p75)` })),
    { key: "rating", label: "Rating" },
  ];
  const list = rows.length ? listOf(answer, `${by}s`, rows, answer.groups_total) : null;
  return { figures, list, columns, read: [answer.groups], roots: [answer] };
}

/** behavior_retention: each cohort's return rates are a list, one per interval after it entered. */
function retentionReading(answer: Answer): Reading | null {
  const { cohorts, average_curve: curve, interval } = answer;
  if (!Array.isArray(cohorts) || !Array.isArray(curve) || typeof interval !== "string") return null;
  // when any visit counts, every visitor is back in the interval they entered: nothing to read there
  const from = answer.returning === "any visit" ? 1 : 0;
  const steps = Array.from({ length: Math.max(0, Math.min(5, curve.length - from)) }, (_, i) => i + from);
  const name = (i: number) => (i === 0 ? `Same ${interval}` : `${metricLabel(interval)} ${i}`);
  // a cohort not followed that far yet has no rate there: an empty cell, not a withheld one
  const rate = (v: unknown) => (v === undefined ? "" : formatValue("return_rate", v));
  const rows = (cohorts as Row[]).map((c) => {
    const rates = Array.isArray(c.rates) ? c.rates : null;
    return {
      cohort: c.cohort,
      visitors: c.visitors,
      ...Object.fromEntries(steps.map((i) => [`after_${i}`, rates ? rates[i] : null])),
    };
  });
  const figures = [
    ...figuresOf(answer),
    ...steps.slice(0, 3).map((i) => figure("return_rate", curve[i], `${name(i)} (average)`)),
  ];
  const columns: Column[] = [
    { key: "cohort", label: "Cohort" },
    { key: "visitors", label: "Visitors" },
    ...steps.map((i) => ({ key: `after_${i}`, label: name(i), text: rate })),
  ];
  return {
    figures,
    list: rows.length ? listOf(answer, "cohorts", rows) : null,
    columns,
    read: [cohorts],
    roots: [answer],
  };
}

/** behavior_explain_change: a driver's figures are in the answer's metric, named in `metric`. */
function driversReading(answer: Answer): Reading | null {
  const { metric, drivers } = answer;
  if (typeof metric !== "string" || !Array.isArray(drivers) || !isCompared(answer.total)) return null;
  const before = `previous_${metric}`, rate = unitOf(metric) === "fraction";
  const rows = (drivers as Row[]).map((d) => ({
    name: `${readable(String(d.name))} (${d.dimension})`,
    [before]: d.previous,
    [metric]: d.value,
    // `change` is relative, so none from 0: a count from 0 is a new segment (a rate from 0% is not)
    change: d.change ??
      (!rate && d.previous === 0 && typeof d.value === "number" && d.value > 0 ? "new" : null),
    contribution: d.contribution,
  }));
  const columns: Column[] = [
    { key: "name", label: "Segment" },
    { key: before, label: "Before" },
    { key: metric, label: metricLabel(metric) },
    { key: "change", label: "Change" },
    {
      key: "contribution",
      label: "Part of the change",
      text: (v) => (typeof v === "number" ? signedDifference(metric, v) : cell("contribution", v)),
    },
  ];
  return {
    figures: figuresOf(answer),
    list: rows.length ? listOf(answer, "drivers", rows) : null,
    columns,
    read: [drivers],
    roots: [answer],
  };
}

/**
 * An answer about one item holding the real list (feedback_themes of one app: `apps[0].themes`): the item's
 * figures are the headline and its list is what the page charts and tables (the apps table showed only
 * "Reviews, Analysed, Themes total").
 */
function oneItemReading(answer: Answer): Reading | null {
  const outer = firstList(answer);
  // the feedback tools' answers, one list item per app (other lists of one keep their own row)
  if (!outer || outer.key !== "apps" || outer.rows.length !== 1) return null;
  const item = outer.rows[0];
  const inner = Object.entries(item).find(([, v]) => Array.isArray(v) && v.length > 0 && isObject(v[0]));
  if (!inner) return null;
  const list = listOf(item, inner[0], inner[1] as Row[]);
  return {
    figures: figuresOf(item),
    list,
    columns: columnsOf(list),
    read: [outer.rows, inner[1]],
    roots: [answer, item],
  };
}

/** Answers with a known nested shape are read by their own reader; any other generically. */
const READERS = [vitalsReading, retentionReading, driversReading, oneItemReading];
const readingOf = (answer: Answer) =>
  READERS.reduce<Reading | null>((found, read) => found ?? read(answer), null) ?? genericReading(answer);

/** Rows whose figure reads "fewer than 5" (a small group under a saved cohort) are left out, never drawn as 0. */
function chartSpec(title: string, list: List): ChartSpec | null {
  const { label, measure } = list;
  if (!label || !measure || SINGLE_ITEMS.has(list.key)) return null;
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
  // bars are groups, one per name: names that repeat would be drawn over each other
  const named = rows.filter((r) => r[label] !== null && r[label] !== undefined).map((r) => String(r[label]));
  if (new Set(named).size < named.length) return null;
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

function tableOf(list: List, columns: Column[], timeZone: string, cap = FIRST_ROWS): ShownTable {
  // a time series keeps its newest buckets, the ones a reader looks for
  const newest = list.key === "series";
  const rows = newest ? list.rows.slice(-cap) : list.rows.slice(0, cap);
  // times are read in the answer's time zone, named once in their column's header instead of in every cell
  const times = (c: Column) => !c.text && rows.some((r) => ISO_TIME.test(String(r[c.key])));
  return {
    title: list.title,
    columns: columns.map((c) => c.key),
    labels: columns.map((c) => (times(c) ? `${c.label} (${timeZone})` : c.label)),
    rows,
    cells: rows.map((r) => columns.map((c) => c.text ? c.text(r[c.key]) : cell(c.key, r[c.key], timeZone))),
    total: list.total,
    newest,
  };
}

/** Reads an answer into what the page shows; the chart is titled `title`. */
export async function showAnswer(title: string, answer: Answer): Promise<ShownAnswer> {
  const reading = readingOf(answer);
  const { figures, list, columns } = reading;
  const spec = list ? chartSpec(title, list) : null;
  const zone = (answer.scope as { timezone?: string } | undefined)?.timezone ?? "UTC";
  // a notice's times ("data fresh to 2026-11-29T19:34:32.181Z") read as the table's do
  const notices = Array.isArray(answer.notices)
    ? answer.notices.map((n) => timesInText(String(n), zone))
    : [];
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
  const scope = answer.scope as
    | { period?: { from_date?: string; to_date?: string } | null; timezone?: string }
    | undefined;
  const p = scope?.period;
  const first = list ? tableOf(list, columns, zone) : null;
  // the answer's other lists, each its own table (crawl coverage's pages never read and stale pages, crawler
  // access's refusals and spoofed agents were counts only), those with a column of plain values
  const others = reading.roots.flatMap(allLists)
    .filter((l) => !reading.read.includes(l.rows) && l !== list)
    .map((l) => ({ l, columns: columnsOf(l) }))
    .filter((o) => o.columns.length > 0)
    .map((o) => tableOf(o.l, o.columns, zone, OTHER_ROWS));
  const tables = first ? [first, ...others] : others;
  return {
    figures,
    chart,
    points,
    table: tables[0] ?? null,
    tables,
    period: p?.from_date
      ? (p.from_date === p.to_date ? p.from_date : `${p.from_date} to ${p.to_date}`)
      : null,
    notices,
  };
}

/** A page path as people read it ("/café", not the stored "/caf%C3%A9"); other names as they are. */
const readable = (s: string) => (s.startsWith("/") ? shownPath(s) : s);

/** One cell as people read it: a time in the answer's time zone, an identifier in words, a number formatted. */
function cell(col: string, v: unknown, timeZone = "UTC"): string {
  if (v === null || v === undefined) return "—";
  if (typeof v === "boolean") return v ? "yes" : "no";
  if (typeof v !== "string") return formatValue(col, v);
  if (ISO_TIME.test(v)) return shortTime(v, timeZone);
  if (col === "kind" && Object.hasOwn(KIND_WORDS, v)) return KIND_WORDS[v];
  return WORD_COLUMNS.has(col) ? valueWords(v) : readable(v);
}

/**
 * A long word (a path, a host name) may break before a slash and after a dot, so a narrow card's table fits:
 * "/features/analytics", "news.ycombinator.com". Short ones and text with spaces are left as they are.
 */
const breakable = (text: string) =>
  text.length <= 16 || text.includes(" ")
    ? text
    : text.split(/(?=\/)|(?<=\.)/).flatMap((part, i) => (i ? [<wbr />, part] : [part]));

/**
 * One list as a table under its title; a list cut short says how many rows it leaves out ("and 16 more", a
 * series "and 5 earlier").
 */
const AnswerTable: FC<{ table: ShownTable }> = ({ table }) => {
  const more = table.total - table.rows.length;
  return (
    <div class="table-wrap">
      <table class="stack-sm">
        <caption>{table.title}</caption>
        <thead>
          <tr>{table.labels.map((l) => <th scope="col">{l}</th>)}</tr>
        </thead>
        <tbody>
          {table.cells.map((r) => (
            <tr>{r.map((text, i) => <td data-label={table.labels[i]}>{breakable(text)}</td>)}</tr>
          ))}
        </tbody>
      </table>
      {more > 0 && (
        <p class="muted table-more">
          and {more.toLocaleString("en-US")} {table.newest ? "earlier" : "more"}
        </p>
      )}
    </div>
  );
};

/** The figures, chart and tables of a shown answer; `compact` (a dashboard tile) leaves the tables out. */
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
    {!compact && shown.tables.map((t) => <AnswerTable table={t} />)}
    {shown.notices.length > 0 && <ul class="notices muted">{shown.notices.map((n) => <li>{n}</li>)}</ul>}
  </div>
);
