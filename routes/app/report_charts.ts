/**
 * A report's charts as SVG (lib/charts), only those it has data for: visitors by day against the period
 * before and the top pages (when the website or app sends events), an app's reviews by star and by version.
 */
import { renderSized } from "../../lib/charts/charts.ts";
import type { Report } from "../../lib/reports/types.ts";

export interface RenderedChart {
  caption: string;
  svg: string;
}

export async function reportCharts(r: Report): Promise<RenderedChart[]> {
  const before = r.kind === "weekly" ? "week before" : "month before";
  const out: RenderedChart[] = [];
  const c = r.charts;
  // a report made before apps had their own charts has no ratings field: its web charts stay as they were
  const web = c.visitors_by_day.length > 0 || c.previous_by_day.length > 0 || c.ratings === undefined;
  if (web) {
    const visitors = "Visitors by day";
    out.push({
      caption: visitors,
      svg: await renderSized({
        kind: "line",
        title: visitors,
        y_label: "visitors",
        series: [
          { name: r.kind === "weekly" ? "this week" : "this month", points: c.visitors_by_day },
          { name: before, points: c.previous_by_day, dashed: true },
        ],
      }),
    });
  }
  if (c.top_pages.length > 0 || (web && c.ratings === undefined)) {
    const pages = "Top pages by pageviews (tick: the period before)";
    out.push({
      caption: pages,
      svg: await renderSized({ kind: "bar", title: pages, x_label: "pageviews", bars: c.top_pages }),
    });
  }
  if (c.ratings?.length) {
    const ratings = "Reviews by rating";
    out.push({
      caption: ratings,
      svg: await renderSized({ kind: "bar", title: ratings, x_label: "reviews", bars: c.ratings }),
    });
  }
  if (c.versions?.length) {
    const versions = "Reviews by app version";
    out.push({
      caption: versions,
      svg: await renderSized({
        kind: "bar",
        title: versions,
        x_label: "reviews",
        bars: c.versions.map((v) => ({
          label: v.average_rating === null ? v.label : `${v.label} (${v.average_rating.toFixed(1)}★)`,
          value: v.value,
        })),
      }),
    });
  }
  return out;
}
