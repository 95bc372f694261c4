import { z } from "zod";
import { answerSchema, touchpointInput } from "../lib/answers/schema.ts";
import { getReport, listReports } from "../lib/reports/store.ts";
import { REPORT_KINDS } from "../lib/reports/types.ts";
import { invalid } from "../lib/errors.ts";
import { defineTool } from "../toolkit/tool.ts";

const value = z.union([z.number(), z.string(), z.null()]);
const report = z.object({
  id: z.string(),
  kind: z.enum(REPORT_KINDS),
  period_key: z.string(),
  generated_at: z.string().describe("reports are immutable once generated"),
  trigger: z.enum(["schedule", "request"]),
  headline: z.string(),
  summary: z.string().describe("three to five sentences written from the findings"),
  findings: z.array(z.object({
    kind: z.string(),
    claim: z.string(),
    numbers: z.record(z.string(), value),
    reproduce: z.array(z.object({ tool: z.string(), input: z.record(z.string(), z.unknown()) })).describe(
      "the tool calls that show the finding; run them to see the same numbers",
    ),
  })).max(25),
  findings_total: z.number(),
  notes: z.array(z.string()).describe("what the report could not ask, when anything"),
});

const output = answerSchema({
  report: report.nullable().describe("null when no report is complete yet (without an id)"),
});

export default defineTool({
  name: "report_get",
  description:
    "One completed intelligence report: by id (from reports_list), or without one the newest (of " +
    "`touchpoint` and `kind` when given). Gives its scope, a short summary, and its findings (headline " +
    "changes, pages that rose or fell, sources and AI answer engines, crawlers that started or stopped, pages " +
    "no crawler read, Core Web Vitals regressions, review themes), each a claim with its numbers and the tool " +
    "calls that reproduce it. A finding appears only when it clears the report's thresholds, so a quiet week " +
    "has few or none.",
  input: z.object({
    id: z.string().min(1).max(200).optional().describe("the report's id; omitted: the newest"),
    touchpoint: touchpointInput.optional(),
    kind: z.enum(REPORT_KINDS).optional(),
  }).strict(),
  output,
  async run(ctx, input) {
    const kv = ctx.app.deps.kv;
    const touchpoint = input.touchpoint ? ctx.touchpoint(input.touchpoint) : null;
    let r;
    if (input.id) {
      r = await getReport(kv, ctx.org.id, ctx.env, input.id);
      // an id that names no report is input to change (422); the read API's 404 means "no such tool"
      if (!r) throw invalid(`id: no report "${input.id}" in ${ctx.env}; reports_list lists them`);
    } else {
      r = (await listReports(kv, ctx.org.id, ctx.env)).find((x) =>
        (!touchpoint || x.touchpoint === touchpoint.id) && (!input.kind || x.kind === input.kind)
      ) ?? null;
    }
    if (!r) {
      return {
        scope: ctx.scope({ period: null, touchpoint, traffic: "visitors (bots and AI agents left out)" }),
        report: null,
        notices: [
          `no completed report in ${ctx.env} yet: weekly reports are made each Monday for the week before`,
        ],
      };
    }
    return {
      scope: r.scope,
      report: {
        id: r.id,
        kind: r.kind,
        period_key: r.period_key,
        generated_at: r.generated_at,
        trigger: r.trigger,
        headline: r.headline,
        summary: r.summary,
        findings: r.findings.map((f) => ({
          kind: f.kind,
          claim: f.claim,
          numbers: f.numbers,
          reproduce: f.reproduce,
        })),
        findings_total: r.findings.length,
        notes: r.notes,
      },
      notices: [],
    };
  },
});
