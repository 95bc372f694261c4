/**
 * Reports in the app: the list (every member), "generate now" (owners and admins), mail opt-in (each member
 * for themselves), and a report's printable page with its charts drawn on the server (lib/charts).
 */
import { Hono } from "hono";
import type { AppContext } from "../../lib/context.ts";
import { invalid, notFound } from "../../lib/errors.ts";
import { listTouchpoints } from "../../lib/tenancy/admin.ts";
import { getReport, listReports } from "../../lib/reports/store.ts";
import { listApps } from "../../lib/feedback/store.ts";
import { mailOptedIn, setMailOptIn } from "../../lib/reports/mail.ts";
import { type Report, REPORT_KINDS, type ReportKind } from "../../lib/reports/types.ts";
import { can } from "../../lib/people/roles.ts";
import { generateFor, REPORT_ENV } from "../../pipeline/reports_generate.ts";
import {
  closedPeriods,
  headlineText,
  periodOfKey,
  periodText,
  periodTitle,
} from "../../lib/reports/periods.ts";
import { act, type AppEnv, baseUrl, field, orgMember, pageFlash } from "./http.ts";
import { CsrfField, Layout, orgPath, PostButton } from "./layout.tsx";
import { Table } from "./table.tsx";
import { frameOf } from "./frame.ts";
import { ReportView } from "./report_view.tsx";
import { reportCharts } from "./report_charts.ts";

const path = (org: string) => orgPath(org, "reports");
/** "week of 16–22 Nov 2026", "October 2026": inside a sentence. */
const title = (r: Report) => periodTitle(r.kind, r.period).replace(/^Week of/, "week of");

export function reportsRoutes(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { kv } = ctx.deps;
  app.use("/o/:org/reports", orgMember(ctx, "member"));
  app.use("/o/:org/reports/*", orgMember(ctx, "member"));

  app.get("/o/:org/reports", async (c) => {
    const org = c.get("org");
    const role = c.get("membership")!.role;
    const frame = (await frameOf(ctx, c))!;
    const { flash } = await pageFlash(ctx, c);
    const [reports, touchpoints, mail] = await Promise.all([
      listReports(kv, org.id, REPORT_ENV),
      listTouchpoints(ctx.deps, org.id),
      mailOptedIn(kv, org.id, c.get("auth")!.user.id),
    ]);
    return c.html(
      <Layout title={`Reports · ${org.name}`} frame={frame} section="reports" flash={flash}>
        <h1>Reports</h1>
        <p class="lead">
          Weekly (Monday to Sunday,{" "}
          {org.timezone}) and monthly reports of each website and app: what changed and what the data shows,
          each finding with the question that reproduces it.
        </p>
        {reports.length === 0
          ? <p class="card">No report yet. Weekly reports are made each Monday for the week before.</p>
          : (
            <Table columns={["Report", "Touchpoint", "Headline"]} id="reports">
              {reports.map((r) => (
                <tr>
                  <td>
                    <a href={`${path(org.id)}/${r.id}`}>
                      {periodTitle(r.kind, r.period)}
                    </a>
                  </td>
                  <td>{r.touchpoint_name}</td>
                  <td>{headlineText(r)}</td>
                </tr>
              ))}
            </Table>
          )}
        {can.manageSettings(role) && touchpoints.some((t) => !t.archived) && (
          <>
            <h2 id="generate">Generate now</h2>
            <form
              method="post"
              action={`${path(org.id)}/generate`}
              class="card stack"
              aria-labelledby="generate"
            >
              <CsrfField csrf={frame.csrf} />
              <div class="row">
                <div class="field">
                  <label for="report-touchpoint">Website or app</label>
                  <select id="report-touchpoint" name="touchpoint">
                    {touchpoints.filter((t) => !t.archived).map((t) => (
                      <option value={t.id}>{t.name}</option>
                    ))}
                  </select>
                </div>
                <div class="field">
                  <label for="report-period">Period</label>
                  <select id="report-period" name="period">
                    <optgroup label="Weeks (Monday to Sunday)">
                      {closedPeriods("weekly", ctx.deps.clock.now(), org.timezone, 26).map((p, i) => (
                        <option value={`weekly:${p.key}`} selected={i === 0}>
                          {i === 0 ? "Last week: " : "Week of "}
                          {periodText(p.period)}
                        </option>
                      ))}
                    </optgroup>
                    <optgroup label="Months">
                      {closedPeriods("monthly", ctx.deps.clock.now(), org.timezone, 12).map((p, i) => (
                        <option value={`monthly:${p.key}`}>
                          {i === 0 ? "Last month: " : ""}
                          {periodText(p.period)}
                        </option>
                      ))}
                    </optgroup>
                  </select>
                </div>
              </div>
              <div>
                <button type="submit">Generate report</button>
              </div>
            </form>
          </>
        )}
        <h2 id="mail">By mail</h2>
        <div class="card">
          <p>
            {mail
              ? "You get each new report of this organization by mail."
              : "Get each new report of this organization by mail."}
          </p>
          <PostButton
            action={`${path(org.id)}/mail`}
            csrf={frame.csrf}
            label={mail ? "Stop report mail" : "Send me reports by mail"}
            fields={{ on: mail ? "0" : "1" }}
          />
        </div>
      </Layout>,
    );
  });

  app.post("/o/:org/reports/generate", (c) => {
    const org = c.get("org");
    const role = c.get("membership")!.role;
    return act(ctx, c, path(org.id), async () => {
      if (!can.manageSettings(role)) throw invalid("only owners and admins can generate a report");
      // "weekly:2026-W47" from the period list; a form of before ("kind" alone) means the last closed one
      const [kindField, key] = field(c, "period") ? field(c, "period").split(":") : [field(c, "kind"), ""];
      const kind = kindField as ReportKind;
      if (!REPORT_KINDS.includes(kind)) throw invalid("period: choose a week or a month from the list");
      const tp = (await listTouchpoints(ctx.deps, org.id)).find((t) => t.id === field(c, "touchpoint"));
      if (!tp || tp.archived) throw invalid("touchpoint: choose one of the organization's websites and apps");
      const last = closedPeriods(kind, ctx.deps.clock.now(), org.timezone, 1)[0];
      const period = key ? periodOfKey(kind, key) : last;
      if (!period) throw invalid(`period: "${key}" is not a week (2026-W47) or a month (2026-11)`);
      if (period.to > last.to) throw invalid("period: only a week or month that has ended can be reported");
      const g = await generateFor(ctx, org, tp, period, "request", baseUrl(ctx, c));
      if (g.state === "not_due") {
        throw invalid(`period: no report for it: ${g.reason}. Choose a later week or month.`);
      }
      if (g.state === "busy") return "That report is being generated right now; it appears here in a moment.";
      return g.state === "created"
        ? `Report of ${tp.name}, ${title(g.report)}, generated.`
        : `Report of ${tp.name}, ${title(g.report)}, was already there; reports never change once made.`;
    });
  });

  app.post("/o/:org/reports/mail", (c) => {
    const org = c.get("org");
    const on = field(c, "on") === "1";
    return act(ctx, c, path(org.id), async () => {
      await setMailOptIn(kv, org.id, c.get("auth")!.user.id, on);
      return on ? "You will get new reports by mail." : "Report mail turned off.";
    });
  });

  app.get("/o/:org/reports/:id", async (c) => {
    const org = c.get("org");
    const report = await getReport(kv, org.id, REPORT_ENV, c.req.param("id"));
    if (!report) throw notFound("no such report");
    const frame = (await frameOf(ctx, c))!;
    const [charts, touchpoints, apps] = await Promise.all([
      reportCharts(report),
      listTouchpoints(ctx.deps, org.id),
      listApps(kv, org.id),
    ]);
    const names = {
      touchpoints: new Map(touchpoints.map((t) => [t.id, t.name])),
      apps: new Map(apps.map((a) => [a.id, a.name])),
    };
    return c.html(
      <Layout title={`${headlineText(report)} · ${org.name}`} frame={frame} section="reports">
        <p class="no-print">
          <a href={path(org.id)}>← All reports</a>
        </p>
        <ReportView report={report} charts={charts} names={names} />
      </Layout>,
    );
  });

  return app;
}
