/**
 * The one path a tool call takes, whichever face it came through. Both faces call `runTool`, so the same
 * question gets the same JSON; each step is a plain function below.
 */
import type { AppContext } from "../../lib/context.ts";
import { HttpError, invalid } from "../../lib/errors.ts";
import { finalizeAnswer } from "../../lib/answers/rules.ts";
import { describeZodError, formatPath } from "../../lib/schemas/zod_errors.ts";
import { jsonProblem } from "../../lib/schemas/json_limits.ts";
import type { Face, Tool } from "../tool.ts";
import { toolByName, TOOLS } from "../registry.ts";
import { authorize } from "./caller.ts";
import type { Caller } from "./access.ts";
import { meterUsage } from "./meter.ts";
import { buildToolContext } from "./context.ts";
import { pipelineNotices } from "./notices.ts";
import { namedCohort, SMALL_GROUP_NOTICE } from "./cohort.ts";
import { guardSmallGroups } from "../../lib/answers/small_groups.ts";
import type { ReadAccess } from "./access.ts";
import { UsageMeter } from "../../lib/usage/meter.ts";

/** A call names no tool this caller can run: 404 over HTTP, a protocol error over MCP. */
export class ToolNotFound extends HttpError {
  constructor(readonly tool: string) {
    super(404, "NOT_FOUND", `no tool "${tool}"; GET /v1/read lists the tools this key can run`);
  }
}

export interface ToolCall {
  caller: Caller;
  face: Face;
  /** The tools this connection offers (MCP `?tools=` narrows them); all by default. */
  tools?: readonly Tool[];
  /** The caller's per-minute token was taken already (the HTTP route takes it before reading the body). */
  rateTaken?: boolean;
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
  return parsed.data;
}

export async function runTool(
  app: AppContext,
  call: ToolCall,
  name: string,
  rawInput: unknown,
): Promise<ToolResult> {
  const tool = findTool(name, call.tools);
  const { access, input: toolInput } = authorize(call.caller, rawInput, tool, app.deps.config.plans);
  const meter = await meterUsage(app, call.caller, access, call.face, !call.rateTaken);
  const input = validateInput(tool, toolInput);
  const ctx = await buildToolContext(app, access, call.face, meter);
  const final = await answerCall(app, tool, input, ctx, meter);
  await meter.record();
  return { tool, answer: final };
}

/** What every call does once its access and usage are settled: the cohort, the tool, the answer rules. */
async function answerCall(
  app: AppContext,
  tool: Tool,
  input: unknown,
  ctx: Awaited<ReturnType<typeof buildToolContext>>,
  meter: UsageMeter,
): Promise<Record<string, unknown>> {
  ctx.cohort = await namedCohort(app, ctx.org.id, input);
  const answer = await tool.run(ctx, input);
  if (ctx.cohort && guardSmallGroups(answer)) answer.notices.push(SMALL_GROUP_NOTICE);
  return finalizeAnswer(answer, await pipelineNotices(app, ctx, meter, answer));
}

/**
 * The service asking on an organization's behalf (a scheduled or requested report): the same tools, input
 * checks, context and answer rules as a caller's call, without a per-minute rate or allowance, since the
 * organization did not make the call.
 */
export async function runServiceTool(
  app: AppContext,
  access: ReadAccess,
  name: string,
  rawInput: unknown,
): Promise<ToolResult> {
  const tool = findTool(name);
  const input = validateInput(tool, rawInput);
  const meter = await UsageMeter.unmetered(app.deps.kv, access.org, access.limits, app.deps.clock.now());
  const ctx = await buildToolContext(app, access, "api", meter);
  return { tool, answer: await answerCall(app, tool, input, ctx, meter) };
}
