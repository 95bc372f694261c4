/**
 * Which output fields count the people of a group, declared once in each tool's output schema and read by
 * everything that applies or checks the small-group rule (spec answer rule 5): the pipeline's guard
 * (small_groups.ts), the published output schema (pipeline/listing.ts) and the answer checker (check.ts).
 *
 * - `groupSize(s)`: the visitors of the group an object describes (a page's viewers, a path's visitors).
 *   When it is 1 to 4, every other count of that object would tell the group's size too.
 * - `groupCount(kind, s, { sizeOf, partOf })`: another count of a group: its visitors in the period before, its
 *   visits (sessions), its events or pageviews, the visitors of a part of it (conversions). `sizeOf` names the
 *   field giving the count's own group size where that is not the object's (a name's previous events beside
 *   its previous visitors): of 1 to 4, the count reads "fewer than 5". `partOf` names the count it is a part
 *   of (conversions of visitors): where the two are 1 to 4 apart, it is withheld (null) with its rates.
 * - `groupRate(of, s)`: a rate, share or average of the group (a conversion rate, a drop-off rate, a share
 *   of visitors), worked out from the group's size and the counts named in `of`. Where any of them reads 1
 *   to 4 the rate is withheld (null): multiplied back, it would tell the small count.
 * - `groupParts(whole, s)`: a list (or a map of figures) whose groups split a whole one way each (one country,
 *   device or first source per visitor; a funnel split at step 1), where the answer shows that whole too. Under
 *   a filter the guard folds groups into "(other)" until no group of 1 to 4 is the whole less the others
 *   (fold.ts). With `within`, its groups also lie inside the groups of a sibling list (paths inside their
 *   nearest step): no parent less the children named inside it tells 1 to 4 either (fold_nested.ts).
 * - `groupRest(of, s)`: a count of visitors of a list's item that is the `of` count of the item before less its
 *   own (a funnel's drop-off: the visitors of the step before who did not reach this one). Where it is 1 to 4,
 *   the two exact counts beside it would tell it: under a filter the item's own count is withheld (fold.ts).
 * - `groupApart(s, inner)`: a list whose groups may hold one another (the properties of one event): under a
 *   filter no two exact counts of different items (or of their `inner` lists) are 1 to 4 apart (check.ts; the
 *   tool keeps them apart).
 * - `notACount(s)`: a figure whose name reads like a count or a rate but is not one of a group (how many
 *   event names, a part of a change);
 *   declared so the coverage test (tests/tools/small_groups_test.ts) knows it was looked at.
 *
 * A declaration may be a number, a number-or-"fewer than 5" union, a compared figure ({value, previous,
 * change}) or a list of numbers (a retention curve); descriptions added after it keep it.
 */
import { z } from "zod";

export type Counted = "visitors" | "visits" | "events";

type Json = Record<string, unknown>;

/** The whole a list's groups split, as the answer shows it (see `groupParts`). */
export interface PartsMeta {
  /**
   * The whole, read from the answer and the object holding the list: for a list of objects, an object shaped
   * like one of its items with the whole's figures where the answer shows them (a field it does not show is
   * left out); for a map of figures, one figure. null when the answer shows no whole.
   */
  whole: (answer: Json, holder: Json) => unknown;
  /** A map's figures: whether they count visitors (else the fold knows nothing of their visitors). */
  visitors?: (answer: Json) => boolean;
  /** The field of an item that names its group, "(other)" once folded (default `name`). */
  label?: string;
  /** Where each group lies inside a group of another list of the same object (see `WithinMeta`). */
  within?: WithinMeta;
  /**
   * A map's keys may only be names the answer names elsewhere (a trends point's split values: those of
   * `splits`, once folded): where a key with a figure is not, the map is left out of every point.
   */
  namedIn?: (answer: Json) => unknown[];
}

/**
 * A breakdown of a breakdown: each group of this list lies inside one or more groups of a sibling list that
 * splits the same whole (a path inside its nearest step; a source inside the channels its visitors came
 * through). A parent's figure less the children named inside it would tell the children not named, so the
 * fold (fold_nested.ts) keeps that rest from being 1 to 4 too.
 */
export interface WithinMeta {
  /** The sibling list (in the same object) of the parent groups; itself declared with `groupParts`. */
  list: string;
  /** The names of the parent groups (their `label` field) an item of this list lies in. */
  of: (item: Json) => string[];
  /**
   * An item's field that shows those names (a source's `channels`): under a filter, a parent the sibling list
   * does not name (folded, or past its top N) reads "(other)" there, so that it is not named through it.
   */
  field?: string;
}

export interface GroupCountMeta {
  /** What the field counts; false: it reads like a count but is none. */
  counts: Counted | false;
  /** The group's own size (its visitors): when small, the object's other counts read "fewer than 5" too. */
  size?: boolean;
  /** A rate of the group: the counts of the same object it is worked out from (besides the group's size). */
  rateOf?: string[];
  /** A list (or map) whose groups split a whole one way each. */
  parts?: PartsMeta;
  /**
   * A list whose groups may hold one another (the properties of one event: a coupon sent on some of the
   * purchases that all carry a plan): no two exact counts of different items, their own or those of the list
   * named here inside each item (a property's values), may be 1 to 4 apart.
   */
  apart?: { inner?: string };
  /** The count of the list item before, of which this is the rest once the item's own is taken away. */
  rest?: string;
  /**
   * The field of the same object that gives this count's own group size, where its group is not the object's
   * (a name's events in the previous period: their group is the previous period's visitors): where that size
   * is 1 to 4, this count reads "fewer than 5" too.
   */
  sizeOf?: string;
  /**
   * The count of the same object this one is a part of (the conversions of a row's visitors): where the whole
   * less this count is 1 to 4 (exact on both), this count is withheld (null) with the rates worked out from it,
   * else the two together would tell that rest.
   */
  partOf?: string;
}

/** What `groupCount` may say of a count besides its kind (see `GroupCountMeta`). */
export interface CountOptions {
  sizeOf?: string;
  partOf?: string;
}

const declared = z.registry<GroupCountMeta>();

function declare<T extends z.ZodType>(schema: T, meta: GroupCountMeta): T {
  // a copy: the schema given may be shared (`compared`), and its other uses are not counts
  const copy = schema.clone() as T;
  declared.add(copy, meta);
  return copy;
}

export const groupSize = <T extends z.ZodType>(schema: T): T =>
  declare(schema, { counts: "visitors", size: true });
export const groupCount = <T extends z.ZodType>(kind: Counted, schema: T, opts: CountOptions = {}): T =>
  declare(schema, {
    counts: kind,
    ...(opts.sizeOf ? { sizeOf: opts.sizeOf } : {}),
    ...(opts.partOf ? { partOf: opts.partOf } : {}),
  });
export const notACount = <T extends z.ZodType>(schema: T): T => declare(schema, { counts: false });
export const groupRate = <T extends z.ZodType>(of: string[], schema: T): T =>
  declare(schema, { counts: false, rateOf: of });
export const groupApart = <T extends z.ZodType>(schema: T, inner?: string): T =>
  declare(schema, { counts: false, apart: inner ? { inner } : {} });
export const groupRest = <T extends z.ZodType>(of: string, schema: T): T =>
  declare(schema, { counts: "visitors", rest: of });
export const groupParts = <T extends z.ZodType>(
  whole: PartsMeta["whole"],
  schema: T,
  visitors?: PartsMeta["visitors"],
  label?: string,
  more: Pick<PartsMeta, "within" | "namedIn"> = {},
): T =>
  declare(schema, {
    counts: false,
    parts: {
      whole,
      ...(visitors ? { visitors } : {}),
      ...(label ? { label } : {}),
      ...(more.within ? { within: more.within } : {}),
      ...(more.namedIn ? { namedIn: more.namedIn } : {}),
    },
  });

interface Def {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  getter?: () => z.ZodType;
}
const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/** The declaration of a field's schema, looked up through optional, nullable, default and pipe wrappers. */
export function declarationOf(schema: z.ZodType): GroupCountMeta | null {
  let s: z.ZodType | undefined = schema;
  for (let i = 0; s && i < 20; i++) {
    const meta = declared.get(s);
    if (meta) return meta;
    const d = defOf(s);
    if (
      d.innerType && ["optional", "nullable", "default", "readonly", "nonoptional", "catch"].includes(d.type)
    ) {
      s = d.innerType;
    } else if (d.type === "pipe") s = d.in;
    else if (d.type === "lazy" && d.getter) s = d.getter();
    else return null;
  }
  return null;
}

/** Times of a group (averages, medians, durations): withheld when fewer than 5 visitors stand behind them. */
export const TIME_FIELD = /(_time_s|duration_s|_median_s|_average_s|_avg_s|median_s_from_previous)$/;

/** The JSON Schema keyword pipeline/listing.ts marks declared fields with while it widens them, then removes. */
export const GROUP_COUNT_KEYWORD = "x-group-count";

/** The keyword's value on a declared rate (a count's is what it counts). */
export const GROUP_RATE_MARK = "rate";

/** A `toJSONSchema` override that marks declared counts and rates (for `guardedOutputSchema`). */
export function markGroupCounts(ctx: { zodSchema: unknown; jsonSchema: Record<string, unknown> }): void {
  const meta = declared.get(ctx.zodSchema as z.ZodType);
  if (meta?.counts) ctx.jsonSchema[GROUP_COUNT_KEYWORD] = meta.counts;
  else if (meta?.rateOf) ctx.jsonSchema[GROUP_COUNT_KEYWORD] = GROUP_RATE_MARK;
}
