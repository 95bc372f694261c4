/**
 * Rule 5 by subtraction inside a breakdown of a breakdown. A list declared with `groupParts(…, within)`
 * (group_counts.ts) has groups that lie inside the groups of a sibling list: a path inside its nearest step, a
 * source or referring site inside the channels its visitors came through. fold.ts keeps each list's whole less
 * its named groups from telling 1 to 4; here, under a saved cohort or a filter on an event property, no parent
 * less the children named inside it may either (a nearest step's 12 visits less the 9 of the one path named
 * under it told the 3 of the others, though the paths' "(other)" held 6 of several steps).
 *
 * The parents are the sibling list's named groups and one more, the rest: the groups it does not name
 * (folded into its "(other)", or past its top N), whose figures are its whole less the named ones. Where a
 * child lies in several parents (a source whose visitors came through two channels), a reader may subtract it
 * from those parents together: every set of parents joined by such children is checked (up to 12 parents in
 * one set; past that each parent alone and the whole set); a set that falls apart is the sum of its parts. Where a set's figure less the children lying wholly
 * inside it is 1 to 4, the smallest of those children joins the list's "(other)", and the list is folded again
 * against its own whole (fold.ts), until none is.
 *
 * An item's field naming its parents (`within.field`, a source's `channels`) names only the parents the sibling
 * list names; the others read "(other)" there.
 *
 * A figure only counts where the parent shows it as a number; a parent reading "fewer than 5" tells nothing
 * exact. The answer checker reads the same declaration (`nestedLeaks`).
 */
import type { z } from "zod";
import { isFew } from "./privacy.ts";
import { declarationOf, type PartsMeta, type WithinMeta } from "./group_counts.ts";
import { type FieldsOf, itemFieldsOf, walkBesideSchema } from "./schema_fields.ts";
import {
  foldList,
  get,
  isObject,
  isOther,
  type Json,
  type Leaf,
  leavesOf,
  less,
  OTHER,
  otherOf,
} from "./fold_list.ts";

/** Parents in one set checked subset by subset (2^12 sets at most). */
const MAX_SET = 12;

interface Nested {
  holder: Json;
  key: string;
  meta: PartsMeta;
  within: WithinMeta;
  fields: FieldsOf;
  parentMeta: PartsMeta;
}

interface Leak {
  /** the child to fold */
  pick: Json;
  says: string;
}

/** Every nested list of the answer with what it needs, in the answer's order. */
function nestedLists(answer: Json, output: z.ZodType, fn: (n: Nested) => void): void {
  walkBesideSchema(answer, output, (obj, fields, path) => {
    if (path === "scope") return;
    for (const [key, schema] of Object.entries(fields)) {
      const meta = declarationOf(schema)?.parts, within = meta?.within;
      if (!meta || !within || !Array.isArray(obj[key]) || !Array.isArray(obj[within.list])) continue;
      const item = itemFieldsOf(schema), parentSchema = fields[within.list];
      const parentMeta = parentSchema ? declarationOf(parentSchema)?.parts : undefined;
      if (!item || !parentMeta) continue;
      fn({ holder: obj, key, meta, within, fields: item, parentMeta });
    }
  });
}

/** The first parent set whose figure less the children wholly inside it tells 1 to 4, with the child to fold. */
function findLeak(answer: Json, n: Nested): Leak | null {
  const parents = n.holder[n.within.list] as Json[], children = n.holder[n.key] as Json[];
  const pLabel = n.parentMeta.label ?? "name", cLabel = n.meta.label ?? "name";
  const named = parents.filter((p) => !isOther(p[pLabel]));
  const pWhole = n.parentMeta.whole(answer, n.holder);
  const otherRow = parents.find((p) => isOther(p[pLabel]));
  const template = parents[0] ?? (isObject(pWhole) ? pWhole : null);
  if (!template) return null;
  const leaves: Leaf[] = leavesOf(template, n.fields);
  const REST = named.length;
  const index = new Map(named.map((p, i) => [String(p[pLabel]), i]));
  const figure = (node: number, l: Leaf): unknown => {
    if (node < REST) return get(named[node], l.path);
    if (isObject(pWhole)) return less(get(pWhole, l.path), named.map((p) => get(p, l.path)));
    return otherRow ? get(otherRow, l.path) : null;
  };
  // each named child with the parents it lies in
  const inside = children.filter((c) => !isOther(c[cLabel])).map((c) => ({
    child: c,
    nodes: [...new Set(n.within.of(c).map((name) => index.get(name) ?? REST))],
  })).filter((x) => x.nodes.length > 0);
  // sets of parents joined by children lying in several
  const up = Array.from({ length: REST + 1 }, (_, i) => i);
  const root = (i: number): number => up[i] === i ? i : (up[i] = root(up[i]));
  for (const x of inside) for (const m of x.nodes.slice(1)) up[root(m)] = root(x.nodes[0]);
  const sets = new Map<number, number[]>();
  for (let i = 0; i <= REST; i++) sets.set(root(i), [...(sets.get(root(i)) ?? []), i]);
  for (const set of sets.values()) {
    const subsets: number[][] = [];
    if (set.length <= MAX_SET) {
      for (let mask = 1; mask < 1 << set.length; mask++) subsets.push(set.filter((_, b) => mask & (1 << b)));
    } else subsets.push(...set.map((x) => [x]), set);
    for (const sub of subsets) {
      if (!joined(sub, inside)) continue;
      for (const l of leaves) {
        const figs = sub.map((node) => figure(node, l));
        if (figs.some((f) => typeof f !== "number")) continue;
        const within = inside.filter((x) => {
          const v = get(x.child, l.path);
          return typeof v === "number" && v > 0 && x.nodes.every((m) => sub.includes(m));
        });
        if (!within.length) continue;
        const rest = (figs as number[]).reduce((a, b) => a + b, 0) -
          within.reduce((a, x) => a + (get(x.child, l.path) as number), 0);
        if (!isFew(rest)) continue;
        const value = (x: (typeof within)[number]) => get(x.child, l.path) as number;
        const pick = within.reduce((a, b) => value(b) < value(a) ? b : a);
        const names = sub.map((node) => node < REST ? JSON.stringify(named[node][pLabel]) : "the rest");
        return {
          pick: pick.child,
          says: `${n.key}: ${n.within.list} ${names.join(" + ")} less the ${n.key} named inside ` +
            `(${l.path.join(".")}) tells ${rest}`,
        };
      }
    }
  }
  return null;
}

/**
 * Whether a set of parents holds a child and is joined by the children lying wholly inside it: a set that falls
 * apart into parts is the sum of its parts (each checked on its own, or a parent's own figure, shown anyway).
 */
function joined(sub: number[], inside: { nodes: number[] }[]): boolean {
  const within = inside.filter((x) => x.nodes.every((m) => sub.includes(m)));
  if (!within.length) return false;
  const reached = new Set([sub[0]]);
  for (let grew = true; grew;) {
    grew = false;
    for (const x of within) {
      if (x.nodes.some((m) => reached.has(m)) && x.nodes.some((m) => !reached.has(m))) {
        for (const m of x.nodes) reached.add(m);
        grew = true;
      }
    }
  }
  return reached.size === sub.length;
}

/** The list with `pick` joined to its "(other)", then folded again against its own whole. */
function foldWith(items: Json[], fields: FieldsOf, whole: Json, label: string, pick: Json): Json[] {
  const shown = items.filter((x) => x !== pick && !isOther(x[label]));
  const folded = items.filter((x) => x === pick || isOther(x[label]));
  const next = [...shown, otherOf(folded[0], whole, shown, fields, true, label)];
  return foldList(next, fields, whole, label) ?? next;
}

/** The parent names the sibling list shows (the groups it does not name are "(other)"). */
function namedParents(n: Nested): Set<string> {
  const label = n.parentMeta.label ?? "name";
  return new Set(
    (n.holder[n.within.list] as Json[]).map((p) => p[label]).filter((x) => !isOther(x)).map(String),
  );
}

/** An item's field of parent names, with the parents not named read as one "(other)" (null stays null). */
function shownNames(names: unknown, named: Set<string>): unknown {
  if (!Array.isArray(names)) return names;
  const out = [...new Set(names.map((x) => named.has(String(x)) ? String(x) : OTHER))];
  return out.sort((a, b) => (a === OTHER ? 1 : 0) - (b === OTHER ? 1 : 0));
}

/** Folds the nested lists of an answer in place (see above); true when something changed. */
export function foldNested(answer: Json, output: z.ZodType): boolean {
  let changed = false;
  nestedLists(answer, output, (n) => {
    const field = n.within.field;
    if (field) {
      const named = namedParents(n);
      for (const x of n.holder[n.key] as Json[]) {
        if (!Array.isArray(x[field])) continue;
        const shown = shownNames(x[field], named);
        if (JSON.stringify(shown) !== JSON.stringify(x[field])) x[field] = shown, changed = true;
      }
    }
    const w = n.meta.whole(answer, n.holder), whole = isObject(w) ? w : {};
    const label = n.meta.label ?? "name";
    // each round folds one more child: at most as many rounds as the list has items
    for (let round = (n.holder[n.key] as Json[]).length; round > 0; round--) {
      const leak = findLeak(answer, n);
      if (!leak) break;
      n.holder[n.key] = foldWith(n.holder[n.key] as Json[], n.fields, whole, label, leak.pick);
      changed = true;
    }
  });
  return changed;
}

/** For the answer checker: where a parent less the children named inside it tells 1 to 4, by list. */
export function nestedLeaks(answer: Json, output: z.ZodType): string[] {
  const out: string[] = [];
  nestedLists(answer, output, (n) => {
    const leak = findLeak(answer, n);
    if (leak) out.push(leak.says);
    const field = n.within.field;
    if (!field) return;
    const named = namedParents(n);
    for (const x of n.holder[n.key] as Json[]) {
      const names = Array.isArray(x[field]) ? x[field] as unknown[] : [];
      const hidden = names.filter((name) => !isOther(name) && !named.has(String(name)));
      if (hidden.length) {
        out.push(`${n.key}.${field}: names ${JSON.stringify(hidden)}, not named in ${n.within.list}`);
      }
    }
  });
  return out;
}
