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
import type { Org, Touchpoint } from "../../lib/store/records.ts";
import { listReviews } from "../../lib/feedback/store.ts";
import { formatDate, localDateOf, parseDate, startOfLocalDay } from "../../lib/time/dates.ts";
import { can } from "../../lib/people/roles.ts";
import { generateFor, REPORT_ENV } from "../../pipeline/reports_generate.ts";
import {
  closedPeriods,
  headlineText,
  periodOfKey,
  periodText,
  periodTitle,
  type ReportPeriod,
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

/** Weeks and months "Generate now" looks back over. */
const WEEKS_BACK = 26, MONTHS_BACK = 12;

/**
 * The first local day ("2026-10-28") a touchpoint can be reported from, as lib/reports/generate.ts decides:
 * a period is made when it ends on or after the day the website or app was added, or when it has data
 * (visitors, crawler requests not spoofed, an app's reviews) from before it. Looked at from `since` (the oldest
 * period offered) to that day; null when the creation day is unknown (every period is then made).
 */
async function reportableFrom(
  ctx: AppContext,
  org: Org,
  tp: Touchpoint,
  since: string,
): Promise<string | null> {
  const at = Date.parse(tp.created_at ?? "");
  if (!Number.isFinite(at)) return null;
  const added = formatDate(localDateOf(at, org.timezone));
  if (added <= since) return added;
  // the data before a touchpoint was added changes only by an import: looked at again after a few minutes, so
  // the page does not scan up to a year of events each time it is opened (~0.8 s on the demo)
  const key = `${org.id}/${tp.id}/${org.timezone}/${since}`;
  const now = ctx.deps.clock.now();
  const kept = FIRST_DATA.get(key);
  if (kept && now - kept.at < FIRST_DATA_MS) return kept.day;
  const day = await firstDataDay(ctx, org, tp, since, added);
  if (FIRST_DATA.size >= 1000) FIRST_DATA.clear();
  FIRST_DATA.set(key, { day, at: now });
  return day;
}

/** Recent answers of reportableFrom, per organization, touchpoint and oldest day looked at. */
const FIRST_DATA = new Map<string, { day: string; at: number }>();
const FIRST_DATA_MS = 5 * 60_000;

/** The first day with data from `since` up to the day the touchpoint was `added`; that day when none. */
async function firstDataDay(
  ctx: AppContext,
  org: Org,
  tp: Touchpoint,
  since: string,
  added: string,
): Promise<string> {
  const from = startOfLocalDay(parseDate(since)!, org.timezone);
  const to = startOfLocalDay(parseDate(added)!, org.timezone);
  const day = (ms: number) => formatDate(localDateOf(ms, org.timezone));
  const base = { org: org.id, env: REPORT_ENV, touchpoint: tp.id, from, to, timezone: org.timezone };
  const [events, hits, reviews] = await Promise.all([
    ctx.engine.aggregate({ ...base, traffic: ["human"], filters: [] }, {
      metrics: ["events"],
      bucket: "day",
    }),
    tp.kind === "website"
      ? ctx.engine.hitsAggregate(
        { ...base, filters: [{ field: "verification", op: "neq", value: "spoofed" }] },
        { metrics: ["first_seen_at"] },
      )
      : null,
    tp.kind === "website" ? [] : firstReviews(ctx, org.id, tp.id),
  ]);
  const days = [added];
  for (const r of events.rows) {
    if ((r.metrics.events ?? 0) > 0 && typeof r.key.bucket === "string") days.push(r.key.bucket.slice(0, 10));
  }
  const hit = hits?.totals.first_seen_at;
  if (typeof hit === "number") days.push(day(hit));
  for (const ms of reviews) if (ms >= from && ms < to) days.push(day(ms));
  return days.sort()[0];
}

/** The earliest review time of each of the touchpoint's apps (none when it has none). */
async function firstReviews(ctx: AppContext, org: string, touchpoint: string): Promise<number[]> {
  const apps = (await listApps(ctx.deps.kv, org)).filter((a) => a.touchpoint === touchpoint);
  const out: number[] = [];
  for (const a of apps) {
    const reviews = await listReviews(ctx.deps.kv, org, a.id);
    if (reviews.length) out.push(Math.min(...reviews.map((r) => r.created_at)));
  }
  return out;
}

interface Offered {
  kind: ReportKind;
  period: ReportPeriod;
  /** the names of the websites and apps it can be made for, when not all of them */
  only: string[] | null;
}

/**
 * The closed weeks and months a report can be made of for at least one of the touchpoints, newest first, each
 * with the touchpoints it is for when not all: the ones that ended before a touchpoint's first data (and its
 * creation) are refused, so they are not offered.
 */
async function offeredPeriods(ctx: AppContext, org: Org, tps: Touchpoint[]): Promise<Offered[]> {
  const now = ctx.deps.clock.now();
  const weeks = closedPeriods("weekly", now, org.timezone, WEEKS_BACK);
  const months = closedPeriods("monthly", now, org.timezone, MONTHS_BACK);
  const since = [weeks[weeks.length - 1].from, months[months.length - 1].from].sort()[0];
  const starts = await Promise.all(tps.map((t) => reportableFrom(ctx, org, t, since)));
  const out: Offered[] = [];
  for (const [kind, list] of [["weekly", weeks], ["monthly", months]] as const) {
    for (const period of list) {
      const can = tps.filter((_, i) => starts[i] === null || period.to >= starts[i]!);
      if (can.length) {
        out.push({
          kind,
          period,
          only: can.length < tps.length ? can.map((t) => t.name) : null,
        });
      }
    }
  }
  return out;
}

/** An offered period's words: "Last week: 16–22 Nov 2026", "Week of 9–15 Nov 2026 (Acme site only)". */
function offeredText(o: Offered, newest: boolean): string {
  const lead = o.kind === "weekly" ? (newest ? "Last week: " : "Week of ") : (newest ? "Last month: " : "");
  const only = o.only ? ` (${o.only.join(", ")} only)` : "";
  return `${lead}${periodText(o.period.period)}${only}`;
}

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
    const active = touchpoints.filter((t) => !t.archived);
    const generating = can.manageSettings(role) && active.length > 0;
    const offered = generating ? await offeredPeriods(ctx, org, active) : [];
    const last = (kind: ReportKind) => closedPeriods(kind, ctx.deps.clock.now(), org.timezone, 1)[0].key;
    const options = (kind: ReportKind) =>
      offered.filter((o) => o.kind === kind).map((o, i) => (
        <option value={`${kind}:${o.period.key}`} selected={kind === "weekly" && i === 0}>
          {offeredText(o, o.period.key === last(kind))}
        </option>
      ));
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
        {generating && (
          <>
            <h2 id="generate">Generate now</h2>
            {offered.length === 0
              ? (
                <p class="card">
                  No week or month has ended since{" "}
                  {active.length === 1 ? active[0].name : "your websites and apps"}{" "}
                  {active.length === 1 ? "was" : "were"}{" "}
                  added. The first weekly report is made on the Monday after its first full week.
                </p>
              )
              : (
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
                        {active.map((t) => <option value={t.id}>{t.name}</option>)}
                      </select>
                    </div>
                    <div class="field">
                      <label for="report-period">Period</label>
                      <select id="report-period" name="period">
                        {offered.some((o) => o.kind === "weekly") && (
                          <optgroup label="Weeks (Monday to Sunday)">{options("weekly")}</optgroup>
                        )}
                        {offered.some((o) => o.kind === "monthly") && (
                          <optgroup label="Months">{options("monthly")}</optgroup>
                        )}
                      </select>
                    </div>
                  </div>
                  <div>
                    <button type="submit">Generate report</button>
                  </div>
                </form>
              )}
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
