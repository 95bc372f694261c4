/// <reference lib="dom" />
/**
 * What each tool's answer looks like as a picture: the tool's structuredContent in, DOM out. A tool without
 * a drawing of its own gets the generic one (compared figures as tiles, its first list as bars).
 */
import { type Band, bands, type Bar, bars, type Figure, fmt, grid, h, lines } from "./svg.ts";
import { shownPath } from "../lib/url_path.ts";
import { formatValue, signedChange } from "../lib/format/figures.ts";
import { metricLabel } from "../lib/format/labels.ts";
import { timesInText } from "../lib/format/times.ts";
import { callWords } from "../lib/format/call_words.ts";

type Obj = Record<string, unknown>;
type Ask = (args: Obj) => Promise<Obj | null>;

export interface ViewInput {
  tool: string;
  answer: Obj;
  args: Obj;
  width: number;
  /** the same tool asked again with other arguments, through the host; null when the host will not */
  ask: Ask;
}

const isObj = (v: unknown): v is Obj => !!v && typeof v === "object" && !Array.isArray(v);
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);
/** A number for scales and thresholds (percentile bands, a grid's shading); 0 when there is none. */
const num = (v: unknown): number => (typeof v === "number" ? v : 0);
/** A figure to draw as the answer gives it: "fewer than 5" and null stay what they are (svg.ts Figure). */
const fig = (v: unknown): Figure => (typeof v === "number" || typeof v === "string" ? v : null);
const isCompared = (v: unknown): v is Obj => isObj(v) && "value" in v && "previous" in v;
const words = (k: string) => k.replaceAll("_", " ");
/** A name as people read it: a page path decoded ("/café", not the stored "/caf%C3%A9"); others as they are. */
const shown = (v: unknown) => {
  const s = String(v);
  return s.startsWith("/") ? shownPath(s) : s;
};

function section(title: string, ...children: (Node | null)[]) {
  return h("section", {}, h("h2", {}, title), ...children);
}

function tiles(answer: Obj): HTMLElement | null {
  const entries = Object.entries(answer).filter(([, v]) => isCompared(v));
  if (!entries.length) return null;
  return h(
    "div",
    { class: "tiles" },
    ...entries.map(([k, v]) => {
      const c = v as Obj;
      // a rise is good news except for figures where less is better
      const worse = /bounce|exit|drop_off|rage|refus|poor/.test(k);
      const rising = typeof c.change === "number" ? c.change >= 0 : null;
      const dir = rising === null ? "" : rising !== worse ? "up" : "down";
      // names and figures as the web app reads them: "Session duration", "1 min 19 s", "−37%"
      const moved = typeof c.change === "number" ? `${signedChange(c.change)} ` : "";
      return h(
        "div",
        { class: "tile", "data-label": k, "data-value": String(c.value) },
        h("div", { class: "name" }, metricLabel(k)),
        h("div", { class: "figure" }, formatValue(k, c.value)),
        h("div", { class: `change ${dir}` }, `${moved}vs ${formatValue(k, c.previous)} before`),
      );
    }),
  );
}

const named = (rows: Obj[], value: string, label = "name"): Bar[] =>
  rows.map((r) => ({ label: shown(r[label] ?? r.name ?? r.page ?? ""), value: fig(r[value]) }));

function overview(v: ViewInput): Node[] {
  const a = v.answer;
  return [
    tiles(a),
    list(a.top_pages).length
      ? section(
        "Top pages (visitors)",
        bars("Top pages by visitors", named(list(a.top_pages), "visitors"), v.width),
      )
      : null,
    list(a.sources).length
      ? section(
        "Sources (visitors)",
        bars("Sources by visitors", named(list(a.sources), "visitors"), v.width),
      )
      : null,
    list(a.countries).length
      ? section(
        "Countries (visitors)",
        bars("Countries by visitors", named(list(a.countries), "visitors"), v.width),
      )
      : null,
  ].filter((x): x is HTMLElement => x !== null);
}

/** Dates of the period just before a scope's period, as the tools' `from..to` form. */
function previousPeriod(scope: Obj): string | null {
  const p = scope.period as Obj | null;
  if (!p || typeof p.from_date !== "string" || typeof p.to_date !== "string") return null;
  const day = 86_400_000;
  const from = Date.parse(`${p.from_date}T00:00:00Z`);
  const to = Date.parse(`${p.to_date}T00:00:00Z`);
  const days = Math.round((to - from) / day) + 1;
  const iso = (t: number) => new Date(t).toISOString().slice(0, 10);
  return `${iso(from - days * day)}..${iso(from - day)}`;
}

function trends(v: ViewInput): Node[] {
  const a = v.answer;
  const metric = String(a.metric ?? "value");
  const series = list(a.series).map((p) => ({ x: String(p.bucket), y: fig(p[metric]) }));
  const chart = h("div", { class: "chart" });
  const draw = (before: { x: string; y: Figure }[] | null) => {
    chart.replaceChildren(
      lines(`${words(metric)} per ${a.interval}`, [
        { name: "this period", points: series },
        ...(before ? [{ name: "period before", points: before, dashed: true }] : []),
      ], v.width),
    );
  };
  draw(null);
  const prev = previousPeriod(a.scope as Obj);
  if (prev) {
    // the period before, asked through the host; drawn under this one when the host answers
    v.ask({ ...v.args, period: prev }).then((b) => {
      if (b) draw(list(b.series).map((p) => ({ x: String(p.bucket), y: fig(p[metric]) })));
    }).catch(() => {});
  }
  const splits = list(a.splits);
  return [
    tiles(a),
    section(`${words(metric)} per ${a.interval}`, chart),
    splits.length
      ? section(
        `By ${a.split_by}`,
        bars(`${words(metric)} by ${a.split_by}`, named(splits, metric), v.width),
      )
      : null,
  ].filter((x): x is HTMLElement => x !== null);
}

function pages(v: ViewInput): Node[] {
  const a = v.answer;
  const by = String((a.sort as Obj | undefined)?.by ?? "pageviews");
  const rows = list(a.pages);
  const key = rows.length && typeof rows[0][by] === "number" ? by : "pageviews";
  return [
    section(`Pages by ${words(key)}`, bars(`Pages by ${words(key)}`, named(rows, key, "page"), v.width)),
  ];
}

function sources(v: ViewInput): Node[] {
  const a = v.answer;
  const out: Node[] = [];
  for (const k of ["channels", "ai_answer_engines", "sources", "campaigns", "referring_sites"]) {
    const rows = list(a[k]);
    if (!rows.length) continue;
    out.push(section(
      `${words(k)} (visitors)`,
      bars(
        `${words(k)} by visitors`,
        rows.map((r) => ({
          label: shown(r.name),
          value: fig(r.visitors),
          note: typeof r.previous_visitors === "number" ? `before ${r.previous_visitors}` : undefined,
        })),
        v.width,
      ),
    ));
  }
  return out;
}

function funnel(v: ViewInput): Node[] {
  const a = v.answer;
  const steps = list(a.steps);
  const rows: Bar[] = steps.map((st) => ({
    label: `${st.step}. ${shown(st.name)}`,
    value: fig(st.visitors),
    note: st.step === 1
      ? ""
      : `${fmt(st.conversion_from_previous, "%")} kept, ${fmt(st.dropped_off)} dropped`,
  }));
  const overall = h("p", {
    class: "lead",
    "data-label": "overall_conversion",
    "data-value": String(a.overall_conversion),
  }, `Overall conversion ${fmt(a.overall_conversion, "%")} (${a.unit}, within ${a.conversion_window})`);
  const out: Node[] = [overall, section("Steps and drop-off", bars("Funnel steps", rows, v.width))];
  for (const sp of list(a.splits)) {
    out.push(
      section(
        `${a.split_by}: ${sp.value ?? sp.name}`,
        bars(
          `Funnel for ${sp.value ?? sp.name}`,
          list(sp.steps).map((st) => ({
            label: `${st.step}. ${shown(st.name)}`,
            value: fig(st.visitors),
          })),
          v.width,
        ),
      ),
    );
  }
  return out;
}

function retention(v: ViewInput): Node[] {
  const a = v.answer;
  const cohorts = list(a.cohorts);
  const n = Math.max(0, ...cohorts.map((c) => (Array.isArray(c.rates) ? c.rates.length : 0)));
  const cols = Array.from({ length: n }, (_, i) => `${a.interval} ${i}`);
  return [section(
    "Share of each cohort that came back",
    grid("Retention by cohort", cohorts.map((c) => `${c.cohort} (${c.visitors})`), cols, (r, c) => {
      // a cohort of 1 to 4 visitors, or the (other) row under a saved cohort, has its rates withheld (null)
      const rates = (cohorts[r].rates ?? []) as (number | null)[];
      return c < rates.length ? rates[c] : null;
    }, v.width),
  )];
}

function paths(v: ViewInput): Node[] {
  const a = v.answer;
  return [
    h("p", { class: "lead" }, `${a.direction} ${a.anchor}: ${fmt(a.anchor_visitors)} visitors`),
    section(
      "Next steps (share of visitors)",
      bars(
        "Nearest steps",
        list(a.nearest_steps).map((r) => ({ label: shown(r.name), value: fig(r.share) })),
        v.width,
        "%",
      ),
    ),
    section(
      "Paths (share of visitors)",
      bars(
        "Paths",
        list(a.paths).map((r) => ({
          label: (r.steps as string[]).map(shown).join(" → "),
          value: fig(r.share),
        })),
        v.width,
        "%",
        true,
      ),
    ),
  ];
}

const THRESHOLDS: Record<string, [number, number]> = { LCP: [2500, 4000], INP: [200, 500], CLS: [0.1, 0.25] };

/** A group whose LCP was measured often enough to be given (null below the answer's threshold). */
const lcpMeasured = (g: Obj) => typeof ((g.vitals as Obj | undefined)?.LCP as Obj | null)?.p75 === "number";

function performance(v: ViewInput): Node[] {
  const a = v.answer;
  const units = (a.units ?? {}) as Record<string, string>;
  const vitals = ((a.overall as Obj | undefined)?.vitals ?? {}) as Record<string, Obj | null>;
  const rows: Band[] = Object.entries(vitals).filter(([, x]) => x && typeof x.p75 === "number").map((
    [k, x],
  ) => ({
    label: k,
    p50: num(x!.p50),
    p75: num(x!.p75),
    p95: num(x!.p95),
    good: THRESHOLDS[k]?.[0] ?? num(x!.p75),
    poor: THRESHOLDS[k]?.[1] ?? num(x!.p95),
    unit: units[k] === "ms" ? " ms" : "",
  }));
  const groups = list(a.groups).filter(lcpMeasured);
  return [
    section("Core Web Vitals: p50 to p95, the line at p75", bands("Vitals percentiles", rows, v.width)),
    groups.length
      ? section(
        `LCP p75 by ${a.by}`,
        bars(
          `LCP p75 by ${a.by}`,
          groups.map((g) => ({
            label: shown(g.name),
            value: fig(((g.vitals as Obj)?.LCP as Obj | null)?.p75),
          })),
          v.width,
          " ms",
        ),
      )
      : null,
  ].filter((x): x is HTMLElement => x !== null);
}

function crawlCoverage(v: ViewInput): Node[] {
  const a = v.answer;
  const summary = (a.summary ?? {}) as Obj;
  const out: Node[] = [
    h(
      "div",
      { class: "tiles" },
      ...Object.entries(summary).map(([k, x]) =>
        h(
          "div",
          { class: "tile", "data-label": k, "data-value": String(x) },
          h("div", { class: "name" }, words(k)),
          h("div", { class: "figure" }, fmt(x)),
        )
      ),
    ),
    section(
      "Pages read per crawler",
      bars(
        "Pages read per crawler",
        list(a.crawlers).map((c) => ({
          label: String(c.crawler),
          value: fig(c.pages_read),
          note: `${c.vendor}`,
        })),
        v.width,
      ),
    ),
  ];
  const ctr = (a.crawl_to_referral ?? {}) as Obj;
  const cells = list(ctr.pages);
  if (cells.length) {
    const vendors = [...new Set(cells.map((c) => String(c.vendor)))];
    const pagesOf = [...new Set(cells.map((c) => String(c.page)))].slice(0, 15);
    const at = new Map(cells.map((c) => [`${c.vendor}|${c.page}`, num(c.ai_reads)]));
    const max = Math.max(1, ...at.values());
    out.push(
      section(
        "AI reads by crawler vendor and page",
        grid(
          "AI reads: vendor by page",
          pagesOf.map(shown),
          vendors,
          (r, c) => at.get(`${vendors[c]}|${pagesOf[r]}`) ?? null,
          v.width,
          "",
          max,
        ),
      ),
    );
  }
  const vendors = list(ctr.vendors);
  if (vendors.length) {
    out.push(
      section(
        "Reads against visitors sent back",
        bars(
          "Referred visitors per vendor",
          vendors.map((x) => ({
            label: String(x.vendor),
            value: fig(x.referred_visitors),
            note: `from ${fmt(x.ai_reads)} AI reads`,
          })),
          v.width,
        ),
      ),
    );
  }
  return out;
}

function crawlerAccess(v: ViewInput): Node[] {
  const a = v.answer;
  const crawlers = list(a.crawlers);
  const robots = (a.robots_txt ?? {}) as Obj;
  // before robots.txt is first fetched no path is known allowed or disallowed (null): the requests are drawn
  const rulesKnown = crawlers.some((c) => typeof c.paths_disallowed === "number");
  return [
    h("p", { class: "lead" }, `robots.txt: ${words(String(robots.outcome ?? "unknown"))}`),
    rulesKnown
      ? section(
        "Paths robots.txt keeps each crawler from (of those checked)",
        bars(
          "Paths disallowed per crawler",
          crawlers.map((c) => ({
            label: String(c.crawler),
            value: fig(c.paths_disallowed),
            note: `${words(String(c.access))}, ${fmt(c.paths_checked)} checked, ${fmt(c.requests)} requests`,
          })),
          v.width,
        ),
      )
      : section(
        "Requests per crawler (robots.txt not fetched yet: what it allows is unknown)",
        bars(
          "Requests per crawler",
          crawlers.map((c) => ({
            label: String(c.crawler),
            value: fig(c.requests),
            note: words(String(c.access)),
          })),
          v.width,
        ),
      ),
    list(a.refusals).length
      ? section(
        "Requests refused or failed",
        bars(
          "Refused or failed share per crawler",
          list(a.refusals).map((r) => ({ label: String(r.crawler), value: fig(r.refused_or_failed_rate) })),
          v.width,
          "%",
        ),
      )
      : null,
  ].filter((x): x is HTMLElement => x !== null);
}

function explainChange(v: ViewInput): Node[] {
  const a = v.answer;
  return [
    h("p", { class: "lead" }, String(a.summary ?? "")),
    tiles({ total: a.total }) ?? h("div"),
    section(
      "What moved the total (contribution)",
      bars(
        "Drivers",
        list(a.drivers).map((d) => ({
          label: `${d.dimension} ${d.name}`,
          value: fig(d.contribution),
          note: `${fmt(d.previous)} → ${fmt(d.value)}`,
        })),
        v.width,
      ),
    ),
  ];
}

function feedbackSummary(v: ViewInput): Node[] {
  return list(v.answer.apps).flatMap((app) => {
    const dist = (app.rating_distribution ?? {}) as Record<string, number>;
    return [section(
      `${(app.app as Obj)?.name}: ratings`,
      tiles({ reviews: app.reviews, average_rating: app.average_rating }),
      bars(
        "Reviews per star rating",
        ["5", "4", "3", "2", "1"].map((k) => ({ label: `${k} ★`, value: fig(dist[k]) })),
        v.width,
      ),
    )];
  });
}

function feedbackThemes(v: ViewInput): Node[] {
  return list(v.answer.apps).map((app) =>
    section(
      `${(app.app as Obj)?.name}: themes (share of reviews)`,
      bars(
        "Themes",
        list(app.themes).map((t) => ({
          label: String(t.label),
          value: fig(t.share),
          note: t.rising ? "rising" : undefined,
        })),
        v.width,
        "%",
      ),
    )
  );
}

/**
 * A finding's "see it" call in words, as the app's report page says it (lib/format/call_words.ts): "Top pages ·
 * Acme site · 16–22 Nov 2026 · page /pricing".
 */
function seeItWords(call: Obj, f: Obj, scope: Obj): string {
  const numbers = isObj(f.numbers) ? f.numbers : {};
  const tp = isObj(scope.touchpoint) ? scope.touchpoint : {};
  return callWords({ tool: String(call.tool ?? ""), input: isObj(call.input) ? call.input : {} }, {
    // the report's own website or app, which its scope names
    touchpoint: (id) => (id === tp.id && typeof tp.name === "string" ? tp.name : undefined),
    app: () => (typeof numbers.app === "string" ? numbers.app : undefined),
    theme: typeof numbers.theme === "string" ? numbers.theme : undefined,
  });
}

/** A claim that states its change already, as "(−37%)" or "(+4.2%)". */
const statesChange = (claim: string) => /\([+−-]?[\d.,]+%\)/.test(claim);

/** A report: headline, summary, and each finding with its figures (numbers as tiles) and how to see it. */
function report(v: ViewInput): Node[] {
  const r = v.answer.report as Obj | null;
  if (!r) return [h("p", { class: "lead" }, "No report is complete yet.")];
  const findings = list(r.findings);
  const scope = isObj(v.answer.scope) ? v.answer.scope : {};
  return [
    h("p", { class: "lead", "data-label": "headline" }, String(r.headline)),
    h("p", {}, String(r.summary)),
    ...findings.map((f) => {
      const claim = String(f.claim);
      // the change is read once: in the claim when it states it, else as a tile, signed with a real minus
      const numbers = Object.entries((f.numbers ?? {}) as Obj).filter(([k]) =>
        !(k === "change" && statesChange(claim))
      );
      const asked = [...new Set(list(f.reproduce).map((c) => seeItWords(c, f, scope)))];
      return section(
        claim,
        h(
          "div",
          { class: "tiles" },
          ...numbers.map(([k, x]) =>
            h(
              "div",
              { class: "tile", "data-label": k, "data-value": String(x) },
              h("div", { class: "name" }, metricLabel(k)),
              h("div", { class: "figure" }, formatValue(k, x)),
            )
          ),
        ),
        asked.length ? h("p", { class: "scope" }, `See it: ${asked.join("; ")}`) : null,
      );
    }),
    ...(Array.isArray(r.notes) && r.notes.length ? [h("p", { class: "scope" }, r.notes.join(" "))] : []),
  ];
}

/** A notice as the web app reads it: its times local and compact in the answer's time zone, named once. */
export function noticeText(notice: string, answer: Obj): string {
  return timesInText(notice, String((answer.scope as Obj | undefined)?.timezone ?? "UTC"));
}

/** Any answer: its compared figures as tiles, then each list with a number as bars. */
function generic(v: ViewInput): Node[] {
  const out: Node[] = [];
  const t = tiles(v.answer);
  if (t) out.push(t);
  const walk = (o: Obj, depth: number) => {
    for (const [k, x] of Object.entries(o)) {
      const rows = list(x);
      const key = rows.length ? Object.keys(rows[0]).find((f) => typeof rows[0][f] === "number") : undefined;
      if (rows.length && key) {
        const label = Object.keys(rows[0]).find((f) => typeof rows[0][f] === "string") ?? key;
        out.push(section(`${words(k)} (${words(key)})`, bars(words(k), named(rows, key, label), v.width)));
      } else if (isObj(x) && depth < 2 && !isCompared(x) && k !== "scope") walk(x, depth + 1);
    }
  };
  walk(v.answer, 0);
  return out;
}

const VIEWS: Record<string, (v: ViewInput) => Node[]> = {
  behavior_overview: overview,
  behavior_trends: trends,
  behavior_pages: pages,
  behavior_sources: sources,
  behavior_funnel: funnel,
  behavior_retention: retention,
  behavior_paths: paths,
  behavior_performance: performance,
  behavior_crawl_coverage: crawlCoverage,
  behavior_crawler_access: crawlerAccess,
  behavior_explain_change: explainChange,
  feedback_summary: feedbackSummary,
  feedback_themes: feedbackThemes,
  report_get: report,
};

export function render(v: ViewInput): Node[] {
  return (VIEWS[v.tool] ?? generic)(v);
}

/** The scope line every answer starts with: what the figures are of. */
export function scopeLine(answer: Obj): string {
  const sc = (answer.scope ?? {}) as Obj;
  const p = sc.period as Obj | null;
  const tp = sc.touchpoint as Obj | null;
  return [
    tp ? String(tp.name) : null,
    p ? `${p.from_date} to ${p.to_date}` : null,
    sc.environment ? String(sc.environment) : null,
    sc.traffic ? String(sc.traffic) : null,
  ].filter(Boolean).join(" · ");
}
