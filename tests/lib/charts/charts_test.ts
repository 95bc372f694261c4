/// <reference lib="dom" />
import assert from "node:assert/strict";
import { parseHTML } from "linkedom";
import { renderChart, renderSized } from "../../../lib/charts/charts.ts";

const days = (n: number, f: (i: number) => number) =>
  Array.from({ length: n }, (_, i) => ({
    date: `2026-03-${String(i + 1).padStart(2, "0")}`,
    value: f(i),
  }));

function parse(svg: string) {
  const { document } = parseHTML(`<html><body>${svg}</body></html>`);
  const root = document.querySelector("svg");
  assert.ok(root, "one svg element");
  return { document, root };
}

Deno.test("charts: a line chart of this week against the week before is one labelled svg", async () => {
  const svg = await renderChart({
    kind: "line",
    title: "Visitors by day",
    y_label: "visitors",
    series: [
      { name: "this week", points: days(7, (i) => 100 + i * 10) },
      { name: "week before", points: days(7, (i) => 90 + i), dashed: true },
    ],
  });
  const { document, root } = parse(svg);
  assert.equal(root.getAttribute("role"), "img");
  assert.equal(root.getAttribute("aria-label"), "Visitors by day");
  assert.equal(document.querySelector("svg > title")?.textContent, "Visitors by day");
  const lines = [...document.querySelectorAll("path")].filter((p) =>
    (p.getAttribute("d") ?? "").split("L").length === 7 // a 7-point line
  );
  assert.equal(lines.length, 2, svg.slice(0, 400));
  assert.ok(svg.includes('stroke-dasharray="4,3"'), "the comparison is dashed");
  assert.ok(svg.includes("this week") && svg.includes("week before"), "lines are labelled at their ends");
  assert.equal(
    await renderChart({ kind: "line", title: "Visitors by day", series: [] }).then((s) =>
      s.includes("No data")
    ),
    true,
  );
});

Deno.test("charts: bars have one rect each, a previous tick, and escaped labels", async () => {
  const svg = await renderChart({
    kind: "bar",
    title: "Pages <by> views",
    bars: [
      { label: "/pricing", value: 1200, previous: 600 },
      { label: "/<script>alert(1)</script>", value: 300 },
      { label: "/docs/" + "x".repeat(100), value: 20, previous: 40 },
    ],
  });
  assert.ok(!svg.includes("<script>"), "a label cannot inject markup");
  const { document, root } = parse(svg);
  assert.equal(root.getAttribute("aria-label"), "Pages <by> views");
  assert.equal(document.querySelectorAll("rect").length, 3);
  assert.ok(svg.includes("1,200"), "values are written beside the bars");
  assert.ok(svg.includes("…"), "long labels are shortened");
  const ticks = document.querySelector('g[aria-label="tick"]');
  assert.equal(ticks?.querySelectorAll("line").length, 2, "a tick for each bar with a previous value");
});

Deno.test("charts: the same data gives the same markup", async () => {
  const spec = { kind: "line" as const, title: "t", series: [{ name: "a", points: days(3, (i) => i) }] };
  assert.equal(await renderChart(spec), await renderChart(spec));
  const none = await renderChart({ kind: "bar", title: "none", bars: [] });
  assert.ok(none.includes("No data"));
});

Deno.test("charts: a period with no visitors has a readable axis; text is drawn at 13 px; two sizes", async () => {
  const zero = [{ date: "2026-11-16", value: 0 }, { date: "2026-11-17", value: 0 }];
  const svg = await renderChart({
    kind: "line",
    title: "Visitors by day",
    series: [{ name: "this week", points: zero }, { name: "week before", points: zero, dashed: true }],
  });
  assert.ok(!svg.includes("0.0000"), "no 0..0 axis printed with six decimals");
  assert.match(svg, /<svg[^>]* font-size="13"/);
  assert.match(svg, /class="legend"/, "two series get a legend, not labels at the lines' ends");
  const both = await renderSized({
    kind: "bar",
    title: "Pages",
    bars: [{ label: "/", value: 3, previous: 9 }],
  });
  assert.equal((both.match(/<svg/g) ?? []).length, 2, "a wide and a phone copy");
  assert.match(both, /width="440"/);
  assert.match(both, /width="300"/);
});
