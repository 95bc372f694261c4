/**
 * The step every question takes once its context is built, whichever face asked and whether it stands alone
 * or runs inside another tool (a saved insight on a dashboard): the saved cohort it names, the tool, then the
 * small-group rule over the whole answer when a cohort narrowed it. The answer rules (lib/answers/rules.ts)
 * are applied once, by `runCall`, to the answer that leaves the service.
 */
import { guardSmallGroups } from "../../lib/answers/small_groups.ts";
import type { Answer, Tool, ToolContext } from "../tool.ts";
import { namedCohort, SMALL_GROUP_NOTICE } from "./cohort.ts";

export async function answerTool(ctx: ToolContext, tool: Tool, input: unknown): Promise<Answer> {
  const cohort = await namedCohort(ctx.app, ctx.org.id, input);
  // a copy: a nested question must not leave its cohort on the context of the call around it
  const answer = await tool.run({ ...ctx, cohort }, input);
  if (cohort && guardSmallGroups(answer)) answer.notices.push(SMALL_GROUP_NOTICE);
  return answer;
}
