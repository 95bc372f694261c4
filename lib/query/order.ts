/** Ordering and paging of answer rows, the same for web-event and crawler-hit aggregates. */
import type { Row } from "./types.ts";

/**
 * Sorts in place: by a metric (nulls last; `desc` by default) with ties by key, or by key. Keys compare as
 * the JSON of their values.
 */
export function sortRows<M extends string>(rows: Row<M>[], by: M | "key", desc: boolean): Row<M>[] {
  // each key's JSON once per row, not on every comparison
  const keys = new Map<Row<M>, string>();
  for (const r of rows) keys.set(r, JSON.stringify(Object.values(r.key)));
  return rows.sort((a, b) => {
    if (by !== "key") {
      const x = a.metrics[by] ?? null, y = b.metrics[by] ?? null;
      if (x !== y) {
        if (x === null) return 1;
        if (y === null) return -1;
        return desc ? y - x : x - y;
      }
    }
    const ka = keys.get(a)!, kb = keys.get(b)!;
    const c = ka < kb ? -1 : ka > kb ? 1 : 0;
    return by === "key" && desc ? -c : c;
  });
}

/** How a question wants its rows: sorted (default: the first metric, descending), then a page of them. */
export interface RowOrder<M extends string> {
  metrics: M[];
  sort?: { by: M | "key"; desc?: boolean };
  limit?: number;
  offset?: number;
}

/** The rows sorted as asked, the page `offset`/`limit` of them, and how many there were before paging. */
export function sortAndPage<M extends string>(
  rows: Row<M>[],
  o: RowOrder<M>,
): { rows: Row<M>[]; total_rows: number } {
  const by = o.sort?.by ?? o.metrics[0];
  sortRows(rows, by, o.sort?.desc ?? (by !== "key"));
  const offset = o.offset ?? 0;
  return {
    rows: rows.slice(offset, o.limit === undefined ? undefined : offset + o.limit),
    total_rows: rows.length,
  };
}
