/**
 * One list folded by rule 5's subtraction (fold.ts says the rule): the groups that would tell 1 to 4 join
 * one "(other)" holding the whole less the groups still named. Shared by the folds of whole answers (fold.ts)
 * and of lists inside a parent (fold_nested.ts), which is why it is a file of its own.
 */
import { FEWER_THAN_5, isFew, SMALL_GROUP } from "./privacy.ts";
import { declarationOf, TIME_FIELD } from "./group_counts.ts";
import { type FieldsOf, itemFieldsOf } from "./schema_fields.ts";

export const OTHER = "(other)";
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
export const smallSize = (v: unknown) => v === FEWER_THAN_5 || isFew(v);

/** The fields of an item that give its group's size (`groupSize`). */
export const sizesOf = (fields: FieldsOf) =>
  Object.keys(fields).filter((k) => declarationOf(fields[k])?.size);

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
