/**
 * The input a saved insight asks its tool with, in one place for the app's pages and behavior_saved: the saved
 * input, the period asked for, and the website or app the insight belongs to, named the way the tool names
 * one. The behavior tools take `touchpoint`; the feedback tools take `app` and no touchpoint, and find an app
 * by its touchpoint, so an insight of an iOS or Android touchpoint asks about that app, and one of a website
 * asks about every own app (a website has no reviews of its own).
 */
import type { TouchpointKind } from "../store/records.ts";
import type { SavedInsight } from "./records.ts";

export interface InsightTool {
  /** whether the tool's input has a `touchpoint` field */
  takesTouchpoint: boolean;
  /** whether the tool's input has an `app` field */
  takesApp: boolean;
}

export function insightToolInput(
  insight: Pick<SavedInsight, "input" | "touchpoint">,
  tool: InsightTool,
  touchpointKind: TouchpointKind | null,
  period?: string,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...insight.input };
  if (tool.takesTouchpoint) out.touchpoint = insight.touchpoint;
  else if (
    tool.takesApp && out.app === undefined && touchpointKind !== null && touchpointKind !== "website"
  ) {
    out.app = insight.touchpoint;
  }
  if (period) out.period = period;
  return out;
}
