/**
 * The group-by: a group number for every matching row of a question, chosen the cheapest way that is
 * exact. No breakdown or one plain field: the process-wide value numbers themselves (direct). A bucketed
 * breakdown by at most one field: value * buckets + bucket, kept with each batch (stable). Anything else:
 * groups numbered as they appear, kept across the questions over one period (kept).
 */
import { remember } from "../../lru.ts";
import { fieldIds, keepIds } from "../columns/row_ids.ts";
import type { Ctx } from "../scan/ctx.ts";
import { sessionPage } from "../scan/session_facts.ts";
import { visitorOrder } from "../scan/visitor_order.ts";
import type { AggregateOptions, EventField, KeyValue } from "../types.ts";
import { bucketIds, bucketTable, denseGroups, denseGroups2, matchingRanges, stableIds } from "./group_ids.ts";
import { type GroupSource, zeroIds } from "./group_source.ts";
import { runValuesInOrder } from "./per_run.ts";

/** The row groups of a question. */
export function groupsOf(c: Ctx, masks: Uint8Array[], o: AggregateOptions): GroupSource {
  return directGroups(c, o.breakdown ?? [], o.bucket) ?? keptGroups(c, masks, o);
}

const MAX_DIRECT_GROUPS = 65_536;

/** Groups straight from process-wide value numbers: no breakdown, or one plain field without a bucket. */
export function directGroups(
  c: Ctx,
  fields: EventField[],
  bucket: AggregateOptions["bucket"],
): GroupSource | null {
  if (bucket || fields.length > 1 || fields.some((f) => f === "entry_page" || f === "exit_page")) return null;
  if (!fields.length) {
    return {
      gids: c.batches.map((e) => zeroIds(e)),
      size: 1,
      key: () => ({}),
      runGids: new Int32Array(visitorOrder(c).rb.length),
    };
  }
  const f = fields[0];
  const gids = c.batches.map((e) => fieldIds(e, f));
  const values = c.batches.length ? c.batches[0].interner.valueIds(f).values : [];
  // many values (ids, free text): accumulators per value seen in the process would be large; number the
  // groups of the matching rows instead
  if (values.length > MAX_DIRECT_GROUPS) return null;
  const runGids = runValuesInOrder(c, f);
  return { gids, size: values.length, key: (g) => ({ [f]: values[g] }), runGids };
}

/** A bucketed breakdown's buckets are those of the scope's whole range, not only of the rows in it. */
const bucketRange = (c: Ctx, o: AggregateOptions) => (o.bucket ? [c.scope.from, c.scope.to] : null);

/**
 * A bucketed breakdown by at most one plain field with few groups: group = value number * buckets + bucket,
 * the same in every question over the scope, so each batch's row groups are kept with the batch (a raw tail
 * then costs only its own rows).
 */
function stableGroups(c: Ctx, masks: Uint8Array[], o: AggregateOptions): GroupSource | null {
  const fields = o.breakdown ?? [];
  const sessionLevel = (f: string) => f === "entry_page" || f === "exit_page";
  if (!o.bucket || fields.length > 1 || fields.some(sessionLevel) || !c.batches.length) return null;
  if (c.scope.filters?.some((x) => sessionLevel(x.field))) return null;
  const f = fields[0];
  const ids = f ? c.batches.map((e) => fieldIds(e, f)) : null;
  const values = f ? c.batches[0].interner.valueIds(f).values : [null];
  const bt = bucketTable(c, o.bucket), width = bt.labels.length;
  if (values.length * width > MAX_DIRECT_GROUPS) return null;
  const key = `grp:${
    JSON.stringify([c.scopeKey, bucketRange(c, o), c.scope.timezone, c.scope.filters ?? [], fields, o.bucket])
  }`;
  const gids = c.batches.map((e, b) => {
    const kept = e.ids.get(key);
    if (kept) return kept;
    const m = masks[b], out = new Int32Array(e.n).fill(-1), ranges = matchingRanges(e, m);
    const buckets = new Int32Array(e.n);
    bucketIds(e.t, m, bt.table, bt.slot0, buckets);
    stableIds(m, ranges, ids ? ids[b] : null, buckets, width, out);
    keepIds(e, key, out);
    return out;
  });
  return {
    gids,
    size: values.length * width,
    key: (g) => {
      const k: Record<string, KeyValue> = {};
      if (f) k[f] = values[Math.floor(g / width)];
      k.bucket = bt.labels[g % width];
      return k;
    },
  };
}

/** Row groups of a bucketed or several-field breakdown, kept across the questions over one period. */
function keptGroups(c: Ctx, masks: Uint8Array[], o: AggregateOptions): GroupSource {
  const stable = stableGroups(c, masks, o);
  if (stable) return stable;
  const key = JSON.stringify([
    c.scopeKey,
    bucketRange(c, o),
    c.scope.timezone,
    c.scope.filters ?? [],
    o.breakdown ?? [],
    o.bucket,
  ]);
  const memo = c.tail ? undefined : c.memo;
  const kept = memo?.groups.get(key) as GroupSource | undefined;
  if (kept) return kept;
  const gs = groupRows(c, masks, o.breakdown ?? [], o.bucket);
  if (memo) {
    remember(memo.groups, key, gs, 4);
  }
  return gs;
}

/** Groups numbered as they appear among the matching rows (entry/exit pages, several fields, many values). */
function groupRows(
  c: Ctx,
  masks: Uint8Array[],
  fields: EventField[],
  bucket: AggregateOptions["bucket"],
): GroupSource {
  // plain fields use the process-wide value numbers (cached per batch); entry/exit pages their own
  const plain = (f: EventField) => f !== "entry_page" && f !== "exit_page";
  const numbering = c.batches.length ? c.batches[0].interner : null;
  const dimIds = fields.map(() => new Map<KeyValue, number>());
  const dimValues: KeyValue[][] = fields.map((
    f,
  ) => (plain(f) && numbering ? numbering.valueIds(f).values : []));
  const idOf = (d: number, v: KeyValue) => {
    let id = dimIds[d].get(v);
    if (id === undefined) {
      dimIds[d].set(v, id = dimValues[d].length);
      dimValues[d].push(v);
    }
    return id;
  };
  const bt = bucket ? bucketTable(c, bucket) : null;
  const keys: Record<string, KeyValue>[] = [];
  const parts: number[][] = [];
  const sparse = new Map<number | string, number>();
  const newGroup = (p: number[]) => {
    parts.push(p);
    keys.push({});
    return keys.length - 1;
  };
  // first every row's dimension value numbers (this assigns all value numbers), then the groups
  const allDims = c.batches.map((e, b) => {
    const m = masks[b];
    const dims = fields.map((f, d): Int32Array => {
      if (plain(f)) return fieldIds(e, f);
      const ids = new Int32Array(e.n);
      for (let i = 0; i < e.n; i++) if (m[i]) ids[i] = idOf(d, sessionPage(c, e.ses[i], f as "entry_page"));
      return ids;
    });
    if (bt) {
      const ids = new Int32Array(e.n);
      bucketIds(e.t, m, bt.table, bt.slot0, ids);
      dims.push(ids);
    }
    return dims;
  });
  const width = bt ? bt.labels.length : 1;
  const nd = fields.length + (bt ? 1 : 0);
  const size = nd === 0
    ? 1
    : fields.length === 0
    ? width
    : fields.length === 1
    ? dimValues[0].length * width
    : Infinity;
  const dense = size <= 4_000_000 ? new Int32Array(size).fill(-1) : null;
  const rowGroup = c.batches.map((e, b) => {
    const dims = allDims[b], m = masks[b], ranges = matchingRanges(e, m);
    const out = new Int32Array(e.n).fill(-1);
    if (dense) {
      // one small number per row: value * width + bucket
      const fresh = (i: number) => newGroup(dims.map((x) => x[i]));
      if (dims.length === 2) denseGroups2(m, ranges, dims[0], dims[1], width, dense, out, fresh);
      else denseGroups(m, ranges, dims.length === 1 ? dims[0] : null, dense, out, (_key, i) => fresh(i));
    } else {
      for (let j = 0; j < ranges.length; j += 2) {
        for (let i = ranges[j]; i < ranges[j + 1]; i++) {
          if (!m[i]) continue;
          const key = dims.length === 2
            ? dims[0][i] * 67_108_864 + dims[1][i]
            : dims.map((x) => x[i]).join(",");
          let g = sparse.get(key);
          if (g === undefined) sparse.set(key, g = newGroup(dims.map((x) => x[i])));
          out[i] = g;
        }
      }
    }
    return out;
  });
  parts.forEach((p, g) => {
    fields.forEach((f, d) => (keys[g][f] = dimValues[d][p[d]]));
    if (bt) keys[g].bucket = bt.labels[p[fields.length]];
  });
  return { gids: rowGroup, size: keys.length, key: keyOf(keys) };
}

/**
 * A group's key from the keys list, made outside groupRows: a closure made in there would hold its whole
 * scope (the question's context and batches) for as long as the group-by is kept.
 */
const keyOf = (keys: Record<string, KeyValue>[]) => (g: number) => keys[g];
