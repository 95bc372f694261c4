/**
 * Filters: what a condition means for one value (`matches`, the one rule everything uses), a compiled row
 * predicate per batch, and the masks of rows in scope that pass all filters.
 */
import { remember } from "../../lru.ts";
import type { EvBatch } from "../columns/batch.ts";
import { eventView } from "../columns/views.ts";
import type { Filter } from "../types.ts";
import { codeMask, type Ctx } from "./ctx.ts";
import { sessionPage } from "./session_facts.ts";

/**
 * A value against one condition. Values compare as strings; a null value never equals, contains, starts
 * with or is `in`; `neq` matches it.
 */
export function matches(v: string | null, f: Filter<string>): boolean {
  const vals = Array.isArray(f.value) ? f.value : [f.value];
  switch (f.op) {
    case "eq":
    case "in":
      return v !== null && has(vals, v);
    case "neq":
      return v === null || !has(vals, v);
    case "contains":
      return v !== null && vals.some((x) => v.toLowerCase().includes(x.toLowerCase()));
    case "prefix":
      return v !== null && vals.some((x) => v.startsWith(x));
  }
}

/** Long value lists (behavior_features names hundreds of elements) as a set, made once per list. */
const listSets = new WeakMap<readonly string[], Set<string>>();
function has(vals: readonly string[], v: string): boolean {
  if (vals.length <= 16) return vals.includes(v);
  let set = listSets.get(vals);
  if (!set) listSets.set(vals, set = new Set(vals));
  return set.has(v);
}

const sessionLevel = (f: Filter) => f.field === "entry_page" || f.field === "exit_page";

/** An entry/exit-page filter as a row test: the session's page, decided once per session. */
function sessionTest(c: Ctx, e: EvBatch, f: Filter): (i: number) => boolean {
  const memo = new Map<number, boolean>();
  return (i) => {
    const s = e.ses[i];
    let ok = memo.get(s);
    if (ok === undefined) memo.set(s, ok = matches(sessionPage(c, s, f.field as "entry_page"), f));
    return ok;
  };
}

/** A row-level filter over a batch: a keep-mask over its column's codes, or one answer for every row. */
function codeFilter(e: EvBatch, f: Filter): { keep: Uint8Array; codes: ArrayLike<number> } | boolean {
  const v = eventView(e, f.field);
  if (!v.codes.length) return matches(null, f);
  return { keep: codeMask(v, (s) => matches(s, f)), codes: v.codes };
}

/** A row predicate for a batch: all filters hold. */
export function compileFilters(
  c: Ctx,
  b: number,
  filters: Filter[] | undefined,
): ((i: number) => boolean) | null {
  if (!filters?.length) return null;
  const e = c.batches[b];
  const tests = filters.map((f): (i: number) => boolean => {
    if (sessionLevel(f)) return sessionTest(c, e, f);
    const cf = codeFilter(e, f);
    if (typeof cf === "boolean") return () => cf;
    const { keep, codes } = cf;
    return (i) => keep[codes[i]] === 1;
  });
  return tests.length === 1 ? tests[0] : (i) => tests.every((t) => t(i));
}

/**
 * Rows in scope that pass the filters, per batch: each filter narrows the mask in a plain loop (row-level
 * ones through their column's code mask, no closure per row). Kept with the batch (a tool asks several
 * questions), except with entry/exit pages: those depend on every batch of the question.
 */
export function matchMasks(c: Ctx, filters: Filter[] | undefined): Uint8Array[] {
  const keep = !filters?.some(sessionLevel);
  const key = filters?.length ? `${c.scopeKey}#${JSON.stringify(filters)}` : "";
  return c.batches.map((e, b) => {
    if (!key) return c.inScope[b];
    const kept = keep ? e.scopeMasks.get(key) : undefined;
    if (kept) return kept;
    const m = c.inScope[b].slice();
    for (const f of filters!) {
      if (sessionLevel(f)) {
        const test = sessionTest(c, e, f);
        for (let i = 0; i < e.n; i++) if (m[i] && !test(i)) m[i] = 0;
        continue;
      }
      const cf = codeFilter(e, f);
      if (typeof cf === "boolean") {
        if (!cf) m.fill(0);
        continue;
      }
      const { keep: ok, codes } = cf;
      for (let i = 0; i < e.n; i++) if (m[i]) m[i] = ok[codes[i]];
    }
    if (keep) remember(e.scopeMasks, key, m, 8);
    return m;
  });
}
