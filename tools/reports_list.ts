import { z } from "zod";
import {
  answerSchema,
  limitInput,
  offsetInput,
  periodInput,
  touchpointInput,
} from "../lib/answers/schema.ts";
import { listReports } from "../lib/reports/store.ts";
import { REPORT_KINDS } from "../lib/reports/types.ts";
import { defineTool } from "../toolkit/tool.ts";

const output = answerSchema({
  offset: z.number(),
  reports: z.array(z.object({
    id: z.string().describe("pass to report_get"),
    kind: z.enum(REPORT_KINDS),
    period_key: z.string().describe("ISO week (2026-W47) or month (2026-11)"),
    period: z.object({ from_date: z.string(), to_date: z.string() }),
    touchpoint: z.object({ id: z.string(), name: z.string() }),
    headline: z.string(),
    findings: z.number(),
    generated_at: z.string(),
  })),
  reports_total: z.number(),
});

export default defineTool({
  name: "reports_list",
  description:
    "Completed intelligence reports (weekly: Monday to Sunday of the week before, in the organization's " +
    "timezone; monthly: the month before), newest first, each with a one-line headline and its number of " +
    "findings. Filter by touchpoint, kind (weekly or monthly) and period (reports whose period overlaps it); " +
    "page with offset (25 at most per answer). Open one with report_get.",
  input: z.object({
    touchpoint: touchpointInput.optional(),
    kind: z.enum(REPORT_KINDS).optional(),
    period: periodInput.optional(),
    limit: limitInput.optional(),
    offset: offsetInput.optional(),
  }).strict(),
  output,
  async run(ctx, input) {
    const touchpoint = input.touchpoint ? ctx.touchpoint(input.touchpoint) : null;
    const period = input.period ? ctx.period(input.period) : null;
    const offset = input.offset ?? 0;
    const all = (await listReports(ctx.app.deps.kv, ctx.org.id, ctx.env)).filter((r) =>
      (!touchpoint || r.touchpoint === touchpoint.id) && (!input.kind || r.kind === input.kind) &&
      (!period ||
        (r.scope.period!.from_date <= period.to_date && r.scope.period!.to_date >= period.from_date))
    );
    return {
      scope: ctx.scope({ period, touchpoint, traffic: "visitors (bots and AI agents left out)" }),
      offset,
      reports: all.slice(offset, offset + (input.limit ?? 25)).map((r) => ({
        id: r.id,
        kind: r.kind,
        period_key: r.period_key,
        period: { from_date: r.scope.period!.from_date, to_date: r.scope.period!.to_date },
        touchpoint: { id: r.touchpoint, name: r.touchpoint_name },
        headline: r.headline,
        findings: r.findings.length,
        generated_at: r.generated_at,
      })),
      reports_total: all.length,
      notices: [],
    };
  },
});
