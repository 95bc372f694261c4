/**
 * The one path a tool call takes, whichever face it came through. Both faces call `runTool`, so the same
 * question gets the same JSON; each step is a plain function below.
 */
import type { AppContext } from "../../lib/tenancy/context.ts";
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
  ctx.cohort = await namedCohort(app, ctx.org.id, input);
  const answer = await tool.run(ctx, input);
  if (ctx.cohort && guardSmallGroups(answer)) answer.notices.push(SMALL_GROUP_NOTICE);
  const final = finalizeAnswer(answer, await pipelineNotices(app, ctx, meter, answer));
  await meter.record();
  return { tool, answer: final };
}
