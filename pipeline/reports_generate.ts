/**
 * Report generation wired to the tools: the `ask` lib/reports uses runs each read tool on the tools pipeline
 * (runServiceTool: the same input checks, context and answer rules an assistant's call gets), for the
 * organization's production environment. Also the scheduled job (every hour: each active touchpoint's last
 * closed week and month, when not stored yet; a stored one's failed mails are tried again) and "generate
 * now" for the app.
 */
import type { AppContext } from "../lib/context.ts";
import type { Job } from "../lib/jobs/schedule.ts";
import { keys } from "../lib/store/keys.ts";
import type { EnvName, Org, Touchpoint } from "../lib/store/records.ts";
import { resolvePlanLimits } from "../lib/tenancy/plans.ts";
import { listTouchpoints } from "../lib/tenancy/admin.ts";
import { type Generated, generateReport } from "../lib/reports/generate.ts";
import { lastClosedPeriod, type ReportPeriod } from "../lib/reports/periods.ts";
import { mailReport } from "../lib/reports/mail.ts";
import type { Ask } from "../lib/reports/findings/common.ts";
import { type Report, REPORT_KINDS, type ReportKind } from "../lib/reports/types.ts";
import { runServiceTool } from "./run.ts";

/** Reports are of the production environment: what the organization's visitors and crawlers did. */
export const REPORT_ENV: EnvName = "production";

export function serviceAsk(app: AppContext, org: Org, env: EnvName = REPORT_ENV): Ask {
  const access = { org, env, limits: resolvePlanLimits(org.plan, app.deps.config.plans), readable: [org] };
  return async (tool, input) => (await runServiceTool(app, access, tool, input)).answer;
}

export async function generateFor(
  app: AppContext,
  org: Org,
  touchpoint: Touchpoint,
  period: ReportPeriod,
  trigger: Report["trigger"],
  /** the app's origin when a person asked for it (mail links; PUBLIC_URL wins) */
  origin: string | null = null,
): Promise<Generated> {
  const g = await generateReport(app.deps, {
    org,
    env: REPORT_ENV,
    touchpoint,
    period,
    trigger,
    ask: serviceAsk(app, org),
  });
  // A stored report too: its mail may have failed when it completed (retried within MAIL_RETRY_MS).
  if (g.state === "created" || g.state === "exists") await mailReport(app.deps, g.report, origin);
  return g;
}

/** "Generate now" in the app: the last closed period of a kind (a stored one is returned as it is). */
export function generateNow(
  app: AppContext,
  org: Org,
  touchpoint: Touchpoint,
  kind: ReportKind,
  origin: string | null = null,
) {
  return generateFor(
    app,
    org,
    touchpoint,
    lastClosedPeriod(kind, app.deps.clock.now(), org.timezone),
    "request",
    origin,
  );
}

/** The job body: every due report of every active organization; returns how many were created. */
export async function generateDueReports(app: AppContext): Promise<number> {
  const { deps } = app;
  let created = 0;
  for await (const e of deps.kv.list<Org>({ prefix: keys.orgs() })) {
    const org = e.value;
    if (!org.active) continue;
    const now = deps.clock.now();
    const tps = (await listTouchpoints(deps, org.id)).filter((t) => !t.archived);
    for (const tp of tps) {
      for (const kind of REPORT_KINDS) {
        const period = lastClosedPeriod(kind, now, org.timezone);
        try {
          const g = await generateFor(app, org, tp, period, "schedule");
          if (g.state === "created") created++;
        } catch (err) {
          deps.log.error("report generation failed", {
            org: org.id,
            touchpoint: tp.id,
            kind,
            period: period.key,
            error: String(err).slice(0, 300),
          });
        }
      }
    }
  }
  return created;
}

const HOUR = 3_600_000;

/** Hourly, so Monday 00:00 in every timezone is met within the hour; a stored report is only read. */
export function reportJobs(app: AppContext): Job[] {
  return [{
    name: "generate weekly and monthly reports",
    schedule: "23 * * * *",
    periodMs: HOUR,
    maxRunMs: 50 * 60_000,
    run: async () => {
      const n = await generateDueReports(app);
      if (n) app.deps.log.info("reports generated", { reports: n });
    },
  }];
}
