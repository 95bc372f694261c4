/**
 * Insights: a question (a read tool) and its inputs, saved by name, built with people's controls: the question
 * by its name, each input by its label, a period picker, a funnel's steps as rows (page or event, added,
 * removed and moved by buttons, no JSON), a cohort chosen from the saved ones. The result shows beside the
 * form (refreshed as the form changes, or by "Show result" without the script) and on the insight's own page.
 * Inputs are checked against the tool's schema when saved, and a refusal names the field.
 */
import { Hono } from "hono";
import type { AppContext } from "../../lib/context.ts";
import type { Org, Touchpoint } from "../../lib/store/records.ts";
import { invalid } from "../../lib/errors.ts";
import { canEdit, createSaved, listSaved, updateSaved } from "../../lib/saved/store.ts";
import type { SavedCohort, SavedInsight } from "../../lib/saved/records.ts";
import { insightToolInput } from "../../lib/saved/tool_input.ts";
import { insightTools } from "../../pipeline/saved_insights.ts";
import { listing } from "../../pipeline/listing.ts";
import { runForApp } from "../../pipeline/app_runs.ts";
import { type AppEnv, type C, field, isRefusal, orgMember, pageFlash, redirectWith } from "./http.ts";
import { CsrfField, Layout, orgPath } from "./layout.tsx";
import { Table } from "./table.tsx";
import { frameOf } from "./frame.ts";
import { fieldValue, formJson, type InputField, inputFields, inputFromForm } from "./saved_form.ts";
import {
  activeTouchpoints,
  deleteSavedAction,
  editor,
  editorStart,
  SavedBasics,
  savedOr404,
  SavedRowEnd,
  saveOptions,
} from "./saved_common.tsx";
import { choiceLabel, fieldLabel, hintText, insightSummary, questionLabel, QUESTIONS } from "./questions.ts";
import { defaultPeriodIn, periodFromForm, PeriodPicker } from "./period_picker.tsx";
import { AnswerBlock, showAnswer } from "./answer_view.tsx";

export { insightSummary, questionLabel };
export const insightsPath = (org: string) => orgPath(org, "insights");

const toolOf = (name: string) => insightTools().find((x) => x.name === name) ?? null;
const fieldsOf = (tool: string) => {
  const t = toolOf(tool);
  return t ? inputFields(listing(t).input_schema) : null;
};

/**
 * The input an insight (saved, or the form's as it stands) asks its tool with, its website or app named the way
 * the tool names one (lib/saved/tool_input.ts: `app` for the feedback tools).
 */
export function insightInput(
  insight: Pick<SavedInsight, "tool" | "input" | "touchpoint">,
  tps: Touchpoint[],
  period?: string,
): Record<string, unknown> {
  const t = toolOf(insight.tool);
  const props = (t ? listing(t).input_schema.properties ?? {} : {}) as Record<string, unknown>;
  const kind = tps.find((x) => x.id === insight.touchpoint)?.kind ?? null;
  return insightToolInput(
    insight,
    { takesTouchpoint: "touchpoint" in props, takesApp: "app" in props },
    kind,
    period,
  );
}

/** The website or app a new insight starts on: an app for the questions about app reviews, else a website. */
function defaultTouchpoint(tool: string, tps: Touchpoint[]): string | undefined {
  const t = toolOf(tool);
  const props = (t ? listing(t).input_schema.properties ?? {} : {}) as Record<string, unknown>;
  const wanted = "app" in props && !("touchpoint" in props)
    ? (x: Touchpoint) => x.kind !== "website"
    : (x: Touchpoint) => x.kind === "website";
  return (tps.find(wanted) ?? tps[0])?.id;
}

// ---- a funnel's steps as rows

/** Each step's own example, so the empty rows read as a path through a site, not one page twice. */
const PAGE_EXAMPLES = ["/", "/pricing", "/signup", "/checkout"];
const EVENT_EXAMPLES = ["sign_up", "add_to_cart", "purchase"];

interface StepRow {
  kind: "page" | "event";
  value: string;
}
const MAX_STEPS = 8;

function stepRowsOf(form: URLSearchParams | null, input: Record<string, unknown>): StepRow[] {
  if (form && form.has("step_count")) {
    const n = Math.min(Number(form.get("step_count")) || 0, MAX_STEPS);
    const rows: StepRow[] = [];
    for (let i = 0; i < n; i++) {
      rows.push({
        kind: form.get(`step_kind_${i}`) === "event" ? "event" : "page",
        value: (form.get(`step_value_${i}`) ?? "").trim(),
      });
    }
    return rows;
  }
  let steps = input.steps;
  if (form?.get("in_steps")) {
    try {
      steps = JSON.parse(form.get("in_steps")!);
    } catch { /* shown as typed; refused when saved */ }
  }
  const rows = Array.isArray(steps)
    ? (steps as { page?: string; event?: string }[]).map((s): StepRow =>
      s.event !== undefined
        ? { kind: "event", value: String(s.event) }
        : { kind: "page", value: String(s.page ?? "") }
    )
    : [];
  while (rows.length < 2) rows.push({ kind: "page", value: "" });
  return rows;
}

/** The rows after a button's change: add a row, remove one, move one up or down. */
function applyStepOp(rows: StepRow[], op: string): StepRow[] {
  const out = [...rows];
  const [what, at] = op.split(":");
  const i = Number(at);
  if (what === "add" && out.length < MAX_STEPS) out.push({ kind: "page", value: "" });
  if (what === "remove" && out.length > 2) out.splice(i, 1);
  if (what === "up" && i > 0) [out[i - 1], out[i]] = [out[i], out[i - 1]];
  if (what === "down" && i < out.length - 1) [out[i + 1], out[i]] = [out[i], out[i + 1]];
  return out;
}

const stepsInput = (rows: StepRow[]) =>
  rows.filter((r) => r.value).map((r) => r.kind === "event" ? { event: r.value } : { page: r.value });

// ---- the form's state, from a saved insight or a posted form

interface Values {
  name: string;
  description: string;
  touchpoint?: string;
  /** field name → its text in the form */
  text: Record<string, string>;
  multi: Record<string, string[]>;
  steps: StepRow[];
}

function valuesOf(fields: InputField[], insight: SavedInsight | null): Values {
  const input = insight?.input ?? {};
  return {
    name: insight?.name ?? "",
    description: insight?.description ?? "",
    touchpoint: insight?.touchpoint,
    text: Object.fromEntries(fields.map((f) => [f.name, fieldValue(f, input)])),
    multi: Object.fromEntries(
      fields.filter((f) => f.type === "multi").map((
        f,
      ) => [f.name, (input[f.name] as string[] | undefined) ?? []]),
    ),
    steps: stepRowsOf(null, input),
  };
}

function postedValues(c: C, fields: InputField[]): Values {
  const form = c.get("form");
  return {
    name: field(c, "name"),
    description: field(c, "description"),
    touchpoint: field(c, "touchpoint"),
    text: Object.fromEntries(fields.map((f) => [f.name, (form.get(`in_${f.name}`) ?? "").trim()])),
    multi: Object.fromEntries(
      fields.filter((f) => f.type === "multi").map((f) => [f.name, form.getAll(`in_${f.name}`)]),
    ),
    steps: stepRowsOf(form, {}),
  };
}

/** The tool input a posted form describes: the period picker, the step rows, the other fields. */
function inputOf(form: URLSearchParams, fields: InputField[]): Record<string, unknown> {
  const rest = fields.filter((f) => f.name !== "period" && f.name !== "steps");
  const input = inputFromForm(rest, form);
  if (fields.some((f) => f.name === "period")) {
    const period = periodFromForm((k) => form.get(`in_${k}`) ?? "");
    if (period) input.period = period;
  }
  if (fields.some((f) => f.name === "steps")) {
    if (form.has("step_count")) input.steps = stepsInput(stepRowsOf(form, {}));
    else if (form.get("in_steps")) {
      input.steps = formJson(form.get("in_steps")!, "steps");
    }
  }
  return input;
}

// ---- the form's parts

const Hint = ({ text }: { text: string }) => text ? <small class="hint">{hintText(text)}</small> : null;

const InputRow = (p: { f: InputField; v: Values; cohorts: SavedCohort[] }) => {
  const { f, v } = p;
  const name = `in_${f.name}`;
  const value = v.text[f.name] ?? "";
  const label = fieldLabel(f.name);
  if (f.name === "period") {
    return (
      <PeriodPicker
        value={value}
        name="in_period"
        label={label}
        id={name}
        defaultPeriod={defaultPeriodIn(f.description)}
      />
    );
  }
  if (f.name === "cohort") {
    return (
      <label>
        {label}
        <select name={name}>
          <option value="" selected={!value}>Everyone (no cohort)</option>
          {p.cohorts.map((c) => <option value={c.name} selected={c.name === value}>{c.name}</option>)}
          {value && !p.cohorts.some((c) => c.name === value) && (
            <option value={value} selected>{value}</option>
          )}
        </select>
        {p.cohorts.length === 0 && <small class="hint">No saved cohorts yet: build one under Cohorts.</small>}
      </label>
    );
  }
  if (f.name === "steps") return <StepsBuilder rows={v.steps} raw={value} />;
  if (f.type === "boolean") {
    return (
      <label class="check">
        <input type="checkbox" name={name} value="true" checked={value === "true"} /> {label}
      </label>
    );
  }
  if (f.type === "multi") {
    const chosen = v.multi[f.name] ?? [];
    return (
      <fieldset class="choices">
        <legend>{label}</legend>
        {f.options.map((o) => (
          <label class="check">
            <input type="checkbox" name={name} value={o} checked={chosen.includes(o)} /> {choiceLabel(o)}
          </label>
        ))}
        <Hint text={f.description} />
      </fieldset>
    );
  }
  if (f.type === "enum") {
    return (
      <label>
        {label}
        <select name={name}>
          <option value="" selected={value === ""}>Default</option>
          {f.options.map((o) => <option value={o} selected={o === value}>{choiceLabel(o)}</option>)}
        </select>
        <Hint text={f.description} />
      </label>
    );
  }
  if (f.type === "json") {
    return (
      <label>
        {label} (JSON)
        <textarea name={name} rows={3}>{value}</textarea>
        <Hint text={f.description} />
      </label>
    );
  }
  return (
    <label>
      {label}
      {f.required ? " (required)" : ""}
      <input type={f.type === "text" ? "text" : "number"} name={name} value={value} />
      <Hint text={f.description} />
    </label>
  );
};

/** A funnel's steps: one row each (page or event), with buttons that move, remove and add rows. */
const StepsBuilder = ({ rows, raw }: { rows: StepRow[]; raw: string }) => (
  <fieldset class="steps">
    <legend>Steps, in order (2 to 8)</legend>
    <input type="hidden" name="step_count" value={String(rows.length)} />
    {/* what was posted as text before the rows existed stays, for a refusal to show it */}
    {raw && !raw.startsWith("[{") ? null : <input type="hidden" name="in_steps" value={raw} />}
    <ol>
      {rows.map((r, i) => (
        <li class="step row">
          <label>
            Step {i + 1} is
            <select name={`step_kind_${i}`}>
              <option value="page" selected={r.kind === "page"}>a page</option>
              <option value="event" selected={r.kind === "event"}>an event</option>
            </select>
          </label>
          <label>
            Page path or event name of step {i + 1}
            <input
              type="text"
              name={`step_value_${i}`}
              value={r.value}
              placeholder={r.kind === "page"
                ? PAGE_EXAMPLES[i] ?? "/pricing"
                : EVENT_EXAMPLES[i] ?? "sign_up"}
            />
          </label>
          <span class="step-buttons">
            <button
              type="submit"
              class="secondary"
              name="op"
              value={`up:${i}`}
              disabled={i === 0}
              aria-label={`Move step ${i + 1} up`}
            >
              ↑
            </button>
            <button
              type="submit"
              class="secondary"
              name="op"
              value={`down:${i}`}
              disabled={i === rows.length - 1}
              aria-label={`Move step ${i + 1} down`}
            >
              ↓
            </button>
            <button
              type="submit"
              class="secondary"
              name="op"
              value={`remove:${i}`}
              disabled={rows.length <= 2}
              aria-label={`Remove step ${i + 1}`}
            >
              ✕
            </button>
          </span>
        </li>
      ))}
    </ol>
    <button type="submit" class="secondary" name="op" value="add" disabled={rows.length >= MAX_STEPS}>
      Add a step
    </button>
    <small class="hint">A page path may end in * for a whole section, e.g. /docs/*.</small>
  </fieldset>
);

/** The result of the form's inputs as they are now, or why there is none yet. */
async function resultOf(
  ctx: AppContext,
  org: Org,
  tps: Touchpoint[],
  tool: string,
  title: string,
  form: URLSearchParams,
) {
  const fields = fieldsOf(tool);
  if (!fields) return null;
  try {
    const input = inputOf(form, fields);
    // a funnel without its steps yet is a form being filled in, not a mistake
    if (fields.some((f) => f.name === "steps") && (input.steps as unknown[] | undefined ?? []).length < 2) {
      return { shown: null, error: null, hint: "Add two steps or more to see the funnel." };
    }
    // so is a question whose other required inputs are not filled in yet: it asks for them by their labels
    const missing = fields.find((f) => f.required && f.name !== "steps" && input[f.name] === undefined);
    if (missing) return { shown: null, error: null, hint: waitingFor(tool, missing.name) };
    const touchpoint = form.get("touchpoint") || defaultTouchpoint(tool, tps) || "";
    const answer = await runForApp(ctx, org, tool, insightInput({ tool, input, touchpoint }, tps));
    return { shown: await showAnswer(title || questionLabel(tool), answer), error: null, hint: null };
  } catch (err) {
    if (!isRefusal(err)) throw err;
    return { shown: null, error: refusalForPeople(err.message), hint: null };
  }
}

/** What a question waits for while a required input is empty: "Choose an event in “Event” to see its properties." */
function waitingFor(tool: string, field: string): string {
  const label = `“${fieldLabel(field)}”`;
  if (field === "event") {
    const what = tool === "behavior_event_properties" ? "its properties" : "the result";
    return `Choose an event in ${label} to see ${what}.`;
  }
  return `Fill in ${label} to see the result.`;
}

/**
 * A tool's refusal as the form's reader reads it: without the "invalid input for <tool>:" prefix the API
 * needs, and with the fields the tool names in backticks ("`page`") called by their labels on the form.
 */
function refusalForPeople(message: string): string {
  const text = message.replace(/^invalid input for \w+: /, "");
  return text.replace(/`(\w+)`/g, (_, name: string) => `“${fieldLabel(name)}”`);
}

type Result = Awaited<ReturnType<typeof resultOf>>;

const ResultPanel = ({ result }: { result: Result }) => (
  <>
    {!result && <p class="muted">Choose a question to see its result here.</p>}
    {result?.hint && <p class="muted">{result.hint}</p>}
    {result?.error && <p class="muted">Not yet: {result.error}</p>}
    {result?.shown && (
      <>
        {result.shown.period && <p class="muted">{result.shown.period}</p>}
        <AnswerBlock shown={result.shown} />
      </>
    )}
  </>
);

async function insightForm(
  ctx: AppContext,
  c: C,
  insight: SavedInsight | null,
  tool: string | null,
  posted?: Values,
  error?: string,
  errorStatus = 422,
) {
  const { org, frame, flash, tps } = await editorStart(ctx, c, error);
  const cohorts = await listSaved(ctx.deps.kv, org.id, "cohort");
  const fields = tool ? fieldsOf(tool) : null;
  const v = posted ?? (fields ? valuesOf(fields, insight) : null);
  // a new insight starts on the website or app its question is about, and its first result is of that one
  // (or on the one a link names: a report's "ask it in the app" opens the question on its website or app)
  const named = tps.find((t) => t.id === c.req.query("touchpoint"))?.id;
  if (tool && v && !v.touchpoint) v.touchpoint = named ?? defaultTouchpoint(tool, tps);
  const base = insight ? `${insightsPath(org.id)}/${insight.id}/edit` : `${insightsPath(org.id)}/new`;
  const action = insight ? `${insightsPath(org.id)}/${insight.id}/edit` : insightsPath(org.id);
  // the result beside the form: of what was posted, or of the saved insight
  let result: Result = null;
  if (tool && fields && v) {
    const form = posted ? c.get("form") : formOfValues(v, fields);
    result = await resultOf(ctx, org, tps, tool, v.name, form);
  }
  return c.html(
    <Layout
      title={`${insight ? "Edit" : "New"} insight · ${org.name}`}
      frame={frame}
      section="insights"
      flash={flash}
    >
      <h1>{insight ? `Edit insight “${insight.name}”` : "New insight"}</h1>
      <div class="builder">
        <div>
          <form method="get" action={base} class="row" id="question-form">
            <label>
              Question
              <select name="tool" id="tool-choice">
                <option value="" selected={!tool}>Choose a question…</option>
                {insightTools().map((t) => (
                  <option value={t.name} selected={t.name === tool}>{questionLabel(t.name)}</option>
                ))}
              </select>
            </label>
            <p>
              <button type="submit" class="secondary">Ask this</button>
            </p>
          </form>
          {tool && fields && v && (
            <form
              method="post"
              action={action}
              class="stack"
              id="insight-form"
              data-preview={`${insightsPath(org.id)}/preview`}
            >
              <CsrfField csrf={frame.csrf} />
              <input type="hidden" name="tool" value={tool} />
              <p class="muted">{QUESTIONS[tool]?.about ?? ""}</p>
              <SavedBasics tps={tps} name={v.name} touchpoint={v.touchpoint} description={v.description} />
              <fieldset class="card">
                <legend>{questionLabel(tool)}</legend>
                {fields.map((f) => <InputRow f={f} v={v} cohorts={cohorts} />)}
              </fieldset>
              <p class="row">
                {/* a result needs no name yet: only saving does */}
                <button type="submit" name="op" value="preview" class="secondary" formnovalidate>
                  Show result
                </button>
                <button type="submit">{insight ? "Save changes" : "Create insight"}</button>
              </p>
            </form>
          )}
        </div>
        <section class="card result" aria-label="Result" aria-live="polite" id="insight-result">
          <ResultPanel result={result} />
        </section>
      </div>
      <script src="/app/assets/insights.js" defer></script>
    </Layout>,
    (error ? errorStatus : 200) as 200,
  );
}

/** The form fields a Values stands for (to ask a saved insight's result the way a posted form is asked). */
function formOfValues(v: Values, fields: InputField[]): URLSearchParams {
  const f = new URLSearchParams();
  if (v.touchpoint) f.set("touchpoint", v.touchpoint);
  for (const x of fields) {
    if (x.name === "steps") continue;
    if (x.type === "multi") { for (const o of v.multi[x.name] ?? []) f.append(`in_${x.name}`, o); }
    else if (v.text[x.name]) f.set(`in_${x.name}`, v.text[x.name]);
  }
  const p = v.text.period ?? "";
  const range = p.match(/^(\d{4}-\d{2}-\d{2})\.\.(\d{4}-\d{2}-\d{2})$/);
  if (range) {
    f.set("in_period", "custom");
    f.set("in_period_from", range[1]);
    f.set("in_period_to", range[2]);
  }
  if (fields.some((x) => x.name === "steps")) {
    f.set("step_count", String(v.steps.length));
    v.steps.forEach((s, i) => {
      f.set(`step_kind_${i}`, s.kind);
      f.set(`step_value_${i}`, s.value);
    });
  }
  return f;
}

async function saveOrShow(ctx: AppContext, c: C, insight: SavedInsight | null) {
  const org = c.get("org");
  const tool = field(c, "tool");
  const fields = fieldsOf(tool);
  const op = field(c, "op");
  if (fields && op) {
    // a button of the form (a step moved, added or removed; show the result): the form again, not saved
    const v = postedValues(c, fields);
    if (op !== "preview") {
      v.steps = applyStepOp(v.steps, op);
      const form = c.get("form");
      form.set("step_count", String(v.steps.length));
      v.steps.forEach((s, i) => {
        form.set(`step_kind_${i}`, s.kind);
        form.set(`step_value_${i}`, s.value);
      });
    }
    return insightForm(ctx, c, insight, tool, v);
  }
  const body = {
    name: field(c, "name"),
    description: field(c, "description"),
    touchpoint: field(c, "touchpoint"),
  };
  try {
    if (!fields) {
      throw invalid("question: choose one of the questions in the list");
    }
    const input = inputOf(c.get("form"), fields);
    const o = await saveOptions(ctx, c);
    const saved = insight
      ? await updateSaved(o, "insight", insight.id, { ...body, tool, input })
      : await createSaved(o, "insight", { ...body, tool, input });
    return await redirectWith(ctx, c, `${insightsPath(org.id)}/${saved.id}`, {
      notice: `Insight “${saved.name}” saved.`,
    });
  } catch (err) {
    if (isRefusal(err)) {
      return insightForm(
        ctx,
        c,
        insight,
        tool || null,
        fields ? postedValues(c, fields) : undefined,
        err.message,
        err.status,
      );
    }
    throw err;
  }
}

/** The builder's live result: refreshed (debounced) as the form changes; "Show result" does it without. */
export const INSIGHTS_JS = `
(() => {
  const pick = document.getElementById("tool-choice");
  if (pick) pick.addEventListener("change", () => pick.form.submit());
  const form = document.getElementById("insight-form");
  const out = document.getElementById("insight-result");
  if (!form || !out) return;
  let timer = 0, asked = 0;
  const ask = async () => {
    const n = ++asked;
    out.setAttribute("aria-busy", "true");
    try {
      const res = await fetch(form.dataset.preview, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(new FormData(form)),
        credentials: "same-origin",
      });
      if (n === asked && res.ok) out.innerHTML = await res.text();
    } finally {
      if (n === asked) out.removeAttribute("aria-busy");
    }
  };
  const later = () => { clearTimeout(timer); timer = setTimeout(ask, 500); };
  form.addEventListener("input", later);
  form.addEventListener("change", later);
  // a button sends the form (save, show, a step moved): no preview is asked as the page leaves
  form.addEventListener("submit", () => { clearTimeout(timer); asked++; });
})();
`;

export function insightsRoutes(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { kv } = ctx.deps;
  const p = "/o/:org/insights";
  app.get("/assets/insights.js", () =>
    new Response(INSIGHTS_JS, {
      headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=300" },
    }));
  app.use(p, orgMember(ctx, "member"));
  app.use(`${p}/*`, orgMember(ctx, "member"));

  app.get(p, async (c) => {
    const org = c.get("org");
    const frame = (await frameOf(ctx, c))!;
    const { flash } = await pageFlash(ctx, c);
    const me = editor(c);
    const tps = await activeTouchpoints(ctx, org.id);
    const items = await listSaved(kv, org.id, "insight");
    return c.html(
      <Layout title={`Insights · ${org.name}`} frame={frame} section="insights" flash={flash}>
        <h1>Insights</h1>
        <p class="lead">
          Questions saved by name. Put them on dashboards, or ask an assistant for one by its name.
        </p>
        <p>
          <a class="button" href={`${insightsPath(org.id)}/new`}>New insight</a>
        </p>
        {items.length === 0
          ? <p>No insights yet.</p>
          : (
            <Table columns={["Name", "What it shows", "Website or app", "Updated"]} actions>
              {items.map((x) => (
                <tr>
                  <td data-label="Name">
                    <a href={`${insightsPath(org.id)}/${x.id}`}>{x.name}</a>
                  </td>
                  <td data-label="What it shows">{insightSummary(x, tps)}</td>
                  <SavedRowEnd
                    item={x}
                    tps={tps}
                    me={me}
                    action={`${insightsPath(org.id)}/${x.id}/delete`}
                    csrf={frame.csrf}
                  />
                </tr>
              ))}
            </Table>
          )}
      </Layout>,
    );
  });

  app.get(`${p}/new`, (c) => insightForm(ctx, c, null, c.req.query("tool") || null));
  app.post(p, (c) => saveOrShow(ctx, c, null));

  // the builder's live result, as an HTML fragment
  app.post(`${p}/preview`, async (c) => {
    const org = c.get("org");
    const tool = field(c, "tool");
    const tps = await activeTouchpoints(ctx, org.id);
    const result = await resultOf(ctx, org, tps, tool, field(c, "name"), c.get("form"));
    return c.html(<ResultPanel result={result} />);
  });

  // an insight's own page: its result, with a period picker
  app.get(`${p}/:id`, async (c) => {
    const org = c.get("org");
    const insight = await savedOr404(ctx, c, "insight");
    if (c.req.query("tool")) return insightForm(ctx, c, insight, c.req.query("tool")!);
    const frame = (await frameOf(ctx, c))!;
    const { flash } = await pageFlash(ctx, c);
    const tps = await activeTouchpoints(ctx, org.id);
    const q = (k: string) => c.req.query(k) ?? "";
    let period = "", result: Result = null;
    try {
      period = periodFromForm(q);
      const answer = await runForApp(ctx, org, insight.tool, insightInput(insight, tps, period));
      result = { shown: await showAnswer(insight.name, answer), error: null, hint: null };
    } catch (err) {
      if (!isRefusal(err)) throw err;
      result = { shown: null, error: refusalForPeople(err.message), hint: null };
    }
    return c.html(
      <Layout title={`${insight.name} · ${org.name}`} frame={frame} section="insights" flash={flash}>
        <h1>{insight.name}</h1>
        <p class="lead">{insightSummary(insight, tps)}</p>
        {insight.description && <p>{insight.description}</p>}
        <form method="get" class="row period-form">
          <PeriodPicker value={period} defaultLabel="The insight's own period" />
          <p>
            <button type="submit" class="secondary">Show</button>
          </p>
        </form>
        <section class="card result" aria-label="Result">
          <ResultPanel result={result} />
        </section>
        {canEdit(editor(c), insight) && (
          <p>
            <a href={`${insightsPath(org.id)}/${insight.id}/edit`}>Edit this insight</a>
          </p>
        )}
      </Layout>,
    );
  });
  app.get(`${p}/:id/edit`, async (c) => {
    const insight = await savedOr404(ctx, c, "insight");
    return insightForm(ctx, c, insight, c.req.query("tool") || insight.tool);
  });
  app.post(`${p}/:id/edit`, async (c) => saveOrShow(ctx, c, await savedOr404(ctx, c, "insight")));
  app.post(`${p}/:id`, async (c) => saveOrShow(ctx, c, await savedOr404(ctx, c, "insight")));
  app.post(`${p}/:id/delete`, deleteSavedAction(ctx, "insight", insightsPath));
  return app;
}
