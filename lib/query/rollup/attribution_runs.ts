/**
 * Sources' sessions per part, sorted out at build (rollup version 10): a part's sessions that are "simple" (one
 * touchpoint, one traffic kind, a session key of their own in the part) are put in runs keyed by touchpoint,
 * traffic kind and signature (the set of attributions their rows carry, each with whether it came with a
 * pageview). A run lists its sessions by key index (into the part's sorted keys, spans.ts) with each one's
 * first and last hour and entry page (its first pageview in the part), so a reader takes a session as the part
 * counted it when both its hours lie in the period and no other part (nor the raw tail) holds it: those, the
 * sessions the period cuts and the sessions that are not simple are joined from their blocks' rows as before
 * (attribution.ts). A period's sessions then cost a few numbers each, not their fact rows and their join.
 */
import { attributionJoin, type LeanFacts } from "./attribution.ts";
import { type AttrMulti, type FactEnds, HOUR, MULTI_ATTR } from "./session_facts.ts";
import { BLOCKS, findKey, type PartKeys } from "./spans.ts";

/** A part's runs as stored (see the file's comment). */
export interface AttrRuns {
  /** runs: (touchpoint, traffic kind, signature) */
  n: number;
  tp: Uint16Array;
  traffic: Uint8Array;
  /** the run's signature, into `sigs` */
  sig: Uint32Array;
  /** run r's sessions are [at[r], at[r + 1]) of the per-session arrays */
  at: Uint32Array;
  /** per session: its key index (ascending within a run), first and last hour, entry page (a code into `pages`
   * + 1; 0: no pageview) */
  keys: Uint32Array;
  h0: Uint32Array;
  h1: Uint32Array;
  entry: Uint32Array;
  /** each signature: its attributions as code × 2 + (1: with a pageview of it), ascending */
  sigs: number[][];
  /** the part's attributions (the attribution section's tuples) and entry pages (the ends' pages) */
  tuples: (string | null)[][];
  pages: (string | null)[];
  /** 1: the block holds a session left out of the runs (always joined from rows) */
  complex: Uint8Array;
  /** rows per block in the facts' stored order (to find a block's rows in the attribution and ends sections) */
  blockRows: Uint32Array;
}

/**
 * The runs of a part's facts (`attr`, `multi` and `ends` row for row with `facts`, in the same order), given
 * its keys (with the block of each session) and its blocks' row counts in stored order.
 */
export function buildRuns(
  facts: LeanFacts,
  codes: Uint32Array,
  multi: AttrMulti,
  tuples: (string | null)[][],
  ends: FactEnds,
  tps: (string | null)[],
  traffics: (string | null)[],
  keys: PartKeys,
  blockRows: Uint32Array,
): AttrRuns {
  const every = new Set<number>();
  for (let k = 0; k < facts.n; k++) every.add(facts.hour[k]);
  const kinds = new Set(traffics.filter((t): t is string => t !== null));
  const join = attributionJoin([{ facts, tps, traffics }], [every], null, kinds, 0, true);
  const slot = join.slots[0], n = join.n;
  const complex = new Uint8Array(BLOCKS);
  // per session: simple, span, its signature's items, entry row
  const simple = new Uint8Array(n).fill(1), seen = new Uint8Array(n);
  const tp = new Uint16Array(n), tr = new Uint8Array(n);
  const h0 = new Uint32Array(n).fill(0xffffffff), h1 = new Uint32Array(n);
  const vis = new Uint32Array(n), hash = new Uint32Array(n);
  const items: number[][] = Array.from({ length: n }, () => []);
  const entryRow = new Int32Array(n).fill(-1);
  // the rows of several attributions, in row order
  const byRow = Array.from(multi.row, (_, x) => x).sort((x, y) => multi.row[x] - multi.row[y]);
  let m = 0;
  for (let k = 0; k < facts.n; k++) {
    const s = slot[k];
    if (s < 0) continue;
    const h = facts.hour[k];
    if (!seen[s]) {
      seen[s] = 1;
      tp[s] = facts.tp[k];
      tr[s] = facts.traffic[k];
      vis[s] = facts.vis[k];
      hash[s] = facts.h1[k];
    } else if (tp[s] !== facts.tp[k] || tr[s] !== facts.traffic[k]) simple[s] = 0;
    if (h < h0[s]) h0[s] = h;
    if (h > h1[s]) h1[s] = h;
    if (codes[k] !== MULTI_ATTR) items[s].push(codes[k] * 2 + (facts.pv[k] > 0 ? 1 : 0));
    else {
      while (m < byRow.length && multi.row[byRow[m]] < k) m++;
      for (let y = m; y < byRow.length && multi.row[byRow[y]] === k; y++) {
        const x = byRow[y];
        items[s].push(multi.code[x] * 2 + (multi.pv[x] > 0 ? 1 : 0));
      }
    }
    if (ends.entPage[k] === 0) continue;
    // the session's first pageview: strictly earlier (receive time, device time, number) wins, as
    // sessionEntries (attribution.ts) compares them
    const w = entryRow[s];
    const t0 = h * HOUR + ends.entT[k];
    const wt = w < 0 ? Infinity : facts.hour[w] * HOUR + ends.entT[w];
    const wd = w < 0 ? 0 : ends.entDt[w], ws = w < 0 ? 0 : ends.entSeq[w];
    if (t0 < wt || (t0 === wt && (ends.entDt[k] < wd || (ends.entDt[k] === wd && ends.entSeq[k] < ws)))) {
      entryRow[s] = k;
    }
  }
  // each session's key index; a key two sessions share is left out (both joined from rows)
  const keyOf = new Int32Array(n).fill(-1);
  for (let s = 0; s < n; s++) {
    const x = findKey(keys, vis[s], hash[s]);
    if (x < 0) throw new Error("a session of the part's facts has no key");
    const dup = x + 1 < keys.n && keys.vis[x + 1] === vis[s] && keys.h[x + 1] === hash[s];
    if (dup) {
      for (let y = x; y < keys.n && keys.vis[y] === vis[s] && keys.h[y] === hash[s]; y++) {
        complex[keys.block[y]] = 1;
      }
      continue;
    }
    if (!simple[s]) {
      complex[keys.block[x]] = 1;
      continue;
    }
    keyOf[s] = x;
  }
  // signatures, then runs by (span, block, signature, entry)
  const sigIds = new Map<string, number>(), sigs: number[][] = [];
  const sigOf = new Int32Array(n);
  for (let s = 0; s < n; s++) {
    if (keyOf[s] < 0) continue;
    const list = [...new Set(items[s])].sort((a, b) => a - b);
    // an attribution with and without a pageview: with
    const merged = list.filter((v) => !(v % 2 === 0 && list.includes(v + 1)));
    const key = merged.join(",");
    let g = sigIds.get(key);
    if (g === undefined) sigIds.set(key, g = sigs.push(merged) - 1);
    sigOf[s] = g;
  }
  const runIds = new Map<string, number>(), members: number[][] = [];
  const runKey: number[][] = [];
  for (let s = 0; s < n; s++) {
    if (keyOf[s] < 0) continue;
    const k = [tp[s], tr[s], sigOf[s]];
    const id = k.join(".");
    let r = runIds.get(id);
    if (r === undefined) {
      runIds.set(id, r = members.push([]) - 1);
      runKey.push(k);
    }
    members[r].push(s);
  }
  const runs = members.length, total = members.reduce((a, l) => a + l.length, 0);
  const out: AttrRuns = {
    n: runs,
    tp: Uint16Array.from(runKey, (k) => k[0]),
    traffic: Uint8Array.from(runKey, (k) => k[1]),
    sig: Uint32Array.from(runKey, (k) => k[2]),
    at: new Uint32Array(runs + 1),
    keys: new Uint32Array(total),
    h0: new Uint32Array(total),
    h1: new Uint32Array(total),
    entry: new Uint32Array(total),
    sigs,
    tuples,
    pages: ends.pages,
    complex,
    blockRows,
  };
  let o = 0;
  members.forEach((list, r) => {
    out.at[r] = o;
    for (const s of list.sort((a, b) => keyOf[a] - keyOf[b])) {
      out.keys[o] = keyOf[s];
      out.h0[o] = h0[s];
      out.h1[o] = h1[s];
      out.entry[o++] = entryRow[s] < 0 ? 0 : ends.entPage[entryRow[s]];
    }
  });
  out.at[runs] = o;
  return out;
}
