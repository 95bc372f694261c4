/**
 * The step every question takes once its context is built, whichever face asked and whether it stands alone
 * or runs inside another tool (a saved insight on a dashboard): the saved cohort it names, the tool, then the
 * small-group rule over the whole answer when a cohort or a filter on an event property narrowed it, driven by
 * the fields the tool's output schema declares as counts of a group. The answer rules (lib/answers/rules.ts)
 * are applied once, by `runCall`, to the answer that leaves the service.
 */
import { guardSmallGroups, SMALL_GROUP_NOTICE } from "../lib/answers/small_groups.ts";
import { FOLD_NOTICE, foldGroups, guardPartsOfFew } from "../lib/answers/fold.ts";
import type { Answer, Tool, ToolContext } from "./tool.ts";
import { namedCohort } from "./cohort.ts";

export async function answerTool(ctx: ToolContext, tool: Tool, input: unknown): Promise<Answer> {
  const cohort = await namedCohort(ctx.app, ctx.org.id, input);
  // a copy: a nested question must not leave its cohort on the context of the call around it
  const answer = await tool.run({ ...ctx, cohort }, input);
  // Under a saved cohort or a filter on an event property (the answer's scope names either), rule 5 reads the
  // fields the tool's output schema declares (lib/answers/group_counts.ts): breakdowns that split a shown
  // whole are folded first, while their figures are exact, then every count of a small group is guarded.
  if (cohort === null && !answer.scope?.filter) return answer;
  const folded = foldGroups(answer, tool.output);
  const counts = guardSmallGroups(answer, tool.output);
  // the parts of a whole that now reads "fewer than 5" read so too (an "(other)" would give it back)
  const guarded = guardPartsOfFew(answer, tool.output) || counts;
  if (folded && !answer.notices.includes(FOLD_NOTICE)) answer.notices.push(FOLD_NOTICE);
  if (cohort !== null && guarded && !answer.notices.includes(SMALL_GROUP_NOTICE)) {
    answer.notices.push(SMALL_GROUP_NOTICE);
  }
  return answer;
}
