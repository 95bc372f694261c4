/**
 * A field's rows over all of a part's hours ("wide" rows, rollup version 7): one row per value, touchpoint and
 * traffic kind with the hourly rows' figures added and their visitor (and viewer) sets unioned (their kept
 * reporters too, capped again: reporters.ts). A question without a time bucket whose period holds every hour
 * of a part reads these instead of the hourly rows: the same sums and the same unions (a union of unions),
 * from far fewer rows (a value's hours fold into one) and fewer set members (a visitor seen in several hours
 * of the part is one member). Its rows carry the part's first hour, which lies in the period whenever every
 * hour of the part does, so everything downstream that checks a row's hour against the period takes them as
 * it takes the hourly ones.
 */
import { encodeSet, forEachMember } from "../../parts/visitor_set.ts";
import type { Rollup } from "./build.ts";
import { emptyFacts } from "./pieces.ts";
import { addRowReporters, NO_REPORTERS, packReporters } from "./reporters.ts";

/** Field rows of one piece (`fieldPiece`) folded over the part's hours. */
export function widePiece(p: Rollup): Rollup {
  const hour = p.hours.length ? p.hours[0].hour : 0;
  const group = new Map<number, number>();
  const members: { vis: number[]; view: number[] }[] = [];
  const of: number[][] = [];
  for (let i = 0; i < p.n; i++) {
    // value codes stay far below 2^29, so the key is exact
    const key = (p.value[i] * 65_536 + p.tp[i]) * 256 + p.traffic[i];
    let g = group.get(key);
    if (g === undefined) {
      group.set(key, g = of.length);
      of.push([]);
      members.push({ vis: [], view: [] });
    }
    of[g].push(i);
  }
  const n = of.length;
  const w: Rollup = {
    n,
    hour: new Uint32Array(n).fill(hour),
    tp: new Uint16Array(n),
    traffic: new Uint8Array(n),
    field: new Uint8Array(n),
    value: new Uint32Array(n),
    events: new Uint32Array(n),
    pageviews: new Uint32Array(n),
    rage: new Uint32Array(n),
    engN: new Uint32Array(n),
    scrollN: new Uint32Array(n),
    engSum: new Float64Array(n),
    scrollSum: new Float64Array(n),
    visAt: new Uint32Array(n + 1),
    viewAt: new Uint32Array(n + 1),
    sets: new Uint8Array(0),
    repAt: NO_REPORTERS,
    rep: NO_REPORTERS,
    values: p.values,
    tps: p.tps,
    traffics: p.traffics,
    hours: p.hours,
    facts: emptyFacts(),
  };
  const encoded: Uint8Array[] = [];
  const reps: number[][] = [];
  let size = 0;
  of.forEach((rows, g) => {
    const first = rows[0];
    w.tp[g] = p.tp[first];
    w.traffic[g] = p.traffic[first];
    w.field[g] = p.field[first];
    w.value[g] = p.value[first];
    const m = members[g], rep: number[] = [];
    reps.push(rep);
    for (const i of rows) {
      addRowReporters(rep, p, i);
      w.events[g] += p.events[i];
      w.pageviews[g] += p.pageviews[i];
      w.rage[g] += p.rage[i];
      w.engN[g] += p.engN[i];
      w.scrollN[g] += p.scrollN[i];
      w.engSum[g] += p.engSum[i];
      w.scrollSum[g] += p.scrollSum[i];
      forEachMember(p.sets, p.visAt[i], p.viewAt[i], (v) => m.vis.push(v));
      forEachMember(p.sets, p.viewAt[i], p.visAt[i + 1], (v) => m.view.push(v));
    }
    // encodeSet sorts and drops repeats: the union
    const vis = encodeSet(m.vis), view = encodeSet(m.view);
    w.visAt[g] = size;
    w.viewAt[g] = size + vis.length;
    size += vis.length + view.length;
    encoded.push(vis, view);
  });
  w.visAt[n] = w.viewAt[n] = size;
  const sets = new Uint8Array(size);
  let o = 0;
  for (const e of encoded) {
    sets.set(e, o);
    o += e.length;
  }
  w.sets = sets;
  Object.assign(w, packReporters(reps));
  return w;
}
