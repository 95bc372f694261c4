/**
 * One report as a page: headline, scope, summary, charts, findings with the calls that reproduce them. Its
 * times read in the report's time zone (the organization's), named as its period is.
 */
import type { FC } from "hono/jsx";
import type { Finding, Report, Reproduce } from "../../lib/reports/types.ts";
import { momentText, periodText, periodTitle } from "../../lib/reports/periods.ts";
import type { RenderedChart } from "./report_charts.ts";
import { raw } from "hono/html";
import { callWords } from "../../lib/format/call_words.ts";
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
      {periodText(r.previous_period)}. Generated {momentText(r.generated_at, r.scope.timezone)}
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
                    {findingCallWords(c, f, r, names)}
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

/**
 * A call that shows a finding, in the words of the app (lib/format/call_words.ts): the website or app by its
 * name, the theme as the finding names it. Ids and the tools' parameter names stay in report_get's copy.
 */
function findingCallWords(c: Reproduce, f: Finding, r: Report, names?: ReportNames): string {
  return callWords(c, {
    touchpoint: (id) => (id === r.touchpoint ? r.touchpoint_name : names?.touchpoints.get(id)),
    app: (id) => names?.apps.get(id) ?? (typeof f.numbers.app === "string" ? f.numbers.app : undefined),
    theme: typeof f.numbers.theme === "string" ? f.numbers.theme : undefined,
  });
}
