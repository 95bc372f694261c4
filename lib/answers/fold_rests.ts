/**
 * Rule 5 by subtraction along a list whose items each keep part of the item before (a funnel's steps): a rest
 * declared with `groupRest` (group_counts.ts; a step's `dropped_off`) is the item before's count less the
 * item's own, so where it reads "fewer than 5" the two exact counts beside it would still tell it (18 less 16
 * tells 2 who dropped off). Under a saved cohort or a filter on an event property, `foldGroups` (fold.ts) runs
 * this after folding, while the figures are exact:
 *
 * - where an item's rest is 1 to 4 and its own count 5 or more, its own count is withheld (null), with its
 *   rates (each is worked out from it);
 * - the next item's rest and the rates worked out from that rest (its conversion and drop-off from the step
 *   before) are withheld too: with the next count they would add up to the withheld one;
 * - a rate beside the list, on the object holding it (a funnel's overall conversion: last step over first), is
 *   withheld when the last item's count is.
 *
 * The figures left (the rest reading "fewer than 5", the counts around it) bound the withheld count within 4,
 * as any "fewer than 5" does. The answer checker (check.ts) reads the same declaration (`restLeaks`).
 */
import type { z } from "zod";
import { isFew, SMALL_GROUP } from "./privacy.ts";
import { declarationOf } from "./group_counts.ts";
import { type FieldsOf, itemFieldsOf, walkBesideSchema } from "./schema_fields.ts";

export const REST_NOTICE = "where 1 to 4 visitors dropped off before a step, that step's visitors and the " +
  "rates worked out from them are withheld (null), so that the steps less each other do not tell them";

type Json = Record<string, unknown>;
const num = (v: unknown): v is number => typeof v === "number";

/** The declared rests of a list's items: the rest field and the count it is the rest of. */
function restsOf(fields: FieldsOf): { rest: string; of: string }[] {
  const out: { rest: string; of: string }[] = [];
  for (const [k, schema] of Object.entries(fields)) {
    const of = declarationOf(schema)?.rest;
    if (of) out.push({ rest: k, of });
  }
  return out;
}

/** The declared rates of an object's fields, each with the counts it is worked out from. */
function ratesOf(fields: FieldsOf): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [k, schema] of Object.entries(fields)) {
    const of = declarationOf(schema)?.rateOf;
    if (of) out.set(k, of);
  }
  return out;
}

/** Each list of the answer whose items declare a rest, with the object holding it. */
function listsWithRests(
  answer: Json,
  output: z.ZodType,
  fn: (holder: Json, holderFields: FieldsOf, items: Json[], fields: FieldsOf) => void,
): void {
  walkBesideSchema(answer, output, (obj, fields, path) => {
    if (path === "scope") return;
    for (const [k, schema] of Object.entries(fields)) {
      const items = obj[k], item = itemFieldsOf(schema);
      if (!Array.isArray(items) || !item || !restsOf(item).length) continue;
      fn(obj, fields, items as Json[], item);
    }
  });
}

/** Withholds the counts a small rest would be told by (see above), in place; true when something changed. */
export function withholdRests(answer: Json, output: z.ZodType): boolean {
  let changed = false;
  listsWithRests(answer, output, (holder, holderFields, items, fields) => {
    const rates = ratesOf(fields);
    for (const { rest, of } of restsOf(fields)) {
      // decided on the exact figures first, then withheld
      const withheld = items.map((x, k) =>
        k > 0 && isFew(x[rest]) && num(x[of]) && x[of] >= SMALL_GROUP && num(items[k - 1][of])
      );
      withheld.forEach((w, k) => {
        if (!w) return;
        const item = items[k], next = items[k + 1];
        item[of] = null;
        for (const r of rates.keys()) if (item[r] !== undefined) item[r] = null;
        if (next) {
          if (next[rest] !== undefined) next[rest] = null;
          for (const [r, from] of rates) if (from.includes(rest) && next[r] !== undefined) next[r] = null;
        }
        if (k === items.length - 1) {
          for (const r of ratesOf(holderFields).keys()) if (holder[r] !== undefined) holder[r] = null;
        }
        changed = true;
      });
    }
  });
  if (changed) {
    const notices = answer.notices as string[] | undefined;
    if (Array.isArray(notices) && !notices.includes(REST_NOTICE)) notices.push(REST_NOTICE);
  }
  return changed;
}

/**
 * For the answer checker: where an item's count, or the one before, is shown or adds up from the next item's
 * count and rest, and the two differ by 1 to 4 (under a filter no list may), by path.
 */
export function restLeaks(answer: Json, output: z.ZodType): string[] {
  const out: string[] = [];
  listsWithRests(answer, output, (_holder, _fields, items, fields) => {
    for (const { rest, of } of restsOf(fields)) {
      const known = (k: number): number | null => {
        const x = items[k], next = items[k + 1];
        if (num(x[of])) return x[of] as number;
        return next && num(next[of]) && num(next[rest])
          ? (next[of] as number) + (next[rest] as number)
          : null;
      };
      for (let k = 1; k < items.length; k++) {
        const a = known(k - 1), b = known(k);
        if (a !== null && b !== null && isFew(a - b)) {
          out.push(`item ${k + 1}: ${of} ${a} less ${b} tells ${rest} ${a - b}`);
        }
      }
    }
  });
  return out;
}
