/**
 * Rule 5 over a whole answer asked under a saved cohort, driven by the answer's schema: the fields each tool
 * declares as counts of a group (group_counts.ts) are the ones guarded, so a new field is guarded by being
 * declared, wherever it sits.
 *
 * - Every declared count of 1 to 4 reads "fewer than 5" (a compared figure side by side, its change then
 *   withheld).
 * - Where an object's group size (its visitors) is 1 to 4, its other counts read "fewer than 5" whatever
 *   they are (they would tell the group's size), its times are withheld and a value it names is not named.
 * - A declared rate (a conversion or drop-off rate, a share) is withheld (null) where the group's size or a
 *   count it is worked out from reads 1 to 4: multiplied back, it would tell that count.
 * - A count with its own group size (`sizeOf`: a name's previous events beside its previous visitors) reads
 *   "fewer than 5" where that size is 1 to 4; a count that is part of another (`partOf`: conversions of
 *   visitors) is withheld (null), with its rates, where the two are 1 to 4 apart.
 *
 * `guardedOutputSchema` widens a tool's published output schema to match: exactly the fields this pass may
 * change.
 */
import type { z } from "zod";
import { FEWER_THAN_5, isFew } from "./privacy.ts";
import {
  declarationOf,
  GROUP_COUNT_KEYWORD,
  GROUP_RATE_MARK,
  type GroupCountMeta,
  TIME_FIELD,
} from "./group_counts.ts";
import { type FieldsOf, walkBesideSchema } from "./schema_fields.ts";

export const SMALL_GROUP_NOTICE =
  'under a saved cohort, groups of 1 to 4 visitors read "fewer than 5": their times are withheld and the ' +
  "values they sent are not named";

const fewOrSmall = (v: unknown) => isFew(v) || v === FEWER_THAN_5;
export const isCompared = (
  v: unknown,
): v is Record<string, unknown> & { value: unknown; previous: unknown } =>
  !!v && typeof v === "object" && !Array.isArray(v) && "value" in v && "previous" in v;
const SIDES = ["value", "previous"] as const;

/** The declared counts of an object, by field. */
export function countsOf(obj: Record<string, unknown>, fields: FieldsOf): Map<string, GroupCountMeta> {
  const out = new Map<string, GroupCountMeta>();
  for (const k of Object.keys(obj)) {
    const schema = fields[k];
    const meta = schema ? declarationOf(schema) : null;
    if (meta?.counts) out.set(k, meta);
  }
  return out;
}

/** The declared rates of an object, by field, each with the counts it is worked out from. */
export function ratesOf(obj: Record<string, unknown>, fields: FieldsOf): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const k of Object.keys(obj)) {
    const schema = fields[k];
    const meta = schema ? declarationOf(schema) : null;
    if (meta?.rateOf) out.set(k, meta.rateOf);
  }
  return out;
}

/**
 * Whether a rate of the object is withheld on a side ("plain" for a plain figure) or, in a list of rates, at
 * an index: when the group's size there is 1 to 4, or a count the rate is worked out from reads 1 to 4.
 */
export function rateWithheld(
  obj: Record<string, unknown>,
  sides: Set<string>,
  of: string[],
  side: "plain" | "value" | "previous",
  index?: number,
): boolean {
  if (sides.has("plain") || sides.has(side)) return true;
  return of.some((f) => {
    const c = obj[f];
    if (index !== undefined) return Array.isArray(c) && fewOrSmall(c[index]);
    if (isCompared(c)) return side !== "plain" && fewOrSmall(c[side]);
    return fewOrSmall(c);
  });
}

/** Which sides of the object's group are 1 to 4 visitors: "plain" for a plain count, else compared sides. */
export function smallSides(obj: Record<string, unknown>, counts: Map<string, GroupCountMeta>): Set<string> {
  const out = new Set<string>();
  for (const [k, meta] of counts) {
    if (!meta.size) continue;
    const v = obj[k];
    if (fewOrSmall(v)) out.add("plain");
    else if (isCompared(v)) { for (const s of SIDES) if (fewOrSmall(v[s])) out.add(s); }
  }
  return out;
}

type Side = "plain" | "value" | "previous";

/**
 * The sides on which each count declared a part of another (`partOf`: conversions of visitors) is 1 to 4 less
 * than it, on exact figures: withheld there, with the rates worked out from it.
 */
export function partSides(
  obj: Record<string, unknown>,
  counts: Map<string, GroupCountMeta>,
): Map<string, Side[]> {
  const out = new Map<string, Side[]>();
  for (const [k, meta] of counts) {
    if (!meta.partOf) continue;
    const v = obj[k], w = obj[meta.partOf];
    const apart = (a: unknown, b: unknown) => typeof a === "number" && typeof b === "number" && isFew(b - a);
    if (apart(v, w)) out.set(k, ["plain"]);
    else if (isCompared(v) && isCompared(w)) {
      const sides = SIDES.filter((s) => apart(v[s], w[s]));
      if (sides.length) out.set(k, sides);
    }
  }
  return out;
}

/** Whether a count's own group (`sizeOf`) is 1 to 4 on a side. */
export function ownSizeSmall(obj: Record<string, unknown>, meta: GroupCountMeta, side: Side): boolean {
  if (!meta.sizeOf) return false;
  const size = obj[meta.sizeOf];
  if (isCompared(size)) return side !== "plain" && fewOrSmall(size[side]);
  return fewOrSmall(size);
}

/** A count as it may be shown: 1 to 4 (or any count but 0 of a small group) reads "fewer than 5". */
function guardCount(v: unknown, groupSmall: boolean): unknown {
  if (typeof v !== "number" || v === 0) return v;
  return isFew(v) || groupSmall ? FEWER_THAN_5 : v;
}

function guardObject(o: Record<string, unknown>, fields: FieldsOf): boolean {
  const counts = countsOf(o, fields);
  const sides = smallSides(o, counts);
  const plainSmall = sides.has("plain");
  const parts = partSides(o, counts); // decided on the exact figures
  let changed = false;
  const set = (target: Record<string, unknown>, k: string, v: unknown) => {
    if (target[k] !== v) changed = true;
    target[k] = v;
  };
  for (const [k, meta] of counts) {
    const v = o[k];
    const others = !meta.size; // the group's size is guarded as a count itself
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const g = guardCount(v[i], plainSmall);
        if (g !== v[i]) v[i] = g, changed = true;
      }
    } else if (isCompared(v)) {
      const before = JSON.stringify(v);
      for (const s of SIDES) {
        set(v, s, guardCount(v[s], (others && sides.has(s)) || ownSizeSmall(o, meta, s)));
      }
      if (JSON.stringify(v) !== before && "change" in v) v.change = null;
    } else set(o, k, guardCount(v, (others && plainSmall) || ownSizeSmall(o, meta, "plain")));
  }
  // a part 1 to 4 short of its whole: withheld, with the rates worked out from it
  const rates = ratesOf(o, fields);
  for (const [k, at] of parts) {
    const v = o[k];
    if (isCompared(v)) {
      for (const s of at) if (s !== "plain") set(v, s, null);
      if ("change" in v) v.change = null;
    } else set(o, k, null);
    for (const [r, of] of rates) {
      if (!of.includes(k)) continue;
      const x = o[r];
      if (isCompared(x)) {
        for (const s of at) if (s !== "plain") set(x, s, null);
        if ("change" in x) x.change = null;
      } else if (x !== undefined) set(o, r, null);
    }
  }
  for (const [k, of] of ratesOf(o, fields)) {
    const v = o[k];
    if (Array.isArray(v)) {
      if (plainSmall) set(o, k, null);
      else {
        for (let i = 0; i < v.length; i++) {
          if (v[i] !== null && rateWithheld(o, sides, of, "plain", i)) v[i] = null, changed = true;
        }
      }
    } else if (isCompared(v)) {
      for (const s of SIDES) {
        if (v[s] === null || !rateWithheld(o, sides, of, s)) continue;
        v[s] = null;
        if ("change" in v) v.change = null;
        changed = true;
      }
    } else if (v !== null && v !== undefined && rateWithheld(o, sides, of, "plain")) set(o, k, null);
  }
  if (plainSmall) {
    for (const k of Object.keys(o)) {
      if (TIME_FIELD.test(k) && o[k] !== null && typeof o[k] !== "object") set(o, k, null);
      else if (k === "value" && typeof o[k] === "string") set(o, k, null);
    }
  }
  for (const s of SIDES) {
    if (!sides.has(s)) continue;
    for (const [k, t] of Object.entries(o)) {
      if (TIME_FIELD.test(k) && isCompared(t) && t[s] !== null) {
        t[s] = null;
        if ("change" in t) t.change = null;
        changed = true;
      }
    }
  }
  return changed;
}

/** Guards every object of an answer in place, beside the tool's output schema; true when something changed. */
export function guardSmallGroups(answer: unknown, output: z.ZodType): boolean {
  let changed = false;
  walkBesideSchema(answer, output, (obj, fields, path) => {
    if (path === "scope") return;
    changed = guardObject(obj, fields) || changed;
  });
  return changed;
}

type Json = Record<string, unknown>;
const FEWER: Json = { type: "string", const: FEWER_THAN_5 };
const NULL: Json = { type: "null" };

const widen = (s: Json | undefined, extra: Json[]): Json => s ? { anyOf: [s, ...extra] } : { anyOf: extra };
/** The mark `markGroupCounts` left on a property (under a nullable's anyOf too): what it counts, or a rate. */
const markOf = (s: Json): unknown =>
  s[GROUP_COUNT_KEYWORD] ??
    (Array.isArray(s.anyOf)
      ? (s.anyOf as Json[]).find((x) => x?.[GROUP_COUNT_KEYWORD])?.[GROUP_COUNT_KEYWORD]
      : undefined);

function unmark(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(unmark);
  if (!s || typeof s !== "object") return s;
  const out: Json = {};
  for (const [k, v] of Object.entries(s as Json)) if (k !== GROUP_COUNT_KEYWORD) out[k] = unmark(v);
  return out;
}

/** A compared figure's or a list's schema, if the property is one (under a nullable's anyOf too). */
function shapeOf(s: Json): { compared?: Json; list?: Json } {
  const options = [s, ...((s.anyOf as Json[] | undefined) ?? [])];
  for (const o of options) {
    const p = o.properties as Json | undefined;
    if (p && p.previous) return { compared: o };
    if (o.type === "array" || (Array.isArray(o.type) && o.type.includes("array"))) return { list: o };
  }
  return {};
}

/**
 * A JSON Schema (converted with `markGroupCounts`) with the fields `guardSmallGroups` may change widened:
 * declared counts may read "fewer than 5", rates (and a list of rates, or its items), times and named values
 * may be null. The marks are removed.
 */
export function guardedOutputSchema(schema: Json): Json {
  const walk = (s: unknown): unknown => {
    if (Array.isArray(s)) return s.map(walk);
    if (!s || typeof s !== "object") return s;
    const out: Json = {};
    for (const [k, v] of Object.entries(s as Json)) out[k] = k === "properties" ? props(v as Json) : walk(v);
    return out;
  };
  const props = (p: Json): Json => {
    const out: Json = {};
    for (const [k, v] of Object.entries(p)) {
      const inner = walk(v) as Json;
      const mark = markOf(v as Json);
      const marked = !!mark;
      if (!marked && !TIME_FIELD.test(k) && k !== "value") {
        out[k] = inner;
        continue;
      }
      const { compared, list } = shapeOf(inner);
      if (mark === GROUP_RATE_MARK) {
        out[k] = widenRate(inner, compared, list);
        continue;
      }
      if (compared) {
        const ip = compared.properties as Json;
        const widened = {
          ...compared,
          properties: {
            ...ip,
            value: widen(ip.value as Json, [FEWER, NULL]),
            previous: widen(ip.previous as Json, [FEWER, NULL]),
            ...(ip.change ? { change: widen(ip.change as Json, [NULL]) } : {}),
          },
        };
        out[k] = compared === inner
          ? widened
          : { ...inner, anyOf: (inner.anyOf as Json[]).map((o) => o === compared ? widened : o) };
      } else if (list && marked) {
        const widened = { ...list, items: widen(list.items as Json, [FEWER]) };
        out[k] = list === inner
          ? widened
          : { ...inner, anyOf: (inner.anyOf as Json[]).map((o) => o === list ? widened : o) };
      } else out[k] = widen(inner, [FEWER, NULL]);
    }
    return out;
  };
  return unmark(walk(schema)) as Json;
}

/** A declared rate's schema widened: null, each side of a compared rate null, a list's items null. */
function widenRate(inner: Json, compared?: Json, list?: Json): Json {
  const swap = (from: Json, to: Json): Json =>
    from === inner ? to : { ...inner, anyOf: (inner.anyOf as Json[]).map((o) => o === from ? to : o) };
  if (compared) {
    const ip = compared.properties as Json;
    return swap(compared, {
      ...compared,
      properties: {
        ...ip,
        value: widen(ip.value as Json, [NULL]),
        previous: widen(ip.previous as Json, [NULL]),
        ...(ip.change ? { change: widen(ip.change as Json, [NULL]) } : {}),
      },
    });
  }
  if (list) return widen(swap(list, { ...list, items: widen(list.items as Json, [NULL]) }), [NULL]);
  return widen(inner, [NULL]);
}
