/// <reference lib="dom" />
/**
 * A view's script: the handshake with the host, then the tool's answer drawn as it arrives. The tool is named
 * by the document (data-tool on <html>), so one small bundle serves every view.
 */
import { HostBridge, type HostContext, type ToolResult } from "./protocol.ts";
import { noticeText, render, scopeLine } from "./render.ts";
import { h } from "./svg.ts";

const root = document.documentElement;
const tool = root.dataset.tool ?? "";
const app = document.getElementById("app")!;
const PERIODS = ["last_7_days", "last_28_days", "last_90_days", "this_month", "last_month"];

let args: Record<string, unknown> = {};
let answer: Record<string, unknown> | null = null;
let text = "";

function applyContext(ctx: HostContext) {
  if (ctx.theme) root.dataset.theme = ctx.theme;
  for (const [k, v] of Object.entries(ctx.styles?.variables ?? {})) if (v) root.style.setProperty(k, v);
  const fixed = ctx.containerDimensions?.width;
  if (fixed) root.style.width = `${fixed}px`;
  if (answer) draw();
}

function periodPicker(): HTMLElement | null {
  if (tool === "report_get") return null;
  const current = String(
    ((answer?.scope as Record<string, unknown>)?.period as Record<string, unknown>)?.name ?? "",
  );
  const select = h("select", { "aria-label": "period" });
  for (const p of PERIODS) {
    const o = h("option", { value: p }, p.replaceAll("_", " "));
    if (p === current) o.selected = true;
    select.append(o);
  }
  select.addEventListener("change", () => ask({ ...args, period: select.value }, true));
  return h("label", { class: "picker" }, "Period ", select);
}

/** The splits a person may pick, for the tools that split (their input's split_by, less "property"). */
const SPLITS: Record<string, string[]> = {
  behavior_trends: ["page", "country", "device", "browser", "source", "channel"],
  behavior_funnel: ["channel", "source", "country", "device", "browser"],
};
/** Tools whose question narrows to one page (their `page` input; for paths, the page the paths go through). */
const PAGE_TOOLS = new Set([
  "behavior_overview",
  "behavior_trends",
  "behavior_paths",
  "behavior_performance",
]);

/** `args` with one input set, or left out when empty (the tool's default). */
function withInput(key: string, value: string): Record<string, unknown> {
  const next = { ...args };
  if (value) next[key] = value;
  else delete next[key];
  return next;
}

function splitPicker(): HTMLElement | null {
  const options = SPLITS[tool];
  if (!options) return null;
  const select = h("select", { "aria-label": "split by" });
  for (const s of ["", ...options]) {
    const o = h("option", { value: s }, s ? s : "no split");
    if (s === String(args.split_by ?? "")) o.selected = true;
    select.append(o);
  }
  select.addEventListener("change", () => ask(withInput("split_by", select.value), true));
  return h("label", { class: "picker" }, "Split ", select);
}

function pagePicker(): HTMLElement | null {
  if (!PAGE_TOOLS.has(tool)) return null;
  const input = h("input", {
    type: "text",
    "aria-label": "page",
    placeholder: "/ a page",
    pattern: "/.*",
    value: String(args.page ?? ""),
  });
  // no <form>: a sandbox without allow-forms never submits one (nor fires its submit event)
  const go = h("button", { type: "button" }, "Ask");
  const send = () => ask(withInput("page", input.value.trim()), true);
  go.addEventListener("click", send);
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter") send();
  });
  return h("span", { class: "picker" }, "Page ", input, " ", go);
}

/** The same tool with other arguments, through the host; `show` draws the answer in place of this one. */
async function ask(next: Record<string, unknown>, show = false): Promise<Record<string, unknown> | null> {
  try {
    const r = await bridge.callTool(tool, next);
    if (r.isError || !r.structuredContent) {
      if (show) status(r.content?.[0]?.text ?? "the host did not answer");
      return null;
    }
    if (show) {
      args = next;
      accept(r);
    }
    return r.structuredContent;
  } catch (e) {
    if (show) status(`could not ask again: ${(e as Error).message}`);
    return null;
  }
}

function status(message: string) {
  document.getElementById("status")?.replaceChildren(message);
}

function draw() {
  const shownAnswer = answer;
  if (!shownAnswer) return;
  const width = Math.max(280, Math.min(app.clientWidth || root.clientWidth || 600, 1100));
  const head = h(
    "header",
    {},
    h("h1", {}, document.title),
    h("p", { class: "scope" }, scopeLine(shownAnswer)),
    h("div", { class: "pickers" }, periodPicker(), splitPicker(), pagePicker()),
  );
  const body = render({ tool, answer: shownAnswer, args, width, ask });
  const notes = (shownAnswer.notices as string[] | undefined) ?? [];
  app.replaceChildren(
    head,
    ...body,
    h("p", { id: "status", class: "status", role: "status" }),
    notes.length
      ? h("ul", { class: "notes" }, ...notes.map((n) => h("li", {}, noticeText(String(n), shownAnswer))))
      : "",
  );
  app.dataset.rendered = tool;
}

function accept(r: ToolResult) {
  text = r.content?.find((c) => c.type === "text")?.text ?? "";
  if (r.isError || !r.structuredContent) {
    answer = null;
    app.replaceChildren(h("pre", { class: "error" }, text || "no answer"));
    app.dataset.rendered = "error";
    return;
  }
  answer = r.structuredContent;
  draw();
}

const bridge = new HostBridge({
  input: (a) => (args = a),
  result: accept,
  context: applyContext,
});

let lastWidth = 0;
new ResizeObserver(() => {
  const w = app.clientWidth;
  if (Math.abs(w - lastWidth) > 8) {
    lastWidth = w;
    draw();
  }
}).observe(app);

bridge.connect().then((ctx) => {
  applyContext(ctx);
  bridge.watchSize(document.body);
});
void text;
