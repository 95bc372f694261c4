/** A report's charts as SVG (lib/charts): visitors by day against the period before, and the top pages. */
import { renderSized } from "../../lib/charts/charts.ts";
import type { Report } from "../../lib/reports/types.ts";

export interface RenderedChart {
  caption: string;
  svg: string;
}

export async function reportCharts(r: Report): Promise<RenderedChart[]> {
  const before = r.kind === "weekly" ? "week before" : "month before";
  const visitors = "Visitors by day";
  const pages = "Top pages by pageviews (tick: the period before)";
  return [
    {
      caption: visitors,
      svg: await renderSized({
        kind: "line",
        title: visitors,
        y_label: "visitors",
        series: [
          { name: r.kind === "weekly" ? "this week" : "this month", points: r.charts.visitors_by_day },
          { name: before, points: r.charts.previous_by_day, dashed: true },
        ],
      }),
    },
    {
      caption: pages,
      svg: await renderSized({
        kind: "bar",
        title: pages,
        x_label: "pageviews",
        bars: r.charts.top_pages,
      }),
    },
  ];
}
