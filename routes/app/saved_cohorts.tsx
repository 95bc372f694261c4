/**
 * Cohorts: the list (every member), a form that builds the definition row by row (or as JSON for nested
 * ones) with a live "exactly N visitors in the last 30 days" preview, changing and deleting (the author, owners
 * and admins). Saved through the domain functions behavior_saved reads.
 */
import { Hono } from "hono";
import type { AppContext } from "../../lib/context.ts";
import { HttpError } from "../../lib/errors.ts";
import { canEdit, createSaved, getSaved, listSaved, updateSaved } from "../../lib/saved/store.ts";
import { describeDefinition } from "../../lib/saved/definition.ts";
import type { SavedCohort } from "../../lib/saved/records.ts";
import { FEWER_THAN_5, guardedVisitors } from "../../lib/answers/privacy.ts";
import { previewCohort } from "../../pipeline/app_runs.ts";
import { type AppEnv, type C, field, isRefusal, orgMember, pageFlash, redirectWith } from "./http.ts";
import { CsrfField, Layout, orgPath } from "./layout.tsx";
import { Table } from "./table.tsx";
import { frameOf } from "./frame.ts";
import {
  definitionFromForm,
  emptyRow,
  KINDS,
  readRows,
  type Row,
  ROWS,
  rowsOf,
  WINDOWS,
} from "./saved_form.ts";
import {
  activeTouchpoints,
  deleteSavedAction,
  editor,
  editorStart,
  SAVED_JS,
  SavedBasics,
  savedOr404,
  SavedRowEnd,
  saveOptions,
} from "./saved_common.tsx";

export const cohortsPath = (org: string) => orgPath(org, "cohorts");

const KIND_LABEL: Record<(typeof KINDS)[number], string> = {
  event: "an event",
  page: "a page",
  first_touch: "first came from",
  country: "country",
  device: "device",
};
const WINDOW_LABEL: Record<(typeof WINDOWS)[number], string> = {
  period: "in the period asked about",
  "7": "in the last 7 days",
  "30": "in the last 30 days",
  "90": "in the last 90 days",
};

/**
 * The fields a condition shows depend on what it checks (the stylesheet's :has rules, COHORT_CSS): a page
 * has its match and a count, an event its property and a count, the others only their values; an empty
 * condition shows only its first row, and a condition after an empty one is hidden until that one is used.
 */
export const COHORT_CSS = `
fieldset.condition .k-page, fieldset.condition .k-ft, fieldset.condition .k-event, fieldset.condition .k-min,
fieldset.condition .k-value, fieldset.condition .k-when, fieldset.condition .k-more { display: none; }
fieldset.condition:has(option[value="page"]:checked) .k-page,
fieldset.condition:has(option[value="first_touch"]:checked) .k-ft,
fieldset.condition:has(option[value="event"]:checked) .k-event,
fieldset.condition:has(option[value="event"]:checked) .k-min,
fieldset.condition:has(option[value="page"]:checked) .k-min { display: grid; }
fieldset.condition:not(:has(select[name$="_kind"] option[value=""]:checked)) .k-value,
fieldset.condition:not(:has(select[name$="_kind"] option[value=""]:checked)) .k-when { display: grid; }
fieldset.condition:not(:has(select[name$="_kind"] option[value=""]:checked)) .k-more { display: flex; }
fieldset.condition:has(select[name$="_kind"] option[value=""]:checked)
  ~ fieldset.condition:has(select[name$="_kind"] option[value=""]:checked) { display: none; }
`;

const ConditionRow = ({ i, r }: { i: number; r: Row }) => (
  <fieldset class="card condition">
    <legend>Condition {i + 1}</legend>
    <div class="row">
      <label>
        Visitors who
        <select name={`c${i}_mode`}>
          <option value="did" selected={r.mode === "did"}>did / match</option>
          <option value="not" selected={r.mode === "not"}>did not / do not match</option>
        </select>
      </label>
      <label>
        Check
        <select name={`c${i}_kind`}>
          <option value="" selected={r.kind === ""}>(nothing)</option>
          {KINDS.map((k) => <option value={k} selected={r.kind === k}>{KIND_LABEL[k]}</option>)}
        </select>
      </label>
      <label class="k-value">
        Value
        <input
          type="text"
          name={`c${i}_value`}
          value={r.value}
          placeholder="sign_up, /pricing, DE, mobile…"
        />
      </label>
    </div>
    <div class="row k-more">
      <label class="k-page">
        Page match
        <select name={`c${i}_page_match`}>
          <option value="exact" selected={r.page_match === "exact"}>exact path</option>
          <option value="prefix" selected={r.page_match === "prefix"}>starts with</option>
        </select>
      </label>
      <label class="k-ft">
        First-touch field
        <select name={`c${i}_field`}>
          {(["source", "channel", "campaign"] as const).map((f) => (
            <option value={f} selected={r.field === f}>{f}</option>
          ))}
        </select>
      </label>
      <label class="k-event">
        Event property
        <input type="text" name={`c${i}_prop_name`} value={r.prop_name} placeholder="plan" />
      </label>
      <label class="k-event">
        equals
        <input type="text" name={`c${i}_prop_value`} value={r.prop_value} placeholder="pro" />
      </label>
      <label class="k-min">
        At least (times)
        <input type="number" min="1" name={`c${i}_min`} value={r.min} />
      </label>
      <label class="k-when">
        When
        <select name={`c${i}_window`}>
          {WINDOWS.map((w) => <option value={w} selected={r.window === w}>{WINDOW_LABEL[w]}</option>)}
        </select>
      </label>
    </div>
  </fieldset>
);

interface Values {
  name: string;
  description: string;
  touchpoint?: string;
  match: "all" | "any";
  rows: Row[];
  json: string;
}

function valuesOf(cohort: SavedCohort | null): Values {
  const flat = cohort ? rowsOf(cohort.definition) : null;
  return {
    name: cohort?.name ?? "",
    description: cohort?.description ?? "",
    touchpoint: cohort?.touchpoint,
    match: flat?.match ?? "all",
    rows: flat?.rows ?? Array.from({ length: ROWS }, emptyRow),
    json: cohort && !flat ? JSON.stringify(cohort.definition, null, 2) : "",
  };
}

/** What was posted, to show the form again with a refusal's reason. */
function valuesPosted(c: C): Values {
  const form = c.get("form");
  return {
    name: field(c, "name"),
    description: field(c, "description"),
    touchpoint: field(c, "touchpoint"),
    match: form.get("match") === "any" ? "any" : "all",
    rows: readRows(form),
    json: form.get("definition_json") ?? "",
  };
}

async function cohortForm(
  ctx: AppContext,
  c: C,
  cohort: SavedCohort | null,
  posted?: Values,
  error?: string,
  errorStatus = 422,
  /** the size asked for with the Preview button (without the script), shown in place of the live preview */
  preview?: string,
) {
  const { org, frame, flash, tps } = await editorStart(ctx, c, error);
  const v = posted ?? valuesOf(cohort);
  const action = cohort ? `${cohortsPath(org.id)}/${cohort.id}` : cohortsPath(org.id);
  return c.html(
    <Layout
      title={`${cohort ? "Edit" : "New"} cohort · ${org.name}`}
      frame={frame}
      section="cohorts"
      flash={flash}
    >
      <h1>{cohort ? `Edit cohort “${cohort.name}”` : "New cohort"}</h1>
      <form
        method="post"
        action={action}
        class="stack"
        id="cohort-form"
        data-preview={`${cohortsPath(org.id)}/preview`}
      >
        <CsrfField csrf={frame.csrf} />
        <SavedBasics tps={tps} name={v.name} touchpoint={v.touchpoint} description={v.description} />
        <label>
          Visitors must match
          <select name="match">
            <option value="all" selected={v.match === "all"}>all conditions (and)</option>
            <option value="any" selected={v.match === "any"}>any condition (or)</option>
          </select>
        </label>
        {v.rows.map((r, i) => <ConditionRow i={i} r={r} />)}
        <details open={v.json.trim() !== ""}>
          <summary>
            Advanced: the definition as JSON (nested all / any / not); used instead of the rows when filled
          </summary>
          <label>
            Definition (JSON)
            <textarea name="definition_json" rows={8}>{v.json}</textarea>
          </label>
        </details>
        <p id="cohort-preview" class="card" role="status" aria-live="polite">
          {preview ??
            (cohort
              ? "Change a condition to see the size."
              : "Fill in a condition to see how many visitors match.")}
        </p>
        <p>
          <button type="submit" id="save-cohort">{cohort ? "Save changes" : "Create cohort"}</button>{" "}
          <button
            type="submit"
            class="secondary"
            formaction={`${cohortsPath(org.id)}/preview?page=1${cohort ? `&id=${cohort.id}` : ""}`}
          >
            Preview
          </button>
        </p>
      </form>
      <script src="/app/assets/saved.js" defer></script>
    </Layout>,
    (error ? errorStatus : 200) as 200,
  );
}

/** Saves, then lists; a refusal shows the form again with what was posted and why (422). */
async function saveOrShow(ctx: AppContext, c: C, cohort: SavedCohort | null) {
  const org = c.get("org");
  const body = {
    name: field(c, "name"),
    description: field(c, "description"),
    touchpoint: field(c, "touchpoint"),
  };
  try {
    const definition = definitionFromForm(c.get("form"));
    const o = await saveOptions(ctx, c);
    const saved = cohort
      ? await updateSaved(o, "cohort", cohort.id, { ...body, definition })
      : await createSaved(o, "cohort", { ...body, definition });
    return await redirectWith(ctx, c, cohortsPath(org.id), { notice: `Cohort “${saved.name}” saved.` });
  } catch (err) {
    if (isRefusal(err)) {
      return cohortForm(ctx, c, cohort, valuesPosted(c), err.message, err.status);
    }
    throw err;
  }
}

const sizeText = (n: number) => {
  const g = guardedVisitors(n, true);
  return g === FEWER_THAN_5
    ? "fewer than 5 visitors in the last 30 days"
    : `exactly ${g.toLocaleString("en-US")} visitor${g === 1 ? "" : "s"} in the last 30 days`;
};

export function cohortsRoutes(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { kv } = ctx.deps;
  const p = "/o/:org/cohorts";
  app.use(p, orgMember(ctx, "member"));
  app.use(`${p}/*`, orgMember(ctx, "member"));
  app.get("/assets/saved.js", () =>
    new Response(SAVED_JS, {
      headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=300" },
    }));

  app.get(p, async (c) => {
    const org = c.get("org");
    const frame = (await frameOf(ctx, c))!;
    const { flash } = await pageFlash(ctx, c);
    const me = editor(c);
    const tps = await activeTouchpoints(ctx, org.id);
    const items = await listSaved(kv, org.id, "cohort");
    return c.html(
      <Layout title={`Cohorts · ${org.name}`} frame={frame} section="cohorts" flash={flash}>
        <h1>Cohorts</h1>
        <p class="lead">
          Named groups of visitors. Ask any behavior question about a cohort only (choose it under “Only
          visitors in the cohort” in an insight, or name it to an assistant); its counts are exact, and groups
          of 1 to 4 visitors read “fewer than 5”.
        </p>
        <p>
          <a class="button" href={`${cohortsPath(org.id)}/new`}>New cohort</a>
        </p>
        {items.length === 0
          ? <p>No cohorts yet.</p>
          : (
            <Table columns={["Name", "Visitors who", "Website or app", "Updated"]} actions>
              {items.map((x) => (
                <tr>
                  <td>
                    {canEdit(me, x) ? <a href={`${cohortsPath(org.id)}/${x.id}`}>{x.name}</a> : x.name}
                  </td>
                  <td>{describeDefinition(x.definition)}</td>
                  <SavedRowEnd
                    item={x}
                    tps={tps}
                    me={me}
                    action={`${cohortsPath(org.id)}/${x.id}/delete`}
                    csrf={frame.csrf}
                  />
                </tr>
              ))}
            </Table>
          )}
      </Layout>,
    );
  });

  app.get(`${p}/new`, (c) => cohortForm(ctx, c, null));

  // the live preview (the form's script posts here); ?page=1 answers without the script, as a page
  app.post(`${p}/preview`, async (c) => {
    const org = c.get("org");
    let text: string, ok = true;
    try {
      const n = await previewCohort(ctx, org, field(c, "touchpoint"), definitionFromForm(c.get("form")));
      text = sizeText(n);
    } catch (err) {
      if (!(err instanceof HttpError) || err.status >= 500) throw err;
      text = err.message;
      ok = false;
    }
    if (c.req.query("page")) {
      // without the script: the same form again, with what was typed and the size beside it
      const id = c.req.query("id");
      const cohort = id ? await getSaved(kv, org.id, "cohort", id) : null;
      return cohortForm(ctx, c, cohort, valuesPosted(c), undefined, 200, text);
    }
    return c.json({ ok, text });
  });

  app.post(p, (c) => saveOrShow(ctx, c, null));

  app.get(`${p}/:id`, async (c) => cohortForm(ctx, c, await savedOr404(ctx, c, "cohort")));
  app.post(`${p}/:id`, async (c) => saveOrShow(ctx, c, await savedOr404(ctx, c, "cohort")));
  app.post(`${p}/:id/delete`, deleteSavedAction(ctx, "cohort", cohortsPath));
  return app;
}
