/**
 * Session totals pre-added at build time, so a period's headline joins only the sessions that need it.
 *
 * Within one part, a session's fact rows (one per hour, touchpoint and traffic kind) join into the session as
 * the part alone sees it. A "simple" session has one touchpoint and one traffic kind in the part; simple
 * sessions are added up per span (touchpoint, traffic kind, first hour, last hour): sessions, sessions with a
 * pageview, bounces, duration and dropped events, and the visitors of the engaged ones (people's sessions,
 * one entry per session). A period takes a span's figures whole when both its hours are inside the period and
 * its touchpoint and traffic kind are in scope: then each of those sessions' rows in the part is in scope, so
 * the part's figures are the period's — unless the session has rows in another part (or the raw tail). Which
 * sessions do is told by each part's session keys (visitor number, first id hash), sorted, with the block of
 * the session's facts; a key found in two parts (or a chance equal key: harmless) has its session taken out
 * of its span as the part alone counted it and joined whole with the others.
 *
 * The facts are stored in blocks by the hour a session starts in the part (every row of a session in one
 * block), so a period reads only the blocks holding sessions to join: those in two parts (sessions across
 * midnight UTC or part boundaries, late arrivals), those of spans cut by the period's ends, and sessions that
 * are not simple.
 */
import { holdArraysOf } from "../../working_memory.ts";
import { isEngagedSession } from "../scan/engaged.ts";
import { firstAtLeast } from "../sorted.ts";
import { releaseViews } from "./let_go.ts";
import type { FactLists } from "./pieces.ts";
import type { FactEnds, SessionFacts } from "./session_facts.ts";
import { entriesAndExits, joinSessions, type SessionJoin, settleDrops } from "./sessions.ts";

/**
 * Blocks a part's facts are stored in: 24 by the hour its sessions start in the part, and the edge block
 * (sessions most likely in another part too: near the part's first or last receive time, or of its first or
 * last visitor in row order, where parts of one day are cut). Which block a session is in only decides what
 * a period reads, never a figure.
 */
export const BLOCKS = 25;
export const EDGE = 24;
/** How near the part's ends an edge session comes (a session crossing midnight UTC rarely pauses longer). */
const EDGE_MS = 15 * 60_000;

/** Per span of simple sessions: where they are and their figures as the part alone counts them. */
export interface Spans {
  n: number;
  tp: Uint16Array;
  traffic: Uint8Array;
  h0: Uint32Array;
  h1: Uint32Array;
  /** the block holding the span's sessions' facts */
  block: Uint8Array;
  sessions: Uint32Array;
  withPageview: Uint32Array;
  bounces: Uint32Array;
  durationMs: Float64Array;
  dropped: Float64Array;
  /** visitors of the span's engaged people's sessions (one entry a session, sorted): engaged[engAt[i], engAt[i + 1]) */
  engAt: Uint32Array;
  engaged: Uint32Array;
  /** 1: the block holds a session that is not simple (always joined) */
  complex: Uint8Array;
  /** the facts' cut visitors (session_facts.ts), kept so the facts rebuilt from the stored ones block alike */
  cut?: [number, number];
}

/**
 * A part's sessions by key, sorted by (visitor, first id hash), with the block of each one's facts. Two
 * sessions of one visitor may share a key (below 2^-32 a pair): both are then taken for shared (joined, exactly).
 */
export interface PartKeys {
  n: number;
  vis: Uint32Array;
  h: Uint32Array;
  block: Uint8Array;
  /**
   * Short keys (store.ts SHORT_KEYS_SEC): full[x] = 1 where h[x] is the whole first id hash, 0 where it holds
   * only its low 24 bits (a visitor with few sessions in the part). Absent: every h is whole. Keys compared
   * by fewer bits may be taken for shared when they are not: harmless, as for two sessions sharing a hash.
   */
  full?: Uint8Array;
}

/** A part without session keys. */
export const noKeys = (): PartKeys => ({
  n: 0,
  vis: new Uint32Array(0),
  h: new Uint32Array(0),
  block: new Uint8Array(0),
});

/** The bits of a first id hash short keys keep (store.ts SHORT_KEYS_SEC). */
export const SHORT_MASK = 0xffffff;

/** Whether two keys of one visitor may be one session: their hashes, on the low 24 bits unless both are whole. */
const sameKey = (ha: number, fa: number, hb: number, fb: number) =>
  fa & fb ? ha === hb : ((ha ^ hb) & SHORT_MASK) === 0;

/**
 * A part's keys that another part may hold, as numbers to look its fact rows up by (`sharedHas`): whole keys
 * (visitor × 2^32 + first id hash) and short ones (visitor × 2^24 + its low 24 bits). A row's own key in its
 * part is whole or short by how many sessions its visitor has there, so a row never matches the other kind.
 */
export interface SharedSet {
  full: Set<number>;
  short: Set<number>;
}

export const emptyShared = (): SharedSet => ({ full: new Set(), short: new Set() });
export const sharedSize = (s: SharedSet): number => s.full.size + s.short.size;
/** Key x of part keys k into the part's shared set. */
export function addShared(s: SharedSet, k: PartKeys, x: number): void {
  if (!k.full || k.full[x]) s.full.add(k.vis[x] * 4_294_967_296 + k.h[x]);
  else s.short.add(k.vis[x] * 16_777_216 + (k.h[x] & SHORT_MASK));
}
/** Whether a fact row of the part (visitor, first id hash) is of a session another part may hold. */
export const sharedHas = (s: SharedSet, vis: number, h1: number): boolean =>
  s.full.has(vis * 4_294_967_296 + h1) ||
  (s.short.size > 0 && s.short.has(vis * 16_777_216 + (h1 & SHORT_MASK)));

/** The block of a session starting at hour h in a part whose hours run lo..hi. */
export function blockOf(h: number, lo: number, hi: number): number {
  return Math.min(EDGE - 1, Math.floor(((h - lo) * EDGE) / (hi - lo + 1)));
}

/** A part's sessions as the part alone sees them (its facts joined over every hour, touchpoint and traffic kind). */
export interface LocalSessions {
  join: SessionJoin;
  /** per session: one touchpoint and one traffic kind, its first and last hour, its touchpoint and traffic */
  simple: Uint8Array;
  h0: Uint32Array;
  h1: Uint32Array;
  tp: Uint16Array;
  traffic: Uint8Array;
}

/**
 * Joins facts into their sessions within the unit. `lists`: the facts' device-time lists, to settle the
 * dropped events of sessions whose segments overlap (null: the figures are not read, only who is what).
 */
export function localSessions(
  facts: SessionFacts,
  tps: (string | null)[],
  traffics: (string | null)[],
  lists: FactLists | null,
): LocalSessions {
  let top = 0;
  for (let k = 0; k < facts.n; k++) if (facts.vis[k] > top) top = facts.vis[k];
  const traffic = new Set(traffics.filter((t): t is string => t !== null));
  const join = joinSessions([{ facts, tps, traffics }], [new Set(facts.hour)], null, traffic, top + 1);
  if (lists) settleDrops(join, [lists]);
  const n = join.j.n, slot = join.slots[0];
  const out: LocalSessions = {
    join,
    simple: new Uint8Array(n).fill(1),
    h0: new Uint32Array(n).fill(0xffffffff),
    h1: new Uint32Array(n),
    tp: new Uint16Array(n),
    traffic: new Uint8Array(n),
  };
  const seen = new Uint8Array(n);
  for (let k = 0; k < facts.n; k++) {
    const s = slot[k];
    if (s < 0) continue;
    const h = facts.hour[k];
    if (h < out.h0[s]) out.h0[s] = h;
    if (h > out.h1[s]) out.h1[s] = h;
    if (!seen[s]) {
      seen[s] = 1;
      out.tp[s] = facts.tp[k];
      out.traffic[s] = facts.traffic[k];
    } else if (out.tp[s] !== facts.tp[k] || out.traffic[s] !== facts.traffic[k]) out.simple[s] = 0;
  }
  return out;
}

/** Whether session s of a part was engaged as the part alone saw it (people's sessions only). */
export function engagedLocally(l: LocalSessions, s: number): boolean {
  const j = l.join.j;
  return j.human[s] === 1 && isEngagedSession(j.last[s] - j.first[s], j.pv[s], j.act[s] === 1);
}

/** What a part's rollup stores for its sessions: its facts' row order by block, the spans and the keys. */
export interface SpansBuilt {
  /** fact rows in stored order; block b's rows are order[blockAt[b], blockAt[b + 1]) */
  order: Uint32Array;
  blockAt: Uint32Array;
  spans: Spans;
  keys: PartKeys;
  /** the spans' entry and exit pages (null: the facts have no ends) */
  ends: SpanEnds | null;
}

/** Spans, keys and the blocks of a part's facts (`hours`: the part's hours, sorted). */
export function buildSpans(
  facts: SessionFacts,
  tps: (string | null)[],
  traffics: (string | null)[],
  hours: { hour: number }[],
): SpansBuilt {
  const lo = hours.length ? hours[0].hour : 0, hi = hours.length ? hours[hours.length - 1].hour : 0;
  const l = localSessions(facts, tps, traffics, facts);
  const { j, slots } = l.join;
  const slot = slots[0];
  let t0 = Infinity, t1 = -Infinity;
  for (let s = 0; s < j.n; s++) {
    if (j.first[s] < t0) t0 = j.first[s];
    if (j.last[s] > t1) t1 = j.last[s];
  }
  const [v0, v1] = facts.cut ?? (facts.n ? [facts.vis[0], facts.vis[facts.n - 1]] : [-1, -1]);
  const sBlock = new Uint8Array(j.n);
  for (let s = 0; s < j.n; s++) {
    const edge = j.first[s] < t0 + EDGE_MS || j.last[s] > t1 - EDGE_MS || j.vis[s] === v0 || j.vis[s] === v1;
    sBlock[s] = edge ? EDGE : blockOf(l.h0[s], lo, hi);
  }
  // rows by block (stable): every row of a session lies in its block; rows in no session (no traffic kind)
  // go by their own hour
  const rowBlock = new Uint8Array(facts.n);
  const blockAt = new Uint32Array(BLOCKS + 1);
  for (let k = 0; k < facts.n; k++) {
    rowBlock[k] = slot[k] >= 0 ? sBlock[slot[k]] : blockOf(facts.hour[k], lo, hi);
    blockAt[rowBlock[k] + 1]++;
  }
  for (let b = 0; b < BLOCKS; b++) blockAt[b + 1] += blockAt[b];
  const order = new Uint32Array(facts.n), fill = blockAt.slice(0, BLOCKS);
  for (let k = 0; k < facts.n; k++) order[fill[rowBlock[k]]++] = k;

  // spans of simple sessions
  const complex = new Uint8Array(BLOCKS);
  const index = new Map<string, number>();
  const members: number[][] = [];
  for (let s = 0; s < j.n; s++) {
    if (!l.simple[s]) {
      complex[sBlock[s]] = 1;
      continue;
    }
    const key = `${l.tp[s]}.${l.traffic[s]}.${l.h0[s]}.${l.h1[s]}`;
    let g = index.get(key);
    if (g === undefined) index.set(key, g = members.push([]) - 1);
    members[g].push(s);
  }
  const n = members.length;
  const spanOf = new Int32Array(j.n).fill(-1);
  members.forEach((list, g) => {
    for (const x of list) spanOf[x] = g;
  });
  const spans: Spans = {
    n,
    tp: new Uint16Array(n),
    traffic: new Uint8Array(n),
    h0: new Uint32Array(n),
    h1: new Uint32Array(n),
    block: new Uint8Array(n),
    sessions: new Uint32Array(n),
    withPageview: new Uint32Array(n),
    bounces: new Uint32Array(n),
    durationMs: new Float64Array(n),
    dropped: new Float64Array(n),
    engAt: new Uint32Array(n + 1),
    engaged: new Uint32Array(0),
    complex,
    cut: [v0, v1],
  };
  const engaged: number[] = [];
  members.forEach((list, g) => {
    const s0 = list[0];
    spans.tp[g] = l.tp[s0];
    spans.traffic[g] = l.traffic[s0];
    spans.h0[g] = l.h0[s0];
    spans.h1[g] = l.h1[s0];
    spans.block[g] = sBlock[s0];
    spans.engAt[g] = engaged.length;
    const eng: number[] = [];
    for (const s of list) {
      spans.sessions[g]++;
      if (j.pv[s] > 0) spans.withPageview[g]++;
      if (j.pv[s] <= 1) spans.bounces[g]++;
      spans.durationMs[g] += j.last[s] - j.first[s];
      spans.dropped[g] += j.gaps[s];
      if (engagedLocally(l, s)) eng.push(j.vis[s]);
    }
    engaged.push(...eng.sort((a, b) => a - b));
  });
  spans.engAt[n] = engaged.length;
  spans.engaged = Uint32Array.from(engaged);

  // keys, sorted by (visitor, first id hash)
  const byKey = Array.from({ length: j.n }, (_, s) => s).sort((a, b) =>
    j.vis[a] - j.vis[b] || j.h1[a] - j.h1[b]
  );
  const keys: PartKeys = {
    n: j.n,
    vis: Uint32Array.from(byKey, (s) => j.vis[s]),
    h: Uint32Array.from(byKey, (s) => j.h1[s]),
    block: Uint8Array.from(byKey, (s) => sBlock[s]),
  };
  return { order, blockAt, spans, keys, ends: facts.ends ? spanEndsOf(l, facts.ends, spanOf, n) : null };
}

/**
 * Per span, its sessions' entry and exit pages as the part alone counts them: (page code into the part's
 * ends' pages, sessions) ascending by code, span g's in [entAt[g], entAt[g + 1]). A period adds a span's
 * whole (as it adds its totals), so a question asking entries or exits joins only the sessions it joins for
 * the totals instead of every session of the period (at 10M events every part's facts and ends, ~80 MB read).
 */
export interface SpanEnds {
  n: number;
  /** the pages the codes name: pages[code - 1] */
  pages: (string | null)[];
  entAt: Uint32Array;
  entPage: Uint32Array;
  entN: Uint32Array;
  extAt: Uint32Array;
  extPage: Uint32Array;
  extN: Uint32Array;
}

/**
 * The spans' ends from a part's sessions as the part alone sees them (`l`, over the facts whose ends `ends`
 * are, row for row; `spanOf[s]`: session s's span, -1 when not simple). Each (span, page) is made a page of
 * its own for the one comparison of ends (sessions.ts `entriesAndExits`), which then counts them per span.
 */
function spanEndsOf(l: LocalSessions, ends: FactEnds, spanOf: Int32Array, n: number): SpanEnds {
  const slot = l.join.slots[0], size = ends.pages.length + 1;
  const codes = new Map<number, number>(), keyOf: number[] = [];
  const code = (g: number, c: number) => {
    if (c === 0) return 0;
    const k = g * size + c;
    let x = codes.get(k);
    if (x === undefined) codes.set(k, x = keyOf.push(k));
    return x;
  };
  const entPage = new Uint32Array(slot.length), extPage = new Uint32Array(slot.length);
  for (let k = 0; k < slot.length; k++) {
    const g = slot[k] < 0 ? -1 : spanOf[slot[k]];
    // rows of sessions in no span keep code 0: the comparison passes over them
    if (g < 0) continue;
    entPage[k] = code(g, ends.entPage[k]);
    extPage[k] = code(g, ends.extPage[k]);
  }
  const got = entriesAndExits(l.join, [{ ...ends, entPage, extPage, pages: keyOf.map(String) }]);
  const list = (m: Map<string | null, number>) => {
    const rows = [...m].map(([k, c]) => [Number(k), c]).sort((a, b) => a[0] - b[0]);
    const at = new Uint32Array(n + 1);
    for (const [k] of rows) at[Math.floor(k / size) + 1]++;
    for (let g = 0; g < n; g++) at[g + 1] += at[g];
    return {
      at,
      page: Uint32Array.from(rows, ([k]) => k % size),
      count: Uint32Array.from(rows, ([, c]) => c),
    };
  };
  const ent = list(got.entries), ext = list(got.exits);
  // the codes made the spans' own (ascending as the ends' were), so the section carries only the pages it names
  const named = [...new Set([...ent.page, ...ext.page])].sort((a, b) => a - b);
  const local = new Map(named.map((c, x) => [c, x + 1]));
  for (const a of [ent.page, ext.page]) for (let x = 0; x < a.length; x++) a[x] = local.get(a[x])!;
  return {
    n,
    pages: named.map((c) => ends.pages[c - 1]),
    entAt: ent.at,
    entPage: ent.page,
    entN: ent.count,
    extAt: ext.at,
    extPage: ext.page,
    extN: ext.count,
  };
}

/**
 * The spans' ends of a part's stored facts (stored order, `ends` the same rows'): each simple session is put
 * in the stored span of its touchpoint, traffic kind and hours, as `buildSpans` put it (the backfill adds them
 * to a rollup written before them).
 */
export function storedSpanEnds(
  facts: SessionFacts,
  ends: FactEnds,
  tps: (string | null)[],
  traffics: (string | null)[],
  spans: Spans,
): SpanEnds {
  const l = localSessions(facts, tps, traffics, null);
  const index = new Map<string, number>();
  for (let g = 0; g < spans.n; g++) {
    index.set(`${spans.tp[g]}.${spans.traffic[g]}.${spans.h0[g]}.${spans.h1[g]}`, g);
  }
  const spanOf = new Int32Array(l.join.j.n).fill(-1);
  for (let x = 0; x < spanOf.length; x++) {
    if (!l.simple[x]) continue;
    const g = index.get(`${l.tp[x]}.${l.traffic[x]}.${l.h0[x]}.${l.h1[x]}`);
    if (g === undefined) throw new Error("a simple session of the stored facts lies in no stored span");
    spanOf[x] = g;
  }
  return spanEndsOf(l, ends, spanOf, spans.n);
}

/**
 * Which keys of each part are also a key of another part: flags per part, per key. The visitor numbers are
 * taken a range at a time (`RANGE` numbers), each part's keys of the range found by its cursor (keys are
 * sorted by visitor); the range's keys go into one small open-addressing table by (visitor, low 24 bits of the
 * first id hash), which every pair `sameKey` may call equal shares, and a key is compared only with those
 * before it in its probe run. Equal keys in one part only are not shared (two sessions of a visitor sharing a
 * key there are joined by the part's facts). The table stays in the processor's cache and holds only numbers
 * that fit 32 bits: the walk per visitor number it replaced (each number's parts and count of keys, then the
 * keys of visitors in several parts laid out by visitor and compared, a bot's sorted as doubles) took ~180 ms
 * of CPU for a cold overview's 1.72M keys at 10M events, ~60-80 ms more than this.
 */
export function sharedKeys(
  parts: PartKeys[],
  space: number,
  /** visitor numbers taken at a time (fewer: a smaller table, more ranges walked) and the first one */
  window = RANGE,
  from = 0,
): Uint8Array[] {
  let top = Math.max(1, space);
  for (const k of parts) if (k.n && k.vis[k.n - 1] >= top) top = k.vis[k.n - 1] + 1;
  const np = parts.length;
  const out = parts.map((k) => new Uint8Array(k.n));
  // each part's first key not yet taken (keys below `from`: none, or left unshared)
  const at = Int32Array.from(parts, (k) => firstAtLeast(k.vis, from, k.n));
  // (1,024 slots, ~21 kB, or fewer when there are fewer keys: a few parts' or a pass over a range of visitor
  // numbers' keys need no more; it grows per range as needed)
  let keys = 0, first = 4;
  for (const k of parts) keys += k.n;
  while (first < 10 && keys * 2 > 1 << first) first++;
  let t = keyTable(first);
  for (let lo = from; lo < top; lo += window) {
    const hi = lo + window;
    t.range++;
    // the range's keys, for the table's size (at most half its slots taken)
    let m = 0;
    for (let p = 0; p < np; p++) m += firstAtLeast(parts[p].vis, hi, parts[p].n) - at[p];
    if (m * 2 > t.mask + 1) {
      let bits = 32 - t.shift;
      while (m * 2 > 1 << bits) bits++;
      freeKeyTable(t);
      t = keyTable(bits);
    }
    for (let p = 0; p < np; p++) at[p] = takeKeys(t, parts[p], p, out, at[p], hi);
  }
  // the table is this search's alone (at 10M events ~4 MB): freed now, not at V8's next full collection
  freeKeyTable(t);
  return out;
}

/**
 * `sharedKeys`' table: per slot, the range that took it (slots of an earlier range are free), the key's
 * visitor, hash, part, index in its part and whether its hash is whole.
 */
interface KeyTable {
  taken: Int32Array;
  sv: Int32Array;
  sh: Int32Array;
  sp: Int32Array;
  sx: Int32Array;
  sf: Uint8Array;
  range: number;
  mask: number;
  shift: number;
}

function keyTable(bits: number): KeyTable {
  const size = 1 << bits;
  return held({
    taken: new Int32Array(size),
    sv: new Int32Array(size),
    sh: new Int32Array(size),
    sp: new Int32Array(size),
    sx: new Int32Array(size),
    sf: new Uint8Array(size),
    range: 1,
    mask: size - 1,
    shift: 32 - bits,
  });
}

/** (the search's table is the question's own while it answers: lib/working_memory.ts) */
function held<T extends object>(x: T): T {
  holdArraysOf(x);
  return x;
}

/** The table's arrays back to the allocator now (the search's alone), not at V8's next full collection. */
const freeKeyTable = (t: KeyTable) => releaseViews([t.taken, t.sv, t.sh, t.sp, t.sx, t.sf]);

/**
 * Puts part p's keys from x on below visitor number hi in the table, flagging those another part's key there
 * may equal (and that key); returns the part's first key not taken. A function of its own: as a loop inside
 * `sharedKeys`, V8 compiled only the loop and left that code at every part's end.
 */
function takeKeys(t: KeyTable, k: PartKeys, p: number, out: Uint8Array[], x: number, hi: number): number {
  const { taken, sv, sh, sp, sx, sf, range, mask, shift } = t;
  const { vis, h, full, n } = k, flags = out[p];
  for (; x < n; x++) {
    const v = vis[x];
    if (v >= hi) break;
    // (hashes as int32: whole ones pass 2^31, and a double there would be boxed until the code is optimized)
    const hx = h[x] | 0, fx = full ? full[x] : 1;
    let s = (Math.imul(v, 0x9e3779b1) ^ Math.imul(hx & SHORT_MASK, 0x85ebca77)) >>> shift;
    // every earlier key of this visitor and low bits lies between this first slot and the next free one
    while (taken[s] === range) {
      if (sv[s] === v && sp[s] !== p && sameKey(sh[s], sf[s], hx, fx)) {
        flags[x] = 1;
        out[sp[s]][sx[s]] = 1;
      }
      s = (s + 1) & mask;
    }
    taken[s] = range;
    sv[s] = v;
    sh[s] = hx;
    sp[s] = p;
    sx[s] = x;
    sf[s] = fx;
  }
  return x;
}

/** Visitor numbers `sharedKeys` takes at a time (~8,000: at 10M events ~14,000 keys, a table of ~0.6 MB). */
const RANGE = 1 << 13;

/**
 * Visitor numbers `sharedKeys` takes at a time for a pass over `width` numbers (one of several over ranges of
 * them): about an eighth of them, 64 to RANGE, so its table holds about an eighth of the pass's keys.
 */
export function keysWindow(width: number): number {
  let w = 64;
  while (w < RANGE && w * 16 <= width) w *= 2;
  return w;
}

/**
 * About the most `sharedKeys`' table holds for `keys` keys spread evenly over `space` visitor numbers: a
 * window of numbers' keys at a time, 2-4 slots of 21 bytes a key.
 */
export const sharedKeysBytes = (keys: number, space: number, window = RANGE): number =>
  84 * keys * Math.min(1, window / Math.max(space, 1));

/**
 * A part's keys of visitors in the range, copied (keys are sorted by visitor number: one stretch of them, from
 * index `a` to `b`); a visitor's sessions all carry its number, so a pass over the range has whole sessions.
 */
export function keysInRange(
  keys: PartKeys,
  range: { lo: number; hi: number },
): { keys: PartKeys; a: number; b: number } {
  const a = firstAtLeast(keys.vis, range.lo, keys.n);
  const b = range.hi === Infinity ? keys.n : firstAtLeast(keys.vis, range.hi, keys.n);
  return {
    keys: {
      n: b - a,
      vis: keys.vis.slice(a, b),
      h: keys.h.slice(a, b),
      block: keys.block.slice(a, b),
      ...(keys.full ? { full: keys.full.slice(a, b) } : {}),
    },
    a,
    b,
  };
}

/**
 * Whether keys may hold session (v, first id hash h1): found among whole keys, or its visitor's keys compared
 * as `sharedKeys` compares them (short keys are sorted by visitor, then by whole hash).
 */
export function mayHoldKey(k: PartKeys, v: number, h1: number): boolean {
  if (!k.full) return findKey(k, v, h1) >= 0;
  for (let x = firstAtLeast(k.vis, v, k.n); x < k.n && k.vis[x] === v; x++) {
    if (sameKey(k.h[x], k.full[x], h1 >>> 0, 1)) return true;
  }
  return false;
}

/** The index of the key of session (v, first id hash h1) in sorted keys, or -1. */
export function findKey(k: PartKeys, v: number, h1: number): number {
  let lo = 0, hi = k.n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (k.vis[mid] < v || (k.vis[mid] === v && k.h[mid] < h1)) lo = mid + 1;
    else hi = mid;
  }
  return lo < k.n && k.vis[lo] === v && k.h[lo] === h1 ? lo : -1;
}
