/**
 * Filters: what a condition means for one value (`matches`, the one rule everything uses), a compiled row
 * predicate per batch, and the masks of rows in scope that pass all filters.
 */
import { remember } from "../../lru.ts";
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
      return v !== null && vals.includes(v);
    case "neq":
      return v === null || !vals.includes(v);
    case "contains":
      return v !== null && vals.some((x) => v.toLowerCase().includes(x.toLowerCase()));
    case "prefix":
      return v !== null && vals.some((x) => v.startsWith(x));
  }
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
    if (f.field === "entry_page" || f.field === "exit_page") {
      const memo = new Map<number, boolean>();
      return (i) => {
        const s = e.ses[i];
        let ok = memo.get(s);
        if (ok === undefined) memo.set(s, ok = matches(sessionPage(c, s, f.field as "entry_page"), f));
        return ok;
      };
    }
    const v = eventView(e, f.field);
    if (!v.codes.length) {
      const ok = matches(null, f);
      return () => ok;
    }
    const mask = codeMask(v, (s) => matches(s, f));
    const codes = v.codes;
    return (i) => mask[codes[i]] === 1;
  });
  return tests.length === 1 ? tests[0] : (i) => tests.every((t) => t(i));
}

/** Rows in scope that pass the filters, per batch (kept with the batch: a tool asks several questions). */
export function matchMasks(c: Ctx, filters: Filter[] | undefined): Uint8Array[] {
  // entry/exit pages depend on every batch of the question (a session's rows may span them): not kept
  const sessionLevel = filters?.some((f) => f.field === "entry_page" || f.field === "exit_page");
  const key = filters?.length ? `${c.scopeKey}#${JSON.stringify(filters)}` : "";
  return c.batches.map((e, b) => {
    if (!key) return c.inScope[b];
    const kept = sessionLevel ? undefined : e.scopeMasks.get(key);
    if (kept) return kept;
    const s = c.inScope[b];
    let m: Uint8Array;
    if (sessionLevel) {
      const pred = compileFilters(c, b, filters)!;
      m = new Uint8Array(e.n);
      for (let i = 0; i < e.n; i++) m[i] = s[i] && pred(i) ? 1 : 0;
      return m;
    }
    // row-level filters: each is a mask over its column's codes, applied in a plain loop (no closure per row)
    m = s.slice();
    for (const f of filters!) {
      const v = eventView(e, f.field);
      if (!v.codes.length) {
        if (!matches(null, f)) m.fill(0);
        continue;
      }
      const keep = codeMask(v, (x) => matches(x, f)), codes = v.codes;
      for (let i = 0; i < e.n; i++) if (m[i]) m[i] = keep[codes[i]];
    }
    remember(e.scopeMasks, key, m, 8);
    return m;
  });
}
