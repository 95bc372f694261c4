/** One report as a page: headline, scope, summary, charts, findings with the calls that reproduce them. */
import type { FC } from "hono/jsx";
import type { Report } from "../../lib/reports/types.ts";
import type { RenderedChart } from "./report_charts.ts";
import { raw } from "hono/html";

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

export const ReportView: FC<{ report: Report; charts: RenderedChart[] }> = ({ report: r, charts }) => (
  <article class="report">
    <h1>
      {r.touchpoint_name}: {r.kind === "weekly" ? "week" : "month"} {r.period_key}
    </h1>
    <p class="report-scope">
      {r.scope.period?.from_date} to {r.scope.period?.to_date} ({r.scope.timezone}), {r.scope.environment},
      {" "}
      {r.scope.traffic}. Compared with {r.previous_period}. Generated{" "}
      {r.generated_at.slice(0, 16).replace("T", " ")} UTC{r.trigger === "request" ? " on request" : ""}.
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
                  <div>
                    <code>{c.tool}</code> <code>{JSON.stringify(c.input)}</code>
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
