/**
 * The cohort definition people save: conditions on what visitors did, combined with all / any / not, each
 * over the question's period or a window the condition states. `toCohortExpr` turns one into the engine's
 * definition (lib/query) with absolute windows for one question.
 */
import { z } from "zod";
import type { CohortExpr, Filter } from "../query/api.ts";
import { addDays, localDateOf, parseDate, startOfLocalDay } from "../time/dates.ts";
import { urlPath } from "../url_path.ts";

const DATE = /^\d{4}-\d{2}-\d{2}$/;

export const windowSchema = z.union([
  z.strictObject({ period: z.literal(true) }).describe("the question's period (the default)"),
  z.strictObject({ last_days: z.number().int().min(1).max(400) }).describe(
    "the last N days up to now, today included, whatever period is asked",
  ),
  z.strictObject({
    from: z.string().regex(DATE, "a date YYYY-MM-DD"),
    to: z.string().regex(DATE, "a date YYYY-MM-DD"),
  }).describe("fixed calendar days, both included"),
]);
export type CohortWindow = z.infer<typeof windowSchema>;

const minCount = z.number().int().min(1).max(1000).describe("at least this many times (default 1)");

const eventCondition = z.strictObject({
  kind: z.literal("event"),
  event: z.string().min(1).max(120).describe("event name, e.g. sign_up or $pageview"),
  property: z.strictObject({
    name: z.string().min(1).max(120),
    op: z.enum(["eq", "neq", "contains", "in"]),
    value: z.union([z.string().max(500), z.array(z.string().max(500)).min(1).max(50)]),
  }).optional().describe("one condition on a property of the event"),
  min_count: minCount.optional(),
  window: windowSchema.optional(),
});

const pageCondition = z.strictObject({
  kind: z.literal("page"),
  path: z.string().regex(/^\//, "a path starting with /").max(1024).optional(),
  prefix: z.string().regex(/^\//, "a path starting with /").max(1024).optional()
    .describe("every page under it, e.g. /docs/"),
  min_count: minCount.optional(),
  window: windowSchema.optional(),
}).refine((c) => (c.path === undefined) !== (c.prefix === undefined), {
  message: "give either path or prefix",
});

const firstTouchCondition = z.strictObject({
  kind: z.literal("first_touch"),
  field: z.enum(["source", "channel", "campaign"]),
  values: z.array(z.string().min(1).max(200)).min(1).max(50),
  window: windowSchema.optional(),
}).describe("the source, channel or campaign of the visitor's first event in the window");

const placeCondition = z.strictObject({
  kind: z.literal("country"),
  values: z.array(z.string().regex(/^[A-Z]{2}$/, "a two-letter country code")).min(1).max(50),
  window: windowSchema.optional(),
}).describe("visited from one of these countries");

const deviceCondition = z.strictObject({
  kind: z.literal("device"),
  values: z.array(z.enum(["desktop", "mobile", "tablet"])).min(1),
  window: windowSchema.optional(),
});

export const conditionSchema = z.union([
  eventCondition,
  pageCondition,
  firstTouchCondition,
  placeCondition,
  deviceCondition,
]);
export type Condition = z.infer<typeof conditionSchema>;

export type CohortNode = Condition | { all: CohortNode[] } | { any: CohortNode[] } | { not: CohortNode };

export const nodeSchema: z.ZodType<CohortNode> = z.lazy(() =>
  z.union([
    conditionSchema,
    z.strictObject({ all: z.array(nodeSchema).min(1).max(10) }),
    z.strictObject({ any: z.array(nodeSchema).min(1).max(10) }),
    z.strictObject({ not: nodeSchema }),
  ])
);

const MAX_CONDITIONS = 12, MAX_DEPTH = 4;

function shape(n: CohortNode, depth = 1): { conditions: number; depth: number } {
  if ("all" in n || "any" in n) {
    const kids = ("all" in n ? n.all : n.any).map((k) => shape(k, depth + 1));
    return {
      conditions: kids.reduce((s, k) => s + k.conditions, 0),
      depth: Math.max(depth, ...kids.map((k) => k.depth)),
    };
  }
  if ("not" in n) return shape(n.not, depth + 1);
  return { conditions: 1, depth };
}

/** A definition: the tree, at most 12 conditions and 4 levels deep; fixed windows in order. */
export const definitionSchema = nodeSchema.superRefine((n, ctx) => {
  const s = shape(n);
  if (s.conditions > MAX_CONDITIONS) {
    ctx.addIssue({ code: "custom", message: `at most ${MAX_CONDITIONS} conditions` });
  }
  if (s.depth > MAX_DEPTH) {
    ctx.addIssue({ code: "custom", message: `at most ${MAX_DEPTH} levels of all / any / not` });
  }
  for (const c of conditionsOf(n)) {
    const w = c.window;
    if (w && "from" in w) {
      const a = parseDate(w.from), b = parseDate(w.to);
      if (!a || !b) {
        ctx.addIssue({ code: "custom", message: `window ${w.from}..${w.to}: not a calendar date` });
      } else if (w.from > w.to) {
        ctx.addIssue({ code: "custom", message: `window ${w.from}..${w.to}: from is after to` });
      }
    }
  }
});

export function conditionsOf(n: CohortNode): Condition[] {
  if ("all" in n) return n.all.flatMap(conditionsOf);
  if ("any" in n) return n.any.flatMap(conditionsOf);
  if ("not" in n) return conditionsOf(n.not);
  return [n];
}

export interface QuestionTime {
  /** the question's window */
  from: number;
  to: number;
  now: number;
  timezone: string;
  /** the plan's history starts here: windows are cut to it */
  historyFrom: number;
}

function windowMs(w: CohortWindow | undefined, q: QuestionTime): { from: number; to: number } {
  let from = q.from, to = q.to;
  if (w && "last_days" in w) {
    from = startOfLocalDay(addDays(localDateOf(q.now, q.timezone), -(w.last_days - 1)), q.timezone);
    to = q.now + 1;
  } else if (w && "from" in w) {
    from = startOfLocalDay(parseDate(w.from)!, q.timezone);
    to = Math.min(startOfLocalDay(addDays(parseDate(w.to)!, 1), q.timezone), q.now + 1);
  }
  return { from: Math.max(from, q.historyFrom), to: Math.max(to, Math.max(from, q.historyFrom)) };
}

function conditionExpr(c: Condition, q: QuestionTime): CohortExpr {
  const w = windowMs(c.window, q);
  const did = (filters: Filter[], min?: number): CohortExpr => ({ did: { filters, min: min ?? 1, ...w } });
  switch (c.kind) {
    case "event": {
      const filters: Filter[] = [{ field: "event_type", op: "eq", value: c.event }];
      if (c.property) {
        filters.push({ field: `prop:${c.property.name}`, op: c.property.op, value: c.property.value });
      }
      return did(filters, c.min_count);
    }
    case "page":
      return did([
        { field: "event_type", op: "eq", value: "$pageview" },
        c.path !== undefined
          ? { field: "page", op: "eq", value: urlPath(c.path) } // as pages are stored
          : { field: "page", op: "prefix", value: urlPath(c.prefix!) },
      ], c.min_count);
    case "first_touch": {
      const field = c.field === "campaign" ? "utm_campaign" : c.field;
      return { first: { filter: { field, op: "in", value: c.values }, ...w } };
    }
    case "country":
      return did([{ field: "country", op: "in", value: c.values }]);
    case "device":
      return did([{ field: "device_type", op: "in", value: c.values }]);
  }
}

/** The engine's definition of a saved one, for one question's window. */
export function toCohortExpr(n: CohortNode, q: QuestionTime): CohortExpr {
  if ("all" in n) return { all: n.all.map((k) => toCohortExpr(k, q)) };
  if ("any" in n) return { any: n.any.map((k) => toCohortExpr(k, q)) };
  if ("not" in n) return { not: toCohortExpr(n.not, q) };
  return conditionExpr(n, q);
}

const windowText = (w: CohortWindow | undefined) =>
  !w || "period" in w
    ? ""
    : "last_days" in w
    ? ` in the last ${w.last_days} days`
    : ` between ${w.from} and ${w.to}`;
const times = (n: number | undefined) => (n && n > 1 ? ` at least ${n} times` : "");

/** A definition in words, for lists and answers. */
export function describeDefinition(n: CohortNode): string {
  if ("all" in n) {
    return n.all.length === 1 ? describeDefinition(n.all[0]) : n.all.map((k) => wrap(k)).join(" and ");
  }
  if ("any" in n) {
    return n.any.length === 1 ? describeDefinition(n.any[0]) : n.any.map((k) => wrap(k)).join(" or ");
  }
  if ("not" in n) return `not ${wrap(n.not)}`;
  const c = n;
  switch (c.kind) {
    case "event": {
      const prop = c.property
        ? ` with ${c.property.name} ${c.property.op} ${[c.property.value].flat().join(", ")}`
        : "";
      return `did ${c.event}${prop}${times(c.min_count)}${windowText(c.window)}`;
    }
    case "page":
      return `viewed ${c.path ?? `${c.prefix}…`}${times(c.min_count)}${windowText(c.window)}`;
    case "first_touch":
      return `first ${c.field} ${c.values.join(" or ")}${windowText(c.window)}`;
    case "country":
      return `from ${c.values.join(" or ")}${windowText(c.window)}`;
    case "device":
      return `on ${c.values.join(" or ")}${windowText(c.window)}`;
  }
}

const wrap = (n: CohortNode) =>
  ("all" in n || "any" in n) && (("all" in n ? n.all : n.any).length > 1)
    ? `(${describeDefinition(n)})`
    : describeDefinition(n);
