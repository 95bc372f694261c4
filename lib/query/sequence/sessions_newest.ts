/**
 * The newest `limit` sessions without reading the period: parts are read newest first (by their latest
 * receive time), a few at a time, until the newest sessions are known to be final.
 *
 * Why that is exact: after reading some parts (and the raw tail), let M be the latest receive time of any
 * part not read. A row not read has a receive time at most M. A session seen whose first row is later than M
 * and whose id is in none of the unread parts' session tables (their step columns' SESSIONS sections, two id
 * hashes a session) has had every row read: its first row, last time and whether a row matched the filters
 * are final. Every other session starts at M or before (it has a row not read), so it is older than all of
 * those. When `limit` such sessions are found they are the answer, ordered as the scan orders them; else
 * more parts are read (at least twice the rows) and the test is made again. A hash shared with another
 * session only makes the test fail for that session (it is read further), never lets a wrong one through.
 *
 * A part without a step column of the current version is always read. Reading again what was read (the raw
 * tail each round, a part merged into a new one meanwhile) changes nothing: first rows are minima, last
 * times maxima, matches "any". A part read before and gone from a later listing (rows deleted, not merged)
 * cannot be undone, nor can a session table whose part went: the caller then reads every part
 * (`streamSessions`).
 */
import type { StrCol } from "../../parts/columns.ts";
import type { PartMeta } from "../../parts/store.ts";
import type { EvBatch } from "../columns/batch.ts";
import type { ScanContexts } from "../scan/contexts.ts";
import { makeCtx } from "../scan/ctx.ts";
import { matchMasks } from "../scan/filters.ts";
import { idHashes } from "../rollup/session_facts.ts";
import { readStepEntries, readStepSessions, type StepColumnEntry } from "../step_column/store.ts";
import type { SessionsOptions } from "../sequence_types.ts";
import type { Scope } from "../types.ts";

/** The first round reads the parts whose latest row is at most this much older than the newest part's. */
const FIRST_WINDOW_MS = 3_600_000;

/** The sessions chosen: global session numbers newest first, each one's visitor, and their time range. */
export interface Chosen {
  ses: number[];
  vis: number[];
  /** earliest first row and latest row of the chosen sessions */
  lo: number;
  hi: number;
}

/**
 * Per session seen (a local number): its first row in scope (receive time, device time, number), latest
 * receive time, visitor, whether a row matched, and its id's hashes.
 */
class Seen {
  n = 0;
  private cap = 0;
  /** global session number -> local number + 1 */
  private slot = new Int32Array(0);
  ses = new Uint32Array(0);
  t = new Float64Array(0);
  dt = new Float64Array(0);
  seq = new Float64Array(0);
  last = new Float64Array(0);
  vis = new Uint32Array(0);
  /** 1: a row in scope; 2: also a row matching the filters */
  level = new Uint8Array(0);
  h1 = new Uint32Array(0);
  h2 = new Uint32Array(0);

  /** The local number of a global session, or -1. */
  at(x: number): number {
    return x < this.slot.length ? this.slot[x] - 1 : -1;
  }

  add(x: number, vis: number, h: [number, number]): number {
    if (x >= this.slot.length) {
      const slot = new Int32Array(Math.max(x + 1, this.slot.length * 2, 1024));
      slot.set(this.slot);
      this.slot = slot;
    }
    if (this.n === this.cap) this.grow();
    const k = this.n++;
    this.slot[x] = k + 1;
    this.ses[k] = x;
    this.vis[k] = vis;
    this.t[k] = Infinity;
    this.last[k] = -Infinity;
    this.h1[k] = h[0];
    this.h2[k] = h[1];
    return k;
  }

  private grow() {
    const cap = Math.max(1024, this.cap * 2);
    const more = <T extends Float64Array | Uint32Array | Uint8Array>(a: T): T => {
      const x = new (a.constructor as { new (n: number): T })(cap);
      x.set(a);
      return x;
    };
    this.ses = more(this.ses);
    this.t = more(this.t);
    this.dt = more(this.dt);
    this.seq = more(this.seq);
    this.last = more(this.last);
    this.vis = more(this.vis);
    this.level = more(this.level);
    this.h1 = more(this.h1);
    this.h2 = more(this.h2);
    this.cap = cap;
  }
}

/** Two 32-bit hashes of a row's session id, as the step columns' session tables hold them. */
function sessionHashes(col: StrCol, i: number): [number, number] {
  const c = col.codes[i];
  if (c === 0) return idHashes("");
  if (!col.packed) return idHashes(col.dict[c - 1]);
  const { bytes, offsets } = col.packed;
  const s = offsets[c - 1], e = offsets[c];
  let ascii = true;
  for (let j = s; j < e && ascii; j++) ascii = bytes[j] < 0x80;
  if (!ascii) return idHashes(new TextDecoder().decode(bytes.subarray(s, e)));
  // an ASCII id's characters are its bytes: the same arithmetic as idHashes, without making a string
  let a = 0x811c9dc5, b = 0x9e3779b9 ^ (e - s);
  for (let j = s; j < e; j++) {
    const ch = bytes[j];
    a = Math.imul(a ^ ch, 0x01000193);
    b = Math.imul(b ^ ch, 0x5bd1e995);
    b ^= b >>> 15;
  }
  b = Math.imul(b ^ (b >>> 13), 0xc2b2ae35);
  return [a >>> 0, (b ^ (b >>> 16)) >>> 0];
}

/** Folds a batch's rows in scope into what is seen (reading a row twice changes nothing). */
function visitBatch(seen: Seen, e: EvBatch, s: Scope, filters: Scope["filters"] | null) {
  const interner = e.interner;
  const c = makeCtx([e], s, interner.visitorCount, interner.sessionCount);
  const m = c.inScope[0], ok = filters ? matchMasks(c, filters)[0] : m;
  const t = e.t, session = e.b.cols.session as StrCol;
  let dt: Float64Array | null = null, seq: Float64Array | null = null;
  for (let r = 0; r < e.runSes.length; r++) {
    let k = -1;
    for (let i = e.runStart[r]; i < e.runStart[r + 1]; i++) {
      if (!m[i]) continue;
      if (k < 0) {
        k = seen.at(e.runSes[r]);
        if (k < 0) k = seen.add(e.runSes[r], e.runVis[r], sessionHashes(session, i));
        dt ??= e.dt;
        seq ??= e.seq;
      }
      if (ok[i]) seen.level[k] = 2;
      else if (!seen.level[k]) seen.level[k] = 1;
      if (t[i] > seen.last[k]) seen.last[k] = t[i];
      if (t[i] > seen.t[k]) continue;
      const d = dt![i], q = seq![i];
      if (t[i] < seen.t[k] || d < seen.dt[k] || (d === seen.dt[k] && q < seen.seq[k])) {
        seen.t[k] = t[i];
        seen.dt[k] = d;
        seen.seq[k] = q;
      }
    }
  }
}

/** The cutoff of a round: parts whose latest row is at or after it are read. */
function cutoffFor(parts: PartMeta[], before: number | null, readRows: number): number {
  const byNewest = [...parts].sort((a, b) => b.max_t - a.max_t);
  if (!byNewest.length) return -Infinity;
  if (before === null) return byNewest[0].max_t - FIRST_WINDOW_MS;
  // at least twice the rows read so far, and at least the newest part not read yet
  let rows = 0;
  for (const p of byNewest) {
    rows += p.rows;
    if (p.max_t < before && rows >= 2 * readRows) return p.max_t;
  }
  return -Infinity;
}

/**
 * The chosen newest sessions, or null when that cannot be shown from the step columns (the caller reads
 * every part). `limit` must be given.
 */
export async function newestSessions(
  scans: ScanContexts,
  s: Scope,
  o: SessionsOptions & { limit: number },
  kv: Deno.Kv,
): Promise<Chosen | null> {
  const source = scans.source, interner = source.interner(s.org, s.env);
  const filters = (o.matchFilters ?? true) && s.filters?.length ? s.filters : null;
  const level = filters ? 2 : 1;
  const entries = new Map<string, StepColumnEntry | null>();
  const { parts: planned } = await source.partsAndTail(s.org, s.env, s.from, s.to);
  (await readStepEntries(kv, planned.map((p) => p.id))).forEach((e, k) => entries.set(planned[k].id, e));
  const seen = new Seen();
  const read = new Set<string>();
  let listing = planned, cutoff: number | null = null, readRows = 0, need = new Set<string>();
  for (;;) {
    // the parts holding a session that stands in the way, else (at least) twice the rows read so far
    if (!need.size) cutoff = cutoffFor(listing, cutoff, readRows);
    const c = cutoff!, wanted = need;
    let picked: PartMeta[] = [], unread: PartMeta[] = [], listed: PartMeta[] = [];
    await source.stream(s.org, s.env, s.from, s.to, {
      begin: () => {
        picked = [];
        unread = [];
        listed = [];
      },
      pick: (p) => {
        listed.push(p);
        // a part not planned, or without a step column, is read whole; one read before is not again
        if (read.has(p.id)) return false;
        const later = p.max_t < c && entries.get(p.id) && !wanted.has(p.id);
        if (later) unread.push(p);
        else picked.push(p);
        return !later;
      },
      visit: (e) => visitBatch(seen, e, s, filters),
    });
    if (source.interner(s.org, s.env) !== interner) return null; // numbering renewed meanwhile
    const ids = new Set(listed.map((p) => p.id));
    for (const id of read) if (!ids.has(id)) return null; // a part read is gone: its rows may be too
    for (const p of picked) {
      read.add(p.id);
      readRows += p.rows;
    }
    listing = listed;
    const r = await final(seen, level, o.limit, unread, source, kv, interner);
    if (r === undefined) return null;
    if ("chosen" in r) return r.chosen;
    need = r.need;
  }
}

/**
 * The newest `limit` sessions when every one of them is final (see the module's comment); else the unread
 * parts to read next: those holding the id of the newest session not known final (empty: read further back,
 * too few sessions are later than every unread part); undefined when an unread part's session table is gone.
 */
async function final(
  seen: Seen,
  level: number,
  limit: number,
  unread: PartMeta[],
  source: ScanContexts["source"],
  kv: Deno.Kv,
  interner: ReturnType<ScanContexts["source"]["interner"]>,
): Promise<{ chosen: Chosen } | { need: Set<string> } | undefined> {
  let m = -Infinity;
  for (const p of unread) m = Math.max(m, p.max_t);
  const after = (a: number, b: number) =>
    seen.t[b] - seen.t[a] || seen.dt[b] - seen.dt[a] || seen.seq[b] - seen.seq[a] ||
    interner.compareVisitors(seen.vis[a], seen.vis[b]);
  // the newest `limit` later than M (no more are needed: the walk below takes each or stops at it)
  const later: number[] = [];
  for (let k = 0; k < seen.n; k++) {
    if (seen.level[k] < level || !(seen.t[k] > m)) continue;
    if (later.length >= limit && after(k, later[later.length - 1]) >= 0) continue;
    let at = later.length;
    while (at > 0 && after(k, later[at - 1]) < 0) at--;
    later.splice(at, 0, k);
    if (later.length > limit) later.pop();
  }
  if (later.length < limit && unread.length) return { need: new Set() };
  const out: number[] = [];
  if (!unread.length) out.push(...later);
  else {
    const tables = await sessionTables(unread, source, kv);
    if (!tables) return undefined;
    // newest first: a session whose id an unread part holds may start there (at M or before) or not (another
    // visitor's session of the same id, or the same hashes): until it is read, no later one is certain
    const holders = foundIn(tables, later.map((k) => [seen.h1[k], seen.h2[k]]));
    for (let j = 0; j < later.length; j++) {
      if (holders[j].length) return { need: new Set(holders[j].map((x) => unread[x].id)) };
      out.push(later[j]);
    }
  }
  let lo = Infinity, hi = -Infinity;
  for (const k of out) {
    lo = Math.min(lo, seen.t[k]);
    hi = Math.max(hi, seen.last[k]);
  }
  return { chosen: { ses: out.map((k) => seen.ses[k]), vis: out.map((k) => seen.vis[k]), lo, hi } };
}

type Table = { h1: Uint32Array; h2: Uint32Array };

/** The unread parts' session tables (kept in the source's budget by part), undefined when one is gone. */
async function sessionTables(
  parts: PartMeta[],
  source: ScanContexts["source"],
  kv: Deno.Kv,
): Promise<Table[] | undefined> {
  const keyOf = (p: PartMeta) => `stepcol|sessions|${p.id}`;
  const have = new Map<string, Table>();
  for (const p of parts) {
    const t = source.kept<Table>(keyOf(p));
    if (t) have.set(p.id, t);
  }
  const missing = parts.filter((p) => !have.has(p.id));
  const entries = await readStepEntries(kv, missing.map((p) => p.id));
  const got = await Promise.all(missing.map((p, k) => entries[k] && readStepSessions(kv, p.id, entries[k]!)));
  for (let k = 0; k < missing.length; k++) {
    const t = got[k];
    if (!t) return undefined;
    have.set(missing[k].id, t);
    source.keep(keyOf(missing[k]), t, 64 + 8 * t.h1.length);
  }
  return parts.map((p) => have.get(p.id)!);
}

/** Per hash pair: the tables holding it. */
function foundIn(tables: Table[], pairs: [number, number][]): number[][] {
  const want = new Map<number, number[]>();
  pairs.forEach(([a], j) => {
    const l = want.get(a);
    if (l) l.push(j);
    else want.set(a, [j]);
  });
  const out: number[][] = pairs.map(() => []);
  tables.forEach(({ h1, h2 }, x) => {
    for (let i = 0; i < h1.length; i++) {
      const l = want.get(h1[i]);
      if (!l) continue;
      for (const j of l) {
        if (pairs[j][1] === h2[i] && out[j][out[j].length - 1] !== x) out[j].push(x);
      }
    }
  });
  return out;
}
