/**
 * The one path a question takes, whichever face asked it: the read API, MCP, the app's own pages or the
 * service's reports. `runCall` takes the face and the metering policy as arguments; each step is a plain
 * function: find the tool, authorize, meter, validate, build the context, answer (cohort, tool, small-group
 * rule: toolkit/answer.ts), the pipeline's notices, the answer rules, record the usage. The tools are passed in
 * (`Catalog`), never imported back by what they run.
 *
 * `runTool`, `runServiceTool` (and `runForApp` in pipeline/app_runs.ts) are the faces' short names for it.
 */
import type { AppContext } from "../lib/context.ts";
import { FAILURES, HttpError, invalid } from "../lib/errors.ts";
import { finalizeAnswer } from "../lib/answers/rules.ts";
import { describeZodError, formatPath } from "../lib/schemas/zod_errors.ts";
import { jsonProblem } from "../lib/schemas/json_limits.ts";
import type { CallerFace, Face, Tool } from "../toolkit/tool.ts";
import { INSIGHT_TOOLS, toolByName, TOOLS } from "../tools/registry.ts";
import { authorize } from "./caller.ts";
import type { Caller, ReadAccess } from "./access.ts";
import { type Metering, openMeter, takeRate } from "./meter.ts";
import { buildToolContext, type Catalog } from "./context.ts";
import { pipelineNotices } from "./notices.ts";
import { answerTool } from "../toolkit/answer.ts";
import { maskedNameProblem } from "../toolkit/masked_inputs.ts";

export type { Catalog } from "./context.ts";
export type { Metering } from "./meter.ts";

/** A call names no tool this caller can run: 404 over HTTP, a protocol error over MCP. */
export class ToolNotFound extends HttpError {
  constructor(readonly tool: string) {
    super(
      FAILURES.notFound.status,
      FAILURES.notFound.code,
      `no tool "${tool}"; GET /v1/read lists the tools this key can run`,
    );
  }
}

/** Every read tool, and those a saved insight may ask (tools/registry.ts declares both). */
export const CATALOG: Catalog = { tools: TOOLS, insightTools: INSIGHT_TOOLS };

export interface Call {
  face: Face;
  metering: Metering;
  /** The tools this call may name (MCP `?tools=` narrows them) and those an insight may ask. */
  catalog: Catalog;
}

/** Inputs read only once the rate is taken (the read API's body), so a refused call reads no body. */
export class LaterInput {
  constructor(readonly read: () => Promise<unknown>) {}
}

export interface ToolResult {
  tool: Tool;
  answer: Record<string, unknown>;
}

export function findTool(name: string, tools: readonly Tool[] = TOOLS): Tool {
  const tool = toolByName(name, tools);
  if (!tool) throw new ToolNotFound(name);
  return tool;
}

export function validateInput(tool: Tool, input: unknown): unknown {
  const parsed = tool.input.safeParse(input ?? {});
  if (!parsed.success) {
    throw invalid(`invalid input for ${tool.name}: ${describeZodError(parsed.error, "input")}`);
  }
  // answers echo their inputs (scope, filters): a lone surrogate would make them invalid for strict parsers
  const problem = jsonProblem(parsed.data);
  if (problem) {
    throw invalid(`invalid input for ${tool.name}: ${formatPath(problem.path, "input")}: ${problem.message}`);
  }
  // a name as answers show it masked ("signup [email]") matches nothing stored: a 422, not a silent 0
  const masked = tool.storedMasked ? null : maskedNameProblem(parsed.data);
  if (masked) throw invalid(`invalid input for ${tool.name}: ${masked}`);
  return parsed.data;
}

/**
 * Answers one question. Refusals come in step order: unknown tool (404), rate (429), allowance (402), input
 * (422). Only a caller's call is metered and recorded; a refused call records nothing.
 */
export async function runCall(
  app: AppContext,
  call: Call,
  name: string,
  rawInput: unknown,
): Promise<ToolResult> {
  const { metering } = call;
  const tool = findTool(name, call.catalog.tools);
  if (metering.kind === "caller") await takeRate(app, metering.caller);
  const raw = rawInput instanceof LaterInput ? await rawInput.read() : rawInput;
  const { access, input: toolInput } = metering.kind === "caller"
    ? authorize(metering.caller, raw, tool, app.deps.config.plans)
    : { access: metering.access, input: raw };
  // an old raw tail (compaction behind) slows every question: have it compacted, without waiting for it
  void app.tails.asked(access.org.id, access.env);
  const meter = await openMeter(app, metering, access);
  const input = validateInput(tool, toolInput);
  const ctx = await buildToolContext(app, access, call.face, meter, call.catalog);
  // one question: the tool's loads share one read of the raw tail
  const answer = await app.engine.question(() => answerTool(ctx, tool, input));
  const final = finalizeAnswer(
    answer,
    await pipelineNotices(app, ctx, metering.kind === "caller" ? meter : null, tool, answer),
  );
  if (metering.kind === "caller") await meter.record();
  return { tool, answer: final };
}

/** A read key's or a connection's call through the read API or MCP (routes/read.ts, routes/mcp.ts). */
export interface ToolCall {
  caller: Caller;
  face: CallerFace;
  /** The tools this connection offers (MCP `?tools=` narrows them); all by default. */
  tools?: readonly Tool[];
}

export function runTool(
  app: AppContext,
  call: ToolCall,
  name: string,
  rawInput: unknown,
): Promise<ToolResult> {
  return runCall(
    app,
    {
      face: call.face,
      metering: { kind: "caller", caller: call.caller, face: call.face },
      catalog: { ...CATALOG, tools: call.tools ?? CATALOG.tools },
    },
    name,
    rawInput,
  );
}

/**
 * The service asking on an organization's behalf (a scheduled or requested report): the same pipeline as a
 * caller's call, not metered, since the organization did not make the call.
 */
export function runServiceTool(
  app: AppContext,
  access: ReadAccess,
  name: string,
  rawInput: unknown,
): Promise<ToolResult> {
  return runCall(
    app,
    { face: "service", metering: { kind: "none", access }, catalog: CATALOG },
    name,
    rawInput,
  );
}
