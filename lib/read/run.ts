/**
 * The one path a tool call takes, whichever face it came through: find the tool, take a rate token, check
 * the month's allowance, validate the input, run, count, and pass the answer through the answer rules.
 * Both faces call `runTool`, so the same question gets the same JSON.
 */
import type { z } from "zod";
import type { AppContext } from "../context.ts";
import { HttpError, invalid, notFound, rateLimited } from "../errors.ts";
import type { AllowanceKind } from "../store/records.ts";
import { finalizeAnswer } from "../answers/rules.ts";
import type { Tool } from "../../tools/types.ts";
import { toolByName } from "../../tools/registry.ts";
import type { ReadPrincipal } from "./auth.ts";
import { allowanceNotice, countUsage, exhaustedMessage, usedThisMonth } from "./usage.ts";
import { buildToolContext } from "./tool_context.ts";
import { freshnessNotice } from "./freshness.ts";

export const kindOfFace = (face: "api" | "mcp"): AllowanceKind =>
  face === "api" ? "api_requests" : "assistant_requests";

export function describeIssues(error: z.ZodError): string {
  const parts = error.issues.slice(0, 3).map((i) => {
    const path = i.path.map(String).join(".") || "input";
    if (i.code === "unrecognized_keys") {
      return `${path}: unknown field(s) ${i.keys.map((k) => `"${k}"`).join(", ")}`;
    }
    return `${path}: ${i.message}`;
  });
  return parts.join("; ") + (error.issues.length > 3 ? ` (and ${error.issues.length - 3} more)` : "");
}

/** Refuses the call when this key used its per-minute calls (429 with Retry-After). */
export async function takeRate(app: AppContext, p: ReadPrincipal): Promise<void> {
  const r = await app.rates.take("read", p.key.id, app.deps.config.readKeyRatePerMinute);
  if (!r.ok) {
    throw rateLimited(
      r.retryAfterS,
      `more than ${app.deps.config.readKeyRatePerMinute} calls a minute with this key; wait ${r.retryAfterS} s`,
    );
  }
}

export function allowanceExhausted(kind: AllowanceKind, p: ReadPrincipal, now: number): HttpError {
  return new HttpError(402, "ALLOWANCE_EXHAUSTED", exhaustedMessage(kind, p.limits, now, p.org.timezone));
}

export async function runTool(
  app: AppContext,
  p: ReadPrincipal,
  name: string,
  rawInput: unknown,
  face: "api" | "mcp",
  tools?: readonly Tool[],
): Promise<Record<string, unknown>> {
  const tool = toolByName(name, tools);
  if (!tool) throw notFound(`no tool "${name}"; GET /v1/read lists the tools this key can run`);
  await takeRate(app, p);
  const now = app.deps.clock.now();
  const kind = kindOfFace(face);
  const used = await usedThisMonth(app.deps.kv, p.org, kind, now);
  if (used >= p.limits.allowances[kind]) throw allowanceExhausted(kind, p, now);
  const parsed = tool.input.safeParse(rawInput ?? {});
  if (!parsed.success) throw invalid(`invalid input for ${name}: ${describeIssues(parsed.error)}`);
  const ctx = await buildToolContext(app, p, face);
  let askedItems = false;
  const take = ctx.takeItems;
  ctx.takeItems = (n) => {
    askedItems = true;
    return take(n);
  };
  const answer = await tool.run(ctx, parsed.data);
  await countUsage(app.deps.kv, p.org, kind, 1, now);
  const extra: string[] = ctx.periodNotices.filter((n) => !answer.notices.includes(n));
  const near = allowanceNotice(kind, used + 1, p.limits, now, p.org.timezone);
  if (near) extra.push(near);
  if (askedItems) {
    const items = await usedThisMonth(app.deps.kv, p.org, "individual_items", now);
    const nearItems = allowanceNotice("individual_items", items, p.limits, now, p.org.timezone);
    if (nearItems) extra.push(nearItems);
  }
  const fresh = await freshnessNotice(app, p, answer.scope.touchpoint?.id ?? null, now);
  if (fresh) extra.push(fresh);
  return finalizeAnswer(answer, extra);
}
