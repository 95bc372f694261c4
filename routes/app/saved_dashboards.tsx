/**
 * Dashboards: a named, ordered list of insights. The editor picks insights and their order; the view asks
 * behavior_saved for each insight's headline figures (the same answer an assistant gets) and draws each
 * insight's first list as a small bar chart (SVG rendered on the server, lib/charts).
 */
import { Hono } from "hono";
import type { AppContext } from "../../lib/context.ts";
import { canEdit, createSaved, listSaved, updateSaved } from "../../lib/saved/store.ts";
import type { SavedDashboard } from "../../lib/saved/records.ts";
import { runForApp } from "../../pipeline/app_runs.ts";
import { type AppEnv, type C, field, isRefusal, orgMember, pageFlash, redirectWith } from "./http.ts";
import { CsrfField, Layout, orgPath, PostButton } from "./layout.tsx";
import { frameOf } from "./frame.ts";
import {
  activeTouchpoints,
  deleteSavedAction,
  editor,
  editorStart,
  SavedBasics,
  savedOr404,
  saveOptions,
} from "./saved_common.tsx";
import { insightInput, insightsPath, insightSummary, questionLabel } from "./saved_insights.tsx";
import { AnswerBlock, showAnswer } from "./answer_view.tsx";
import { periodFromForm, PeriodPicker } from "./period_picker.tsx";

export const dashboardsPath = (org: string) => orgPath(org, "dashboards");

async function editorPage(
  ctx: AppContext,
  c: C,
  d: SavedDashboard | null,
  error?: string,
  errorStatus = 422,
) {
  const { org, frame, flash, tps } = await editorStart(ctx, c, error);
  const insights = await listSaved(ctx.deps.kv, org.id, "insight");
  const form = error ? c.get("form") : null;
  const chosen = form ? form.getAll("insight") : d?.insights ?? [];
  const pos = (id: string) => form ? form.get(`pos_${id}`) ?? "" : String(chosen.indexOf(id) + 1 || "");
  return c.html(
    <Layout
      title={`${d ? "Edit" : "New"} dashboard · ${org.name}`}
      frame={frame}
      section="dashboards"
      flash={flash}
    >
      <h1>{d ? `Edit dashboard “${d.name}”` : "New dashboard"}</h1>
      {insights.length === 0
        ? (
          <p>
            Save an insight first: <a href={`${insightsPath(org.id)}/new`}>new insight</a>.
          </p>
        )
        : (
          <form
            method="post"
            action={d ? `${dashboardsPath(org.id)}/${d.id}/edit` : dashboardsPath(org.id)}
            class="stack"
          >
            <CsrfField csrf={frame.csrf} />
            <SavedBasics
              tps={tps}
              name={form ? field(c, "name") : d?.name ?? ""}
              touchpoint={form ? field(c, "touchpoint") : d?.touchpoint}
              description={form ? field(c, "description") : d?.description ?? ""}
            />
            <fieldset class="card">
              <legend>Insights, in order (1 first)</legend>
              {insights.map((i) => (
                <div class="row">
                  <label class="check">
                    <input type="checkbox" name="insight" value={i.id} checked={chosen.includes(i.id)} />{" "}
                    {i.name} <span class="muted">({questionLabel(i.tool)})</span>
                  </label>
                  <label>
                    Position of {i.name}
                    <input type="number" min="1" max="25" name={`pos_${i.id}`} value={pos(i.id)} />
                  </label>
                </div>
              ))}
            </fieldset>
            <p>
              <button type="submit">{d ? "Save changes" : "Create dashboard"}</button>
            </p>
          </form>
        )}
    </Layout>,
    (error ? errorStatus : 200) as 200,
  );
}

/** The chosen insights, ordered by their position fields (unnumbered last, in list order). */
function orderedInsights(form: URLSearchParams): string[] {
  const ids = form.getAll("insight");
  const at = (id: string) => {
    const n = Number(form.get(`pos_${id}`));
    return Number.isFinite(n) && n > 0 ? n : 1000;
  };
  return ids.map((id, k) => ({ id, k })).sort((a, b) => at(a.id) - at(b.id) || a.k - b.k).map((x) => x.id);
}

async function saveOrShow(ctx: AppContext, c: C, d: SavedDashboard | null) {
  const org = c.get("org");
  const body = {
    name: field(c, "name"),
    description: field(c, "description"),
    touchpoint: field(c, "touchpoint"),
    insights: orderedInsights(c.get("form")),
  };
  try {
    const o = await saveOptions(ctx, c);
    const saved = d ? await updateSaved(o, "dashboard", d.id, body) : await createSaved(o, "dashboard", body);
    return await redirectWith(ctx, c, `${dashboardsPath(org.id)}/${saved.id}`, {
      notice: `Dashboard “${saved.name}” saved.`,
    });
  } catch (err) {
    if (isRefusal(err)) {
      return editorPage(ctx, c, d, err.message, err.status);
    }
    throw err;
  }
}

export function dashboardsRoutes(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { kv } = ctx.deps;
  const p = "/o/:org/dashboards";
  app.use(p, orgMember(ctx, "member"));
  app.use(`${p}/*`, orgMember(ctx, "member"));

  app.get(p, async (c) => {
    const org = c.get("org");
    const frame = (await frameOf(ctx, c))!;
    const { flash } = await pageFlash(ctx, c);
    const me = editor(c);
    const items = await listSaved(kv, org.id, "dashboard");
    return c.html(
      <Layout title={`Dashboards · ${org.name}`} frame={frame} section="dashboards" flash={flash}>
        <h1>Dashboards</h1>
        <p class="lead">Saved insights side by side, with their headline figures.</p>
        <p>
          <a class="button" href={`${dashboardsPath(org.id)}/new`}>New dashboard</a>
        </p>
        {items.length === 0 ? <p>No dashboards yet.</p> : (
          <ul class="card">
            {items.map((x) => (
              <li>
                <a href={`${dashboardsPath(org.id)}/${x.id}`}>{x.name}</a>{" "}
                <span class="muted">({x.insights.length} insight{x.insights.length === 1 ? "" : "s"})</span>
                {canEdit(me, x) && (
                  <>
                    {" "}
                    <a href={`${dashboardsPath(org.id)}/${x.id}/edit`}>Edit</a>{" "}
                    <PostButton
                      action={`${dashboardsPath(org.id)}/${x.id}/delete`}
                      csrf={frame.csrf}
                      label="Delete"
                      confirm={`Delete the dashboard “${x.name}”?`}
                    />
                  </>
                )}
              </li>
            ))}
          </ul>
        )}
      </Layout>,
    );
  });

  app.get(`${p}/new`, (c) => editorPage(ctx, c, null));
  app.post(p, (c) => saveOrShow(ctx, c, null));

  const load = (c: C) => savedOr404(ctx, c, "dashboard");
  app.get(`${p}/:id/edit`, async (c) => editorPage(ctx, c, await load(c)));
  app.post(`${p}/:id/edit`, async (c) => saveOrShow(ctx, c, await load(c)));
  app.post(`${p}/:id/delete`, deleteSavedAction(ctx, "dashboard", dashboardsPath));

  app.get(`${p}/:id`, async (c) => {
    const org = c.get("org");
    const d = await load(c);
    const frame = (await frameOf(ctx, c))!;
    const { flash } = await pageFlash(ctx, c);
    const q = (k: string) => c.req.query(k) ?? "";
    let period = "", periodError: string | null = null;
    try {
      period = periodFromForm(q);
    } catch (err) {
      if (!isRefusal(err)) throw err;
      periodError = err.message;
    }
    const tps = await activeTouchpoints(ctx, org.id);
    const byId = new Map((await listSaved(kv, org.id, "insight")).map((i) => [i.id, i]));
    // each insight asked through its own tool, so a tile has the whole answer (every bucket of a series)
    const tiles = await Promise.all(
      d.insights.slice(0, 25).map(async (id) => {
        const insight = byId.get(id);
        if (!insight) {
          return {
            name: "(removed insight)",
            insight: null,
            shown: null,
            error: "This insight was deleted.",
          };
        }
        try {
          const answer = await runForApp(ctx, org, insight.tool, insightInput(insight, tps, period));
          return { name: insight.name, insight, shown: await showAnswer(insight.name, answer), error: null };
        } catch (err) {
          if (!isRefusal(err)) throw err;
          return { name: insight.name, insight, shown: null, error: err.message };
        }
      }),
    );
    return c.html(
      <Layout title={`${d.name} · ${org.name}`} frame={frame} section="dashboards" flash={flash}>
        <h1>{d.name}</h1>
        {d.description && <p class="lead">{d.description}</p>}
        <form method="get" class="row period-form">
          <PeriodPicker value={period} defaultLabel="Each insight's own period" />
          <p>
            <button type="submit" class="secondary">Show</button>
          </p>
        </form>
        {periodError && <p class="flash error" role="alert">{periodError}</p>}
        <div class="dashboard">
          {tiles.map((t, i) => (
            <section class="card insight" aria-labelledby={`insight-${i}`}>
              <h2 id={`insight-${i}`}>{t.name}</h2>
              {t.insight && (
                <p class="muted">
                  {insightSummary(t.insight, tps)}
                  {t.shown?.period && !insightSummary(t.insight, tps).includes(t.shown.period)
                    ? ` · ${t.shown.period}`
                    : ""} · <a href={`${insightsPath(org.id)}/${t.insight.id}`}>Open</a>
                </p>
              )}
              {t.error
                ? <p class="flash error">{t.error}</p>
                : t.shown && <AnswerBlock shown={t.shown} compact />}
            </section>
          ))}
        </div>
        {canEdit(editor(c), d) && (
          <p>
            <a href={`${dashboardsPath(org.id)}/${d.id}/edit`}>Edit this dashboard</a>
          </p>
        )}
      </Layout>,
    );
  });
  return app;
}
