/** One report as a page: headline, scope, summary, charts, findings with the calls that reproduce them. */
import type { FC } from "hono/jsx";
import type { Finding, Report, Reproduce } from "../../lib/reports/types.ts";
import { momentText, periodText, periodTitle } from "../../lib/reports/periods.ts";
import { shownPath } from "../../lib/url_path.ts";
import type { RenderedChart } from "./report_charts.ts";
import { raw } from "hono/html";
import { questionLabel } from "./questions.ts";
import { metricLabel } from "../../lib/format/labels.ts";
import { orgPath } from "./layout.tsx";

/** Names of the organization's websites, apps (review apps) by id: a finding's calls name them by id. */
export interface ReportNames {
  touchpoints: Map<string, string>;
  apps: Map<string, string>;
}

const KIND_LABEL: Record<string, string> = {
  headline_change: "Headline",
  change_driver: "What drove it",
  page_rose: "Page rose",
  page_fell: "Page fell",
  source_change: "Source",
  ai_engine_change: "AI answer engine",
  crawler_started: "Crawler started",
  crawler_stopped: "Crawler stopped",
  pages_not_crawled: "Not crawled",
  robots_violation: "robots.txt",
  spoofed_agent: "Spoofed agent",
  vitals_regression: "Page speed",
  review_theme_rising: "Reviews",
  rating_by_version: "Ratings",
  funnel_change: "Funnel",
};

export const ReportView: FC<{ report: Report; charts: RenderedChart[]; names?: ReportNames }> = (
  { report: r, charts, names },
) => (
  <article class="report">
    <h1>
      {r.touchpoint_name}: {periodTitle(r.kind, r.period)}
    </h1>
    <p class="report-scope">
      {periodText(r.period)} ({r.scope.timezone}), {r.scope.environment}, {r.scope.traffic}. Compared with
      {" "}
      {periodText(r.previous_period)}. Generated {momentText(r.generated_at)}
      {r.trigger === "request" ? " on request" : ""}.
    </p>
    <p class="report-summary">{r.summary}</p>
    <section class="charts" aria-label="Charts">
      {charts.map((ch) => <ChartFigure caption={ch.caption} svg={ch.svg} />)}
    </section>
    <h2>Findings</h2>
    {r.findings.length === 0
      ? <p>No change cleared the report's thresholds this time.</p>
      : (
        <ol class="findings">
          {r.findings.map((f) => (
            <li>
              <div class="kind">{KIND_LABEL[f.kind] ?? f.kind}</div>
              <div>{f.claim}</div>
              <details>
                <summary>How to see it</summary>
                {f.reproduce.map((c) => (
                  <div class="reproduce">
                    {callWords(c, f, r, names)}
                    {ASKABLE.test(c.tool) && (
                      <>
                        {" "}(<a
                          href={`${orgPath(r.org, "insights")}/new?tool=${
                            encodeURIComponent(c.tool)
                          }&touchpoint=${encodeURIComponent(r.touchpoint)}`}
                        >
                          ask it in the app
                        </a>)
                      </>
                    )}
                  </div>
                ))}
              </details>
            </li>
          ))}
        </ol>
      )}
    {r.notes.length > 0 && (
      <>
        <h2>Left out</h2>
        <ul>{r.notes.map((n) => <li>{n}</li>)}</ul>
      </>
    )}
  </article>
);

/** A server-drawn chart (already escaped SVG markup from lib/charts) with its caption. */
const ChartFigure: FC<{ caption: string; svg: string }> = ({ caption, svg }) => (
  <figure>
    <figcaption>{caption}</figcaption>
    {raw(svg)}
  </figure>
);

/** The questions an insight can ask (the builder offers them): behavior and app-review questions. */
const ASKABLE = /^(behavior|feedback)_(?!saved$)[a-z_]+$/;

/** "1d" → "1 day", "30m" → "30 minutes". */
function windowWords(w: string): string {
  const m = /^(\d+)([mhd])$/.exec(w);
  if (!m) return w;
  const unit = { m: "minute", h: "hour", d: "day" }[m[2] as "m" | "h" | "d"];
  return `${m[1]} ${unit}${m[1] === "1" ? "" : "s"}`;
}

type Step = { page?: unknown; event?: unknown; property?: unknown; value?: unknown };
const stepWords = (s: Step) =>
  `${typeof s.page === "string" ? shownPath(s.page) : String(s.event ?? "?")}${
    s.property === undefined ? "" : ` with ${String(s.property)} = ${String(s.value)}`
  }`;

/** A theme id ("emergent:saved addresses", "sync_data_loss") in words, when the finding does not name it. */
const themeWords = (id: string) => id.replace(/^emergent:/, "").replaceAll("_", " ");

/**
 * A call that shows a finding, in the words of the app: the question's name, the website or app by its name,
 * the period as dates, and what it is narrowed to ("Top pages · Acme site · 16–22 Nov 2026 · pages matching
 * “/pricing”"). Ids and the tools' parameter names stay in the API's copy of the report (report_get).
 */
export function callWords(c: Reproduce, f: Finding, r: Report, names?: ReportNames): string {
  const parts = [questionLabel(c.tool)];
  const i = c.input;
  const said = new Set(["touchpoint", "app", "period"]);
  if (typeof i.touchpoint === "string") {
    const name = i.touchpoint === r.touchpoint ? r.touchpoint_name : names?.touchpoints.get(i.touchpoint);
    if (name) parts.push(name);
  }
  if (typeof i.app === "string") {
    const name = names?.apps.get(i.app) ?? (typeof f.numbers.app === "string" ? f.numbers.app : null);
    parts.push(name ?? "the app");
  }
  if (typeof i.period === "string") parts.push(periodText(i.period));
  for (const [k, v] of Object.entries(i)) {
    if (said.has(k) || v === undefined || v === null) continue;
    const text = inputWords(c.tool, k, v, f);
    if (text) parts.push(text);
  }
  return parts.join(" · ");
}

/** One input in words; none for what only orders or pages the answer (limit, rising first). */
function inputWords(tool: string, k: string, v: unknown, f: Finding): string | null {
  switch (k) {
    case "limit":
    case "offset":
    case "rising_first":
    case "sort_by":
    case "order":
      return null;
    case "search":
      return tool === "behavior_pages"
        ? `pages matching “${shownPath(String(v))}”`
        : `matching “${String(v)}”`;
    case "page":
      return `page ${shownPath(String(v))}`;
    case "crawler":
      return `crawler ${String(v)}`;
    case "metric":
      return metricLabel(String(v)).toLowerCase();
    case "interval":
      return `per ${String(v)}`;
    case "by":
    case "split_by":
      return `by ${metricLabel(String(v)).toLowerCase()}`;
    case "theme":
      return `theme “${typeof f.numbers.theme === "string" ? f.numbers.theme : themeWords(String(v))}”`;
    case "cohort":
      return `only the cohort “${String(v)}”`;
    case "conversion_window":
      return `converting within ${windowWords(String(v))}`;
    case "steps":
      return Array.isArray(v) ? `steps ${(v as Step[]).map(stepWords).join(" → ")}` : null;
  }
  if (typeof v === "boolean") return v ? metricLabel(k).toLowerCase() : null;
  if (typeof v === "string" || typeof v === "number") return `${metricLabel(k).toLowerCase()} ${v}`;
  return null; // a nested input never shows as JSON
}
