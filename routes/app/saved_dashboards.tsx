/**
 * Dashboards: a named, ordered list of insights. The editor picks insights and their order; the view asks
 * behavior_saved for each insight's headline figures (the same answer an assistant gets) and draws each
 * insight's first list as a small bar chart (SVG rendered on the server, lib/charts).
 */
import { Hono } from "hono";
import { raw } from "hono/html";
import type { AppContext } from "../../lib/context.ts";
import { canEdit, createSaved, listSaved, updateSaved } from "../../lib/saved/store.ts";
import type { SavedDashboard } from "../../lib/saved/records.ts";
import { PERIOD_PATTERN } from "../../lib/answers/period.ts";
import { renderChart } from "../../lib/charts/charts.ts";
import { runForApp } from "../../tools/app_runs.ts";
import { type AppEnv, type C, field, isRefusal, orgMember, pageFlash, redirectWith } from "./http.ts";
import { CsrfField, Layout, orgPath, PostButton } from "./layout.tsx";
import { frameOf } from "./frame.ts";
import {
  activeTouchpoints,
  deleteSavedAction,
  editor,
  SavedBasics,
  savedOr404,
  saveOptions,
} from "./saved_common.tsx";
import { insightsPath } from "./saved_insights.tsx";

export const dashboardsPath = (org: string) => orgPath(org, "dashboards");

interface Figure {
  name: string;
  value: number | string | null;
  previous?: number | string | null;
  change?: number | null;
}
interface Shown {
  name: string;
  tool: string | null;
  figures: Figure[];
  chart: { field: string; measure: string; points: { label: string; value: number }[] } | null;
  scope_filter: string | null;
  error: string | null;
}

const label = (s: string) => s.replaceAll("_", " ");
const show = (v: unknown) =>
  v === null || v === undefined ? "—" : typeof v === "number" ? v.toLocaleString("en") : String(v);
const changeText = (c: number | null | undefined) =>
  c === null || c === undefined ? "" : ` (${c > 0 ? "+" : ""}${Math.round(c * 1000) / 10}%)`;

async function editorPage(
  ctx: AppContext,
  c: C,
  d: SavedDashboard | null,
  error?: string,
  errorStatus = 422,
) {
  const org = c.get("org");
  const frame = (await frameOf(ctx, c))!;
  const { flash } = error ? { flash: { error } } : await pageFlash(ctx, c);
  const tps = await activeTouchpoints(ctx, org.id);
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
                    {i.name} <span class="muted">({i.tool})</span>
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
    const period = c.req.query("period");
    const answer = await runForApp(ctx, org, "behavior_saved", {
      action: "dashboard",
      name: d.id,
      ...(period && PERIOD_PATTERN.test(period) ? { period } : {}),
    });
    const shown = (answer.dashboard as { insights: Shown[] }).insights;
    const charts = await Promise.all(shown.map((s) =>
      s.chart && s.chart.points.length
        ? renderChart({
          kind: "bar",
          title: `${s.name}: ${label(s.chart.measure)} by ${label(s.chart.field)}`,
          bars: s.chart.points,
          x_label: label(s.chart.measure),
          width: 480,
        })
        : Promise.resolve(null)
    ));
    const scope = answer.scope as { period: { from_date: string; to_date: string } | null };
    return c.html(
      <Layout title={`${d.name} · ${org.name}`} frame={frame} section="dashboards" flash={flash}>
        <h1>{d.name}</h1>
        {d.description && <p class="lead">{d.description}</p>}
        <form method="get" class="row">
          <label>
            Period
            <select name="period">
              <option value="" selected={!period}>each insight's own (default last 28 days)</option>
              {["last_7_days", "last_28_days", "last_30_days", "last_90_days", "this_month", "last_month"]
                .map((x) => <option value={x} selected={x === period}>{label(x)}</option>)}
            </select>
          </label>
          <p>
            <button type="submit" class="secondary">Show</button>
          </p>
        </form>
        {scope.period && (
          <p class="muted">
            Insights that name no period of their own cover {scope.period.from_date} to{" "}
            {scope.period.to_date}.
          </p>
        )}
        <div class="dashboard">
          {shown.map((s, i) => (
            <section class="card insight" aria-labelledby={`insight-${i}`}>
              <h2 id={`insight-${i}`}>{s.name}</h2>
              {s.tool && <p class="muted">{s.tool}{s.scope_filter ? ` · ${s.scope_filter}` : ""}</p>}
              {s.error ? <p class="flash error">{s.error}</p> : (
                <>
                  {s.figures.length > 0 && (
                    <dl class="figures">
                      {s.figures.map((f) => (
                        <div>
                          <dt>{label(f.name)}</dt>
                          <dd>
                            {show(f.value)}
                            {f.previous !== undefined && f.previous !== null && (
                              <span class="muted">vs {show(f.previous)}{changeText(f.change)}</span>
                            )}
                          </dd>
                        </div>
                      ))}
                    </dl>
                  )}
                  {charts[i] && <figure class="chart">{raw(charts[i])}</figure>}
                </>
              )}
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
