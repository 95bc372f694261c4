/**
 * Rule 5 by subtraction (complementary suppression). Where a breakdown splits a whole one way each and the
 * answer shows that whole too (a country per visitor beside the visitors; a funnel split at step 1 beside
 * step 1), a group of 1 to 4 that reads "fewer than 5" would still be the whole less the other groups. Under
 * a saved cohort or a filter on an event property, the lists declared with `groupParts` (group_counts.ts) are
 * folded here, before the small-group guard (small_groups.ts) reads them:
 *
 * - a group with a count of visitors of 1 to 4 (now, the period before, at a funnel step), or a figure that
 *   reads "fewer than 5", where the whole's is 5 or more, is folded into one "(other)", which holds the whole less the groups still named (so a list cut to its top N is covered
 *   too: the rest is part of it);
 * - while (other) would hold 1 to 4 visitors in any of its figures beside a whole of 5 or more, or its
 *   visitors are not shown and none of its groups is known to hold 5 or more, the smallest named group
 *   joins it;
 * - its rates and times are withheld (null); a figure whose whole the answer does not show is null.
 *
 * A list whose items each keep part of the item before (a funnel's steps, `groupRest`) is handled after the
 * folds, by fold_rests.ts.
 *
 * `behavior_explain_change` folds its segments by the same rule in the tool (its (other) carries
 * contributions, not counts). A map of figures per group inside each point of a series (a trends split per
 * day) is a table of two levels, where a fold per point would let a named group's total, less its other
 * points, tell what one point's (other) hid: where any point would need a fold, the map is left out of every
 * point instead.
 */
import type { z } from "zod";
import { FEWER_THAN_5, isFew, SMALL_GROUP } from "./privacy.ts";
import { declarationOf, type PartsMeta } from "./group_counts.ts";
import { itemFieldsOf, walkBesideSchema } from "./schema_fields.ts";
import { restLeaks, withholdRests } from "./fold_rests.ts";
import { foldNested, nestedLeaks } from "./fold_nested.ts";
import {
  foldList,
  get,
  isObject,
  isOther,
  type Json,
  leavesOf,
  less,
  sizesOf,
  smallSize,
} from "./fold_list.ts";

export const FOLD_NOTICE =
  "groups of 1 to 4 visitors, and where needed the smallest groups beside them, are " +
  'folded into "(other)", so that no group of 1 to 4 is the total less the others; a split per period that ' +
  "would tell one is left out";

interface MapAt {
  holder: Json;
  key: string;
  meta: PartsMeta;
}

/** Whether one map of figures would tell a small group: a hidden figure, or a rest that is small (unknown). */
function mapTells(answer: Json, m: MapAt): boolean {
  const whole = m.meta.whole(answer, m.holder);
  const figures = Object.values((m.holder[m.key] ?? {}) as Json);
  if (typeof whole !== "number" || whole < SMALL_GROUP) return false; // a small whole reads "fewer than 5"
  const visitors = m.meta.visitors?.(answer) ?? false;
  if (figures.some((x) => x === FEWER_THAN_5 || (visitors && isFew(x)))) return true;
  const r = less(whole, figures.filter((x) => typeof x === "number"));
  return typeof r === "number" && (visitors ? isFew(r) : r > 0);
}

/** Whether a map names, with a figure, a group the answer names nowhere else (folded out of its list). */
function namesHidden(answer: Json, m: MapAt): boolean {
  if (!m.meta.namedIn) return false;
  const named = new Set(m.meta.namedIn(answer).filter((x) => !isOther(x)).map(String));
  return Object.entries((m.holder[m.key] ?? {}) as Json).some(([k, v]) => v !== 0 && !named.has(k));
}

/** A declared list or map of parts (`.describe` by group_counts.ts) as the answer holds it, outside its scope. */
interface PartsAt {
  obj: Json;
  key: string;
  schema: z.ZodType;
  meta: PartsMeta;
  value: unknown;
  /** where its holder stands ("" at the top) */
  path: string;
}

/** Visits each declared list or map of parts the answer holds (not null), beside the output schema. */
function eachParts(answer: Json, output: z.ZodType, visit: (at: PartsAt) => void): void {
  walkBesideSchema(answer, output, (obj, fields, path) => {
    if (path === "scope") return;
    for (const [key, schema] of Object.entries(fields)) {
      const meta = declarationOf(schema)?.parts;
      const value = obj[key];
      if (meta && value !== undefined && value !== null) visit({ obj, key, schema, meta, value, path });
    }
  });
}

/**
 * Folds every declared list of the answer in place (under a saved cohort or a filter on an event property);
 * true when something changed.
 */
export function foldGroups(answer: Json, output: z.ZodType): boolean {
  let changed = false;
  const maps = new Map<PartsMeta, MapAt[]>();
  eachParts(answer, output, ({ obj, key, schema, meta, value: v }) => {
    if (Array.isArray(v)) {
      const item = itemFieldsOf(schema);
      // a whole not shown (its row folded away): the list's groups of 1 to 4 still fold, with no figures
      const whole = meta.whole(answer, obj);
      if (!item) return;
      const folded = foldList(v as Json[], item, isObject(whole) ? whole : {}, meta.label);
      if (folded) obj[key] = folded, changed = true;
    } else if (isObject(v)) maps.set(meta, [...(maps.get(meta) ?? []), { holder: obj, key, meta }]);
  });
  for (const at of maps.values()) {
    if (!at.some((m) => mapTells(answer, m) || namesHidden(answer, m))) continue;
    for (const m of at) delete m.holder[m.key];
    changed = true;
  }
  // a list inside the groups of another (paths inside their nearest step): no parent less the children named
  // inside it tells 1 to 4 (fold_nested.ts)
  if (foldNested(answer, output)) changed = true;
  // a list whose items keep part of the item before (a funnel's steps): withheld where a rest is small, on the
  // folded lists too (it gives its own notice)
  withholdRests(answer, output);
  return changed;
}

/** Sets a figure at `path` inside `v`, where the objects on the way are there. */
function setAt(v: unknown, path: (string | number)[], to: unknown): void {
  const holder = get(v, path.slice(0, -1));
  if (holder && typeof holder === "object") (holder as Record<string | number, unknown>)[path.at(-1)!] = to;
}

/**
 * After the small-group guard: a group inside a whole that reads "fewer than 5" (1 to 4 itself, or a count of a
 * group of 1 to 4 visitors, as a cohort's pageviews are) is a group of 1 to 4 visitors too, so each figure of a
 * declared list or map of its parts reads "fewer than 5" where the whole's does (an "(other)" holding the whole
 * less the groups named would otherwise give back the figure withheld: 14 pageviews beside "fewer than 5").
 * True when something changed.
 */
export function guardPartsOfFew(answer: Json, output: z.ZodType): boolean {
  let changed = false;
  const few = (v: unknown) => typeof v === "number" && v !== 0;
  eachParts(answer, output, ({ obj, schema, meta, value: v }) => {
    const whole = meta.whole(answer, obj);
    if (Array.isArray(v)) {
      const item = itemFieldsOf(schema);
      if (!item || !isObject(whole)) return;
      for (const l of leavesOf(whole, item)) {
        if (get(whole, l.path) !== FEWER_THAN_5) continue;
        for (const x of v) {
          if (few(get(x, l.path))) setAt(x, l.path, FEWER_THAN_5), changed = true;
        }
      }
    } else if (isObject(v) && whole === FEWER_THAN_5) {
      for (const [name, f] of Object.entries(v)) if (few(f)) v[name] = FEWER_THAN_5, changed = true;
    }
  });
  return changed;
}

/**
 * For the answer checker: where a declared list's whole less its groups' exact figures tells 1 to 4 visitors
 * (under a filter no list may), by path.
 */
export function subtractionLeaks(answer: Json, output: z.ZodType): string[] {
  const out: string[] = [];
  eachParts(answer, output, ({ obj, key: k, schema, meta, value: v, path }) => {
    const item = itemFieldsOf(schema), at = `${path ? `${path}.` : ""}${k}`;
    if (isObject(v) && namesHidden(answer, { holder: obj, key: k, meta })) {
      out.push(`${at}: names a group its list folded`);
    }
    if (!Array.isArray(v) || !item) return;
    for (const x of v as Json[]) {
      const named = x[meta.label ?? "name"];
      if (isOther(named) || !sizesOf(item).some((s) => smallSize(x[s]))) continue;
      out.push(`${at}: names ${JSON.stringify(named)}, a group of 1 to 4 visitors`);
    }
    const whole = meta.whole(answer, obj);
    if (!isObject(whole)) return;
    for (const l of leavesOf(whole, item)) {
      const w = get(whole, l.path);
      const exact = v.filter((x) => typeof get(x, l.path) === "number" && get(x, l.path) !== 0);
      if (w === FEWER_THAN_5 && exact.length) {
        out.push(
          `${at}: ${l.path.join(".")} of ${
            exact.map((x) => JSON.stringify(x[meta.label ?? "name"])).join(", ")
          } exact beside a whole that reads "fewer than 5"`,
        );
      }
      if (!l.visitors || typeof w !== "number" || w < SMALL_GROUP) continue;
      const r = w - v.reduce((n: number, x) => {
        const f = get(x, l.path);
        return n + (typeof f === "number" ? f : 0);
      }, 0);
      if (isFew(r)) out.push(`${at}: ${w} less its groups' ${l.path.join(".")} tells ${r}`);
    }
  });
  out.push(...nestedLeaks(answer, output));
  out.push(...restLeaks(answer, output));
  return out;
}
