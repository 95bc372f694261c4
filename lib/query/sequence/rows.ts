/** Sessions as ordered row references: the walk every sequence question starts from. */
import { eventView } from "../columns/views.ts";
import type { Ctx } from "../scan/ctx.ts";
import { visitorOrder } from "../scan/visitor_order.ts";

/** A row reference: batch b, row i. */
export interface Ref {
  b: number;
  i: number;
}

/** Order of rows inside a session: receive time, device time, sequence number. */
export const cmpRef = (c: Ctx) => (x: Ref, y: Ref) => {
  const a = c.batches[x.b], b = c.batches[y.b];
  return a.t[x.i] - b.t[y.i] || a.dt[x.i] - b.dt[y.i] || a.seq[x.i] - b.seq[y.i];
};

/** Sessions (by number) with a row in scope set in `bits`: the only ones a sequence question needs to walk. */
export function sessionsWith(c: Ctx, bits: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(c.nSes);
  c.batches.forEach((e, b) => {
    const bb = bits[b], ses = e.ses;
    for (let i = 0; i < e.n; i++) if (bb[i]) out[ses[i]] = 1;
  });
  return out;
}

/**
 * Calls `fn` once per session with its in-scope rows in order (visitor by visitor); with `only`, just for
 * the sessions it marks.
 */
export function forEachSession(
  c: Ctx,
  fn: (ses: number, vis: number, rows: Ref[]) => void,
  only?: Uint8Array,
) {
  const { rb, rk, split } = visitorOrder(c);
  const cmp = cmpRef(c);
  let pending = new Map<number, Ref[]>(); // sessions split across batches, until their visitor is done
  let pendingVis = -1;
  const flush = () => {
    for (const [ses, rows] of pending) {
      if (!rows.length) continue;
      rows.sort(cmp);
      fn(ses, pendingVis, rows);
    }
    pending = new Map();
  };
  for (let p = 0; p < rb.length; p++) {
    const b = rb[p], k = rk[p], e = c.batches[b], ses = e.runSes[k], vis = e.runVis[k], m = c.inScope[b];
    if (vis !== pendingVis) {
      if (pending.size) flush();
      pendingVis = vis;
    }
    if (only && !only[ses]) continue;
    let rows: Ref[] | undefined = split[ses] ? pending.get(ses) : undefined;
    if (split[ses] && !rows) pending.set(ses, rows = []);
    const own: Ref[] = rows ?? [];
    for (let i = e.runStart[k]; i < e.runStart[k + 1]; i++) if (m[i]) own.push({ b, i });
    if (!split[ses] && own.length) fn(ses, vis, own);
  }
  if (pending.size) flush();
}

/** A field's value at a row reference. */
export const str = (c: Ctx, r: Ref, field: string) => {
  const v = eventView(c.batches[r.b], field);
  return v.codes.length ? v.values[v.codes[r.i]] : null;
};
