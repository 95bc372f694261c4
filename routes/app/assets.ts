/**
 * The app's one stylesheet and one small script, served from memory (no build step). The script only adds
 * copy buttons and confirmations; every page works without it.
 */
import { CHART_CSS } from "../../lib/charts/charts.ts";
import { REPORT_CSS } from "./report_styles.ts";
import { COHORT_CSS } from "./saved_cohorts.tsx";

export const APP_CSS = `
:root { --fg: #1c2430; --muted: #5b6675; --line: #d9dee5; --bg: #f6f7f9; --card: #fff; --accent: #1f5fbf;
  --accent-fg: #fff; --danger: #b42318; --ok-bg: #e8f5ec; --ok-fg: #14532d; --err-bg: #fdecea; --err-fg: #8a1c12;
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
* { box-sizing: border-box; }
body { margin: 0; }
a { color: var(--accent); }
:focus-visible { outline: 3px solid #f5a623; outline-offset: 2px; }
.skip { position: absolute; left: -9999px; } .skip:focus { left: 1rem; top: 1rem; background: #fff; padding: .5rem; z-index: 9; }
header.top { background: #14213d; color: #fff; }
header.top .bar { max-width: 1320px; margin: 0 auto; padding: .6rem 1rem; display: flex; flex-wrap: wrap; gap: .5rem 1rem;
  align-items: center; }
header.top a, header.top summary { color: #fff; }
.brand { font-weight: 700; text-decoration: none; margin-right: auto; }
details.menu { position: relative; }
details.menu summary { cursor: pointer; list-style: none; padding: .25rem .5rem; border: 1px solid #3b4a6b; border-radius: 6px; }
details.menu summary::-webkit-details-marker { display: none; }
details.menu ul { position: absolute; right: 0; z-index: 5; margin: .3rem 0 0; padding: .3rem 0; list-style: none; background: #fff;
  border: 1px solid var(--line); border-radius: 6px; min-width: 14rem; box-shadow: 0 4px 16px rgba(0,0,0,.12); }
details.menu li a, details.menu li button { display: block; width: 100%; text-align: left; padding: .45rem .8rem; color: var(--fg);
  background: none; border: 0; font: inherit; text-decoration: none; cursor: pointer; }
details.menu li a:hover, details.menu li button:hover { background: var(--bg); }
/* navigation: a grouped side bar on wide screens, a <details> menu in the header on phones */
.shell { max-width: 1320px; margin: 0 auto; }
.nav-label { margin: .9rem 0 .2rem; padding: 0 .75rem; font-size: .75rem; font-weight: 700; letter-spacing: .06em;
  text-transform: uppercase; color: var(--muted); }
.nav-group ul { list-style: none; margin: 0; padding: 0; }
.nav-group a { display: block; padding: .4rem .75rem; border-radius: 6px; text-decoration: none; color: var(--fg); }
.nav-group a:hover { background: #e9edf3; }
.nav-group a[aria-current="page"] { background: #e3ebf8; color: var(--accent); font-weight: 600; }
nav.sections { padding: .25rem .5rem 1rem; }
details.phone-nav { display: none; }
details.phone-nav summary { cursor: pointer; list-style: none; padding: .25rem .6rem; border: 1px solid #3b4a6b;
  border-radius: 6px; color: #fff; white-space: nowrap; }
details.phone-nav summary::-webkit-details-marker { display: none; }
.muted-light { color: #c9d3e3; font-weight: 400; }
details.phone-nav nav { position: absolute; left: 0; right: 0; z-index: 6; background: #fff; color: var(--fg);
  border-bottom: 1px solid var(--line); box-shadow: 0 8px 20px rgba(0,0,0,.15); padding: 0 .75rem .75rem;
  display: grid; grid-template-columns: 1fr 1fr; gap: 0 .75rem; }
details.phone-nav nav a { color: var(--fg); }
details.phone-nav nav a[aria-current="page"] { color: var(--accent); }
@media (min-width: 860px) {
  .shell.with-nav { display: grid; grid-template-columns: 13rem minmax(0, 1fr); gap: 0 1rem; }
  nav.sections { position: sticky; top: 0; align-self: start; }
}
@media (max-width: 859.98px) {
  nav.sections { display: none; }
  details.phone-nav { display: block; }
  header.top { position: relative; }
}
main { max-width: 1100px; margin: 0 auto; min-width: 0; padding: 1.25rem 1rem 3rem; }
main.narrow { max-width: 28rem; }
h1 { font-size: 1.5rem; margin: .25rem 0 1rem; } h2 { font-size: 1.15rem; margin: 1.75rem 0 .6rem; }
/* names people type (a website called www-shop-example-com) break anywhere rather than widen the page */
h1, h2, h3 { overflow-wrap: anywhere; }
p.lead { color: var(--muted); margin-top: -.5rem; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 1rem; margin: 0 0 1rem; }
.flash { border-radius: 8px; padding: .75rem 1rem; margin: 0 0 1rem; }
.flash.notice { background: var(--ok-bg); color: var(--ok-fg); } .flash.error { background: var(--err-bg); color: var(--err-fg); }
form.stack { display: grid; gap: .8rem; }
form.inline { display: inline; }
.row { display: flex; flex-wrap: wrap; gap: .6rem; align-items: end; }
.row > label, .row > .field { flex: 1 1 12rem; }
.field { display: grid; gap: .25rem; } .field > label { display: block; }
.row.between { justify-content: space-between; align-items: center; }
label { display: grid; gap: .25rem; font-weight: 600; font-size: .95rem; }
label.check { display: flex; gap: .5rem; align-items: center; font-weight: 400; }
.hint { font-weight: 400; color: var(--muted); font-size: .9rem; }
input[type=text], input[type=email], input[type=password], input[type=url], input[type=date], input[type=number],
select, textarea {
  font: inherit; font-weight: 400; padding: .5rem .6rem; border: 1px solid #a9b2bf; border-radius: 6px; width: 100%;
  background: #fff; }
button, .button { font: inherit; padding: .5rem .9rem; border-radius: 6px; border: 1px solid var(--accent); background: var(--accent);
  color: var(--accent-fg); cursor: pointer; text-decoration: none; display: inline-block; }
button.secondary { background: #fff; color: var(--accent); }
button.danger { background: #fff; color: var(--danger); border-color: var(--danger); }
button.link { background: none; border: 0; color: var(--accent); padding: 0; text-decoration: underline; }
.table-wrap { overflow-x: auto; margin-bottom: 1rem; }
table { width: 100%; border-collapse: collapse; background: #fff; }
th, td { text-align: left; padding: .55rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: .85rem; color: var(--muted); font-weight: 600; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .9rem; }
pre { background: #0f172a; color: #e2e8f0; padding: .8rem; border-radius: 6px; overflow-x: auto; white-space: pre; }
.secret { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
.secret code { background: #fff8e1; border: 1px solid #f0d58c; padding: .45rem .6rem; border-radius: 6px; word-break: break-all; flex: 1 1 16rem; }
.tabs { display: flex; gap: .25rem; border-bottom: 1px solid var(--line); margin: 0 0 1rem; overflow-x: auto; }
.tabs a { padding: .5rem .8rem; text-decoration: none; color: var(--muted); border-bottom: 3px solid transparent; white-space: nowrap; }
.tabs a[aria-current="page"] { color: var(--fg); border-bottom-color: var(--accent); font-weight: 600; }
.badge { display: inline-block; font-size: .8rem; padding: .05rem .45rem; border-radius: 999px; background: #e7ecf3; color: #334155; }
.badge.on { background: var(--ok-bg); color: var(--ok-fg); } .badge.off { background: var(--err-bg); color: var(--err-fg); }
.muted { color: var(--muted); }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; margin: .5rem 0 .75rem; }
.facts dt { color: var(--muted); } .facts dd { margin: 0; overflow-wrap: anywhere; }
/* answers: dashboards, insights */
.dashboard { display: grid; gap: 1rem; grid-template-columns: repeat(auto-fit, minmax(min(100%, 470px), 1fr)); align-items: start; }
.dashboard .card h2 { margin-top: 0; }
dl.figures { display: flex; flex-wrap: wrap; gap: .6rem 1.4rem; margin: .25rem 0 .75rem; }
dl.figures dt { color: var(--muted); font-size: .85rem; }
dl.figures dd { margin: 0; } dl.figures .figure { font-size: 1.35rem; font-weight: 650; }
figure.chart { margin: .5rem 0; }
table caption { text-align: left; font-weight: 600; padding: .3rem 0; }
ul.notices { font-size: .85rem; padding-left: 1.1rem; }
.builder { display: grid; gap: 1rem; align-items: start; }
@media (min-width: 1100px) { .builder { grid-template-columns: minmax(0, 24rem) minmax(0, 1fr); } }
.result[aria-busy="true"] { opacity: .6; }
fieldset { border: 1px solid var(--line); border-radius: 8px; }
fieldset.steps ol { padding-left: 0; list-style: none; margin: 0; display: grid; gap: .5rem; }
fieldset.steps .step { align-items: end; }
.step-buttons { display: flex; gap: .25rem; }
.step-buttons button { padding: .4rem .6rem; }
fieldset.choices { display: flex; flex-wrap: wrap; gap: .3rem 1rem; }
.period-picker .custom-range { display: none; }
.period-picker:has(option[value="custom"]:checked) .custom-range { display: flex; }
.nowrap { white-space: nowrap; }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
@media (max-width: 600px) {
  th, td { padding: .45rem .35rem; font-size: .92rem; }
  h1 { font-size: 1.3rem; }
  table.stack-sm thead { position: absolute; left: -9999px; }
  table.stack-sm tr { display: block; border-bottom: 1px solid var(--line); padding: .4rem 0; }
  table.stack-sm td { display: block; border: 0; padding: .15rem .35rem; }
  /* each cell keeps its column's name (data-label, set on the server or copied from the header row) */
  /* the name sits in the cell's left padding as an inline block, so a name of two lines makes the cell taller
     (positioned absolutely it ran into the next cell); widths in rem: a percentage would be of the content box */
  table.stack-sm td[data-label] { padding-left: 9rem; overflow-wrap: anywhere; }
  table.stack-sm td[data-label]::before { content: attr(data-label); display: inline-block; vertical-align: top;
    width: 8.15rem; margin-left: -8.65rem; margin-right: .5rem; overflow-wrap: normal;
    color: var(--muted); font-size: .85rem; font-weight: 600; }
  table.stack-sm td[data-label=""] { padding-left: .35rem; }
  header.top .bar { gap: .4rem .5rem; padding: .5rem .75rem; }
  details.menu summary { max-width: 11rem; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
}
${CHART_CSS}${REPORT_CSS}${COHORT_CSS}`;

/** The app's icon: a small bar chart, so the browser never asks for a missing /favicon.ico. */
export const FAVICON_SVG =
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#14213d"/>` +
  `<rect x="7" y="16" width="4" height="9" fill="#56b4e9"/><rect x="14" y="10" width="4" height="15" fill="#e69f00"/>` +
  `<rect x="21" y="6" width="4" height="19" fill="#009e73"/></svg>`;

export const APP_JS = `
document.addEventListener("click", async (e) => {
  const btn = e.target.closest("[data-copy]");
  if (!btn) return;
  const src = document.querySelector(btn.getAttribute("data-copy"));
  if (!src) return;
  try {
    await navigator.clipboard.writeText(src.textContent.trim());
    btn.textContent = "Copied";
  } catch {
    const range = document.createRange();
    range.selectNodeContents(src);
    getSelection().removeAllRanges();
    getSelection().addRange(range);
    btn.textContent = "Selected: press Ctrl+C";
  }
  const live = document.getElementById("live");
  if (live) live.textContent = btn.textContent;
});
document.addEventListener("submit", (e) => {
  const msg = e.target.getAttribute("data-confirm");
  if (msg && !confirm(msg)) e.preventDefault();
});
for (const b of document.querySelectorAll("[data-copy]")) b.hidden = false;
// phone tables stack their cells: each cell without a label gets its column's name from the header row
for (const t of document.querySelectorAll("table.stack-sm")) {
  const names = [...t.querySelectorAll("thead th")].map((th) => th.getAttribute("data-label") ?? th.textContent.trim());
  for (const tr of t.querySelectorAll("tbody tr")) {
    [...tr.cells].forEach((td, i) => { if (!td.hasAttribute("data-label")) td.setAttribute("data-label", names[i] ?? ""); });
  }
}
`;
