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
import { declarationOf, type PartsMeta, TIME_FIELD } from "./group_counts.ts";
import { type FieldsOf, itemFieldsOf, walkBesideSchema } from "./schema_fields.ts";
import { restLeaks, withholdRests } from "./fold_rests.ts";
import { foldNested, nestedLeaks } from "./fold_nested.ts";

export const OTHER = "(other)";
export const FOLD_NOTICE =
  "groups of 1 to 4 visitors, and where needed the smallest groups beside them, are " +
  'folded into "(other)", so that no group of 1 to 4 is the total less the others; a split per period that ' +
  "would tell one is left out";

export type Json = Record<string, unknown>;
type Path = (string | number)[];
/** A declared count of a group, by where it is in an item (field, side, a nested list's index). */
export interface Leaf {
  path: Path;
  visitors: boolean;
}

export const isObject = (v: unknown): v is Json => !!v && typeof v === "object" && !Array.isArray(v);
const isCompared = (v: unknown): v is Json => isObject(v) && "value" in v && "previous" in v;
const SIDES = ["value", "previous"] as const;

export function get(v: unknown, path: Path): unknown {
  for (const p of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<string | number, unknown>)[p];
  }
  return v;
}

/** The declared counts the whole shows, as paths into an item. */
export function leavesOf(whole: Json, fields: FieldsOf, at: Path = [], out: Leaf[] = []): Leaf[] {
  for (const [k, schema] of Object.entries(fields)) {
    const v = whole[k];
    if (v === undefined) continue;
    const meta = declarationOf(schema);
    if (meta?.counts) {
      const visitors = meta.counts === "visitors";
      if (isCompared(v)) { for (const s of SIDES) out.push({ path: [...at, k, s], visitors }); }
      else if (!Array.isArray(v)) out.push({ path: [...at, k], visitors });
      continue;
    }
    const inner = itemFieldsOf(schema);
    if (inner && Array.isArray(v)) v.forEach((x, i) => isObject(x) && leavesOf(x, inner, [...at, k, i], out));
  }
  return out;
}

/**
 * Whether an item tells a small group where subtraction would reach it: a figure that reads "fewer than 5"
 * (or 1 to 4 visitors) where the whole's is 5 or more (a whole of 1 to 4 reads "fewer than 5" itself); or
 * whether it names a group of 1 to 4 visitors, whatever its whole (a whole of 1 to 4, or none shown).
 */
function tellsFew(item: Json, whole: Json, leaves: Leaf[], sizes: string[]): boolean {
  const big = (l: Leaf) => {
    const w = get(whole, l.path);
    return typeof w === "number" && w >= SMALL_GROUP;
  };
  return leaves.some((l) =>
    big(l) && (get(item, l.path) === FEWER_THAN_5 || (l.visitors && isFew(get(item, l.path))))
  ) ||
    // a group of 1 to 4 visitors: folded, never named, whether its whole is 5 or more (shown in other figures
    // only, such as a page's pageviews beside the answer's: its figures are the rest too) or 1 to 4 itself
    sizes.some((k) => smallSize(item[k]));
}

/** A group size that is 1 to 4 (or reads so): its group is never named in a folded list. */
const smallSize = (v: unknown) => v === FEWER_THAN_5 || isFew(v);

/** The fields of an item that give its group's size (`groupSize`). */
const sizesOf = (fields: FieldsOf) => Object.keys(fields).filter((k) => declarationOf(fields[k])?.size);

/**
 * A whole's figure less the named groups' (null when either is not shown as a number, or when the groups
 * overlap past the whole: a visitor may take several paths, and the rest of such a list is not known).
 */
export function less(whole: unknown, parts: unknown[]): unknown {
  if (whole === FEWER_THAN_5) return FEWER_THAN_5;
  if (typeof whole !== "number" || parts.some((x) => typeof x !== "number")) return null;
  const rest = whole - parts.reduce((n: number, x) => n + (x as number), 0);
  return rest < 0 ? null : rest;
}

/** The (other) group's label: a name, or a path of steps (`["(other)"]`). */
const otherLabel = (v: unknown) => Array.isArray(v) ? [OTHER] : OTHER;
export const isOther = (v: unknown) => v === OTHER || (Array.isArray(v) && v.length === 1 && v[0] === OTHER);

/** The (other) item: the whole less the named groups, shaped like `template` (one of the list's items). */
export function otherOf(
  template: Json,
  whole: Json | undefined,
  shown: Json[],
  fields: FieldsOf,
  top: boolean,
  label = "name",
): Json {
  const out: Json = {};
  for (const k of Object.keys(template)) {
    const schema = fields[k];
    const meta = schema ? declarationOf(schema) : null;
    const w = whole?.[k], t = template[k];
    const inner = schema ? itemFieldsOf(schema) : null;
    if (top && k === label) out[k] = otherLabel(t);
    else if (meta?.counts) {
      out[k] = isCompared(t)
        ? {
          ...t,
          value: less(isCompared(w) ? w.value : undefined, shown.map((x) => get(x, [k, "value"]))),
          previous: less(isCompared(w) ? w.previous : undefined, shown.map((x) => get(x, [k, "previous"]))),
          ...("change" in t ? { change: null } : {}),
        }
        : less(w, shown.map((x) => x[k]));
    } else if (meta?.rateOf || TIME_FIELD.test(k)) {
      out[k] = isCompared(t)
        ? { ...t, value: null, previous: null, ...("change" in t ? { change: null } : {}) }
        : null;
    } else if (inner && Array.isArray(t)) {
      out[k] = t.map((x, i) =>
        otherOf(
          x as Json,
          get(w, [i]) as Json | undefined,
          shown.map((s) => get(s, [k, i]) as Json),
          inner,
          false,
        )
      );
    } else out[k] = w !== undefined ? w : null; // never one folded group's own value (a name, a figure)
  }
  return out;
}

/** The list folded, or null when nothing needs it. */
export function foldList(items: Json[], fields: FieldsOf, whole: Json, label = "name"): Json[] | null {
  const leaves = leavesOf(whole, fields);
  const sizes = sizesOf(fields);
  if (!items.length || (!leaves.length && !items.some((x) => sizes.some((k) => smallSize(x[k]))))) {
    return null;
  }
  const few = new Set(items.filter((x) => isOther(x[label]) || tellsFew(x, whole, leaves, sizes)));
  const folded = items.filter((x) => few.has(x));
  const shown = items.filter((x) => !few.has(x));
  const sized = leaves.some((l) => l.visitors && typeof get(whole, l.path) === "number");
  const rest = (l: Leaf) => less(get(whole, l.path), shown.map((x) => get(x, l.path)));
  let added = 0;
  while (shown.length) {
    // a count of visitors that (other) would hold 1 to 4 of, beside a whole of 5 or more
    let bad = leaves.find((l) => {
      const w = get(whole, l.path);
      return l.visitors && typeof w === "number" && w >= SMALL_GROUP && isFew(rest(l));
    });
    // visitors not shown: (other) needs a group known to hold 5 or more
    if (!bad && !sized && !folded.some((x) => !few.has(x))) {
      const anything = folded.length > 0 || leaves.some((l) => {
        const r = rest(l);
        return typeof r === "number" && r > 0;
      });
      if (anything) bad = leaves[0];
    }
    if (!bad) break;
    // the smallest named group with some of that figure joins (other)
    let pick = shown.length - 1;
    for (let i = 0; i < shown.length; i++) {
      const v = get(shown[i], bad.path), best = get(shown[pick], bad.path);
      if (typeof v === "number" && v > 0 && (typeof best !== "number" || best <= 0 || v < best)) pick = i;
    }
    folded.push(...shown.splice(pick, 1));
    added++;
  }
  // an (other) the tool gave, with nothing small in the list, stays as it was
  if (!added && !folded.some((x) => !isOther(x[label]))) return null;
  if (!folded.length) return null;
  return [...shown, otherOf(folded[0], whole, shown, fields, true, label)];
}

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

/**
 * Folds every declared list of the answer in place (under a saved cohort or a filter on an event property);
 * true when something changed.
 */
export function foldGroups(answer: Json, output: z.ZodType): boolean {
  let changed = false;
  const maps = new Map<PartsMeta, MapAt[]>();
  walkBesideSchema(answer, output, (obj, fields, path) => {
    if (path === "scope") return;
    for (const [k, schema] of Object.entries(fields)) {
      const meta = declarationOf(schema)?.parts;
      const v = obj[k];
      if (!meta || v === undefined || v === null) continue;
      if (Array.isArray(v)) {
        const item = itemFieldsOf(schema);
        // a whole not shown (its row folded away): the list's groups of 1 to 4 still fold, with no figures
        const whole = meta.whole(answer, obj);
        if (!item) continue;
        const folded = foldList(v as Json[], item, isObject(whole) ? whole : {}, meta.label);
        if (folded) obj[k] = folded, changed = true;
      } else if (isObject(v)) maps.set(meta, [...(maps.get(meta) ?? []), { holder: obj, key: k, meta }]);
    }
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

/**
 * For the answer checker: where a declared list's whole less its groups' exact figures tells 1 to 4 visitors
 * (under a filter no list may), by path.
 */
export function subtractionLeaks(answer: Json, output: z.ZodType): string[] {
  const out: string[] = [];
  walkBesideSchema(answer, output, (obj, fields, path) => {
    if (path === "scope") return;
    for (const [k, schema] of Object.entries(fields)) {
      const meta = declarationOf(schema)?.parts, v = obj[k], item = itemFieldsOf(schema);
      if (meta && isObject(v) && namesHidden(answer, { holder: obj, key: k, meta })) {
        out.push(`${path ? `${path}.` : ""}${k}: names a group its list folded`);
      }
      if (!meta || !Array.isArray(v) || !item) continue;
      for (const x of v as Json[]) {
        const named = x[meta.label ?? "name"];
        if (isOther(named) || !sizesOf(item).some((s) => smallSize(x[s]))) continue;
        out.push(`${path ? `${path}.` : ""}${k}: names ${JSON.stringify(named)}, a group of 1 to 4 visitors`);
      }
      const whole = meta.whole(answer, obj);
      if (!isObject(whole)) continue;
      for (const l of leavesOf(whole, item)) {
        const w = get(whole, l.path);
        if (!l.visitors || typeof w !== "number" || w < SMALL_GROUP) continue;
        const r = w - v.reduce((n: number, x) => {
          const f = get(x, l.path);
          return n + (typeof f === "number" ? f : 0);
        }, 0);
        if (isFew(r)) {
          out.push(`${path ? `${path}.` : ""}${k}: ${w} less its groups' ${l.path.join(".")} tells ${r}`);
        }
      }
    }
  });
  out.push(...nestedLeaks(answer, output));
  out.push(...restLeaks(answer, output));
  return out;
}
