/** The views' style sheet: the host's theme variables when it sends them, our own light and dark otherwise. */
export const STYLE = `
:root{color-scheme:light dark;--fg:var(--color-text-primary,#1c1c1e);--muted:var(--color-text-secondary,#5f6368);
--bg:var(--color-background-primary,#fff);--line:var(--color-border-secondary,#dadce0);--accent:#4f46e5;--accent2:#d97706;
--good:#16a34a;--ni:#d97706;--poor:#dc2626;font-family:var(--font-sans,system-ui,-apple-system,Segoe UI,sans-serif)}
@media (prefers-color-scheme:dark){:root:not([data-theme=light]){--fg:var(--color-text-primary,#ececf1);
--muted:var(--color-text-secondary,#a1a1aa);--bg:var(--color-background-primary,#18181b);--line:var(--color-border-secondary,#3f3f46);--accent:#818cf8;--accent2:#fbbf24}}
:root[data-theme=dark]{--fg:var(--color-text-primary,#ececf1);--muted:var(--color-text-secondary,#a1a1aa);
--bg:var(--color-background-primary,#18181b);--line:var(--color-border-secondary,#3f3f46);--accent:#818cf8;--accent2:#fbbf24}
body{margin:0;background:var(--bg);color:var(--fg);font-size:14px}
main{padding:12px 14px;max-width:1100px}
h1{font-size:16px;margin:0 0 2px}h2{font-size:13px;font-weight:600;margin:14px 0 6px;color:var(--muted)}
.scope{color:var(--muted);margin:0 0 8px;font-size:12px}.lead{margin:6px 0}
header{position:relative}.picker{font-size:12px;color:var(--muted);margin:0}
.pickers{display:flex;flex-wrap:wrap;gap:6px 14px;align-items:center}.pickers input{width:9em}
select,input,button{font:inherit;color:var(--fg);background:var(--bg);border:1px solid var(--line);border-radius:4px;padding:2px 4px}
button{cursor:pointer}
.tiles{display:flex;flex-wrap:wrap;gap:8px;margin:8px 0}
.tile{border:1px solid var(--line);border-radius:6px;padding:6px 10px;min-width:110px}
.tile .name{font-size:12px;color:var(--muted)}.tile .figure{font-size:20px;font-weight:600}
.change{font-size:12px;color:var(--muted)}.change.up{color:var(--good)}.change.down{color:var(--poor)}
svg{display:block;max-width:100%;height:auto;overflow:visible}
svg text{fill:var(--fg);font-size:12px}svg .axis{fill:var(--muted);font-size:11px}
.bar{fill:var(--accent)}.bar.neg{fill:var(--poor)}.grid{stroke:var(--line)}
.line{fill:none;stroke:var(--accent);stroke-width:2}.line.dashed{stroke:var(--accent2);stroke-dasharray:5 4}
.s1 .dot{fill:var(--accent2)}.dot{fill:var(--accent)}
.withheld,.s1 .withheld{fill:none;stroke:var(--muted);stroke-dasharray:2 2}
.cell{fill:var(--accent)}.cellText{font-size:11px}.cellText.strong{fill:#fff}
.zone{opacity:.25}.zone.good{fill:var(--good)}.zone.ni{fill:var(--ni)}.zone.poor{fill:var(--poor)}
.band{fill:var(--fg);opacity:.55}.p75{stroke:var(--fg);stroke-width:2}
.notes{color:var(--muted);font-size:11px;padding-left:16px}.status{color:var(--muted);font-size:12px;min-height:1em}
.error{white-space:pre-wrap;color:var(--poor)}
`;
