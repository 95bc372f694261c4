/** The report pages' part of the app stylesheet, printable (the header, nav and forms stay off paper). */
export const REPORT_CSS = `
/* page paths and inputs come from visitors' data: a long unbroken path or JSON wraps instead of widening the page */
.report p, .report li, .report code { overflow-wrap: anywhere; }
.report-summary { font-size: 1.05rem; }
.report-scope { color: var(--muted); font-size: .9rem; }
.findings { list-style: none; padding: 0; margin: 0; display: grid; gap: .6rem; }
.findings li { min-width: 0; background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: .7rem .9rem; }
.findings .kind { font-size: .8rem; color: var(--muted); text-transform: uppercase; letter-spacing: .03em; }
.findings details { margin-top: .3rem; font-size: .9rem; }
.charts { display: grid; gap: 1rem; grid-template-columns: repeat(auto-fit, minmax(min(100%, 420px), 1fr)); }
.charts figure { margin: 0; background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: .8rem; }
.charts figcaption { font-weight: 600; margin-bottom: .4rem; }
@media print {
  header.top, nav.sections, .no-print, .skip { display: none !important; }
  body, :root { background: #fff; }
  main { max-width: none; padding: 0; }
  .findings li, .charts figure { break-inside: avoid; }
}
`;
