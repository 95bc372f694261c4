/**
 * Paths from the parts' step columns (step_column/), in one read of each part's sections whose rows are steps
 * (pageviews for `page`, every type for `event`, pageviews and custom events for `page_or_event`) and of its
 * anchor section. Every part's session table is read first: a session whose id hashes no other table holds is
 * in its part alone (most are), so when it is anchored its path is taken from that part at once and only the
 * path is kept (`PathTally`, 4 + 4 x depth bytes a session); an alone session not anchored is done with.
 * Sessions that may be in several parts go as follows. A part's sections are read together, so the sessions
 * anchored in it are known before its rows are taken: their rows (and those of sessions anchored in a part
 * read before) are kept at once. A part with such sessions not anchored (yet) that may go on in the parts
 * still to come (parts are read newest first; a session may go on while it has a row up to an hour past the
 * newest time those parts hold) keeps its decoded sections until none can, and then gives the rows of those
 * anchored meanwhile. A session let go of that is anchored later (a late part, a long session) has its rows
 * read again from just the parts it was let go in, so the answer is exact. Sessions are told apart by visitor
 * number and id hashes, so a session in several parts is one. Their rows are then walked as the streamed
 * parts' are (paths_rows.ts), and the paths of all sessions counted visitor by visitor. The raw tail's column
 * is built at question time and read first (it is the newest). Taken when every part of the period has a
 * column and the anchor's conditions are on fields the column holds, without a cohort; else null (the caller
 * streams the parts).
 */
import { buildEventBatch } from "../../parts/event_batch.ts";
import { visitorNumbersForReading } from "../../parts/visitor_numbers.ts";
import { batchVisitors, rowVisitors } from "../rollup/build.ts";
import type { ScanContexts } from "../scan/contexts.ts";
import type { PathsOptions, PathsResult } from "../sequence_types.ts";
import type { Scope } from "../types.ts";
import { buildStepColumn, sectionBytes, type StepSection } from "../step_column/build.ts";
import {
  isTypeSection,
  letGoArrays,
  letGoSections,
  readStepEntries,
  readStepSection,
  readStepSessionsMany,
  secName,
  type StepColumnEntry,
} from "../step_column/store.ts";
import { sectionSteps, STEP_FIELDS } from "./funnel_column.ts";
import { END, pathFrom, PathTally, Rows, walkRows } from "./paths_rows.ts";

/** Parts whose sections are read while the one before is used. */
const READ_AHEAD = 4;

/** How far past the parts still to come a session not anchored yet is kept (sessions end after 30 minutes idle). */
const OPEN_MS = 3_600_000;

/** Bytes of decoded sections kept for sessions that may go on, at least (else an eighth of the budget). */
const KEEP_BYTES = 16 << 20;

const NULL_SECTION = secName(null);

/** Whether the column can answer: an anchor on fields it holds, no cohort. */
export function pathsColumnCanAnswer(s: Scope, o: PathsOptions): boolean {
  return !s.cohort && (o.anchor.filters ?? []).every((f) => STEP_FIELDS.has(f.field));
}

/** The sections whose rows are steps, of those a part has. */
function stepSections(mode: PathsOptions["step"], names: string[]): string[] {
  const types = names.filter((n) => isTypeSection(n) && n !== NULL_SECTION);
  if (mode === "event") return types;
  return types.filter((n) => n === "$pageview" || (mode === "page_or_event" && !n.startsWith("$")));
}

/**
 * Paths from step columns, or null when a part has none (or went meanwhile). `tune` (tests): `openMs`, how
 * long a session not anchored yet may go on (-Infinity lets every such session go, so all of them that are
 * anchored later are read again); `keepBytes`, the decoded sections held for such sessions (0: none);
 * `alone: false`, no session is taken as in one part only (each goes through the rows).
 */
export async function columnPaths(
  scans: ScanContexts,
  s: Scope,
  o: PathsOptions,
  kv: Deno.Kv,
  tune: { openMs?: number; keepBytes?: number; alone?: boolean } = {},
): Promise<PathsResult | null> {
  if (!pathsColumnCanAnswer(s, o)) return null;
  const { parts: listed, tail } = await scans.source.partsAndTail(s.org, s.env, s.from, s.to);
  // newest first, as the streamed parts are read (their ties of order times resolve in that order)
  const parts = [...listed].sort((a, b) => b.max_t - a.max_t || b.min_t - a.min_t);
  // the answer kept for the same parts, raw tail (the same frozen array while its records are unchanged)
  // and question
  const keptKey = `stepcol|paths|${s.org}|${s.env}|${listed.map((p) => p.id).join(",")}|` +
    JSON.stringify([o, s.from, s.to, s.touchpoint ?? null, s.traffic ?? ["human"]]);
  const kept = scans.source.kept<{ tail: unknown[]; answer: PathsResult }>(keptKey);
  if (kept && (kept.tail === tail || (!kept.tail.length && !tail.length))) {
    return structuredClone(kept.answer);
  }
  const entries = await readStepEntries(kv, parts.map((p) => p.id));
  if (entries.some((e) => e === null)) return null;
  const depth = o.depth ?? 3, mode = o.step ?? "page";
  const openMs = tune.openMs ?? OPEN_MS;
  const traffic = new Set<string | null>(s.traffic ?? ["human"]);
  const anchorName = secName(o.anchor.event_type);
  let tailSecs: StepSection[] = [];
  if (tail.length) {
    const batch = await buildEventBatch(Object.isFrozen(tail) ? tail : [...tail]);
    const { numbers } = await visitorNumbersForReading(kv, s.org, s.env, batchVisitors(batch));
    const vis = rowVisitors(batch, numbers);
    tailSecs = buildStepColumn(batch, (i) => vis[i]);
  }
  const tpOk = (v: string | null) => !s.touchpoint || v === s.touchpoint;
  const trOk = (v: string | null) => traffic.has(v);
  const labels = new Map<string, number>(), names: string[] = [];
  const labelOf = (v: string) => {
    let id = labels.get(v);
    if (id === undefined) {
      labels.set(v, id = names.length);
      names.push(v);
    }
    return id;
  };
  // the sections a part's read takes: its step sections and its anchor section
  const sectionsOf = (e: StepColumnEntry | null) => {
    const all = e ? Object.keys(e.secs) : tailSecs.map((x) => secName(x.et));
    const steps = stepSections(mode, all);
    return all.includes(anchorName) && !steps.includes(anchorName) ? [...steps, anchorName] : steps;
  };
  // every part's session table (the raw tail's last), read while the first parts' sections are: a session
  // whose id hashes no other table holds is in its part alone (`shared`: per part, per session, 1 when not)
  let tables: SessionTable[] = [], shared: Uint8Array[] = [];
  // a part's sections (k: its place newest first; parts.length: the raw tail), its session table attached
  // once `tables` are read; undefined when its chunks are gone
  const read = async (k: number): Promise<StepSection[] | undefined> => {
    if (k === parts.length) {
      const names = new Set(sectionsOf(null));
      return tailSecs.filter((sec) => names.has(secName(sec.et)));
    }
    const secs = await Promise.all(
      sectionsOf(entries[k]).map((name) => readStepSection(kv, parts[k].id, entries[k]!, name)),
    );
    if (secs.some((g) => g === undefined)) return undefined;
    return secs.filter((g) => g !== null).map((g) => g!.section);
  };
  const withTable = (secs: StepSection[], k: number) => {
    if (k < parts.length) { for (const sec of secs) Object.assign(sec, tables[k]); }
    return secs;
  };
  // per section of a part, its rows in scope that are steps or anchors: each one's label (-1: not a step;
  // in a section labelled by page, the page's code, its label looked up when the row is taken) and whether
  // it is an anchor; and per session of the part (in the same pass): its visitor number, the time of its
  // first row picked (Infinity: none), whether one is an anchor, how many were picked (at session + 1)
  const pick = (secs: StepSection[]) => {
    const picked: Picked[] = [], sessions = secs.length ? secs[0].h1.length : 0;
    const vis = new Uint32Array(sessions), here = new Uint8Array(sessions);
    const first = new Float64Array(sessions).fill(Infinity), count = new Int32Array(sessions + 1);
    for (const sec of secs) {
      const name = secName(sec.et);
      const isStep = stepSections(mode, [name]).length > 0;
      const anchorTables = name === anchorName ? sectionSteps(sec, [o.anchor], tpOk, trOk) : null;
      if (!isStep && !anchorTables) continue;
      const inTp = Uint8Array.from(sec.tps, (v) => (tpOk(v) ? 1 : 0));
      const inTr = Uint8Array.from(sec.trs, (v) => (trOk(v) ? 1 : 0));
      const byPage = isStep && mode !== "event" && sec.et === "$pageview"
        ? new Int32Array(sec.pages.length).fill(-2)
        : null;
      const label = byPage ? 0 : isStep ? labelOf(sec.et!) : -1;
      const { t, page, tp, tr, ses } = sec, v = sec.vis;
      const aPage = anchorTables?.page, aTp = anchorTables?.tp, aTr = anchorTables?.tr;
      const at = new Int32Array(sec.n), lab = new Int32Array(sec.n), anc = new Uint8Array(sec.n);
      let n = 0;
      for (let r = 0; r < sec.n; r++) {
        const tr0 = t[r];
        if (!(tr0 >= s.from && tr0 < s.to) || !inTp[tp[r]] || !inTr[tr[r]]) continue;
        const a = aPage && aPage[page[r]] & aTp![tp[r]] & aTr![tr[r]] ? 1 : 0;
        if (label < 0 && !a) continue;
        const x = ses[r];
        at[n] = r;
        lab[n] = byPage ? page[r] : label;
        anc[n++] = a;
        if (a) here[x] = 1;
        if (tr0 < first[x]) first[x] = tr0;
        vis[x] = v[r];
        count[x + 1]++;
      }
      picked.push({ sec, n, at, lab, anc, byPage });
    }
    return { picked, vis, here, first, count };
  };
  // the picked rows of the sessions numbered (num[session] >= 0) appended to the rows, section by section
  const take = (picked: Picked[], num: Int32Array, part: number) => {
    if (!num.some((g) => g >= 0)) return;
    for (const p of picked) {
      const { sec, n, at, lab, anc, byPage } = p;
      rows.reserve(rows.n + n);
      const { ses, vis, t, dt, seq, row, pages } = sec;
      const T = rows.t, DT = rows.dt, SEQ = rows.seq, SES = rows.ses, VIS = rows.vis, LAB = rows.label;
      const ANC = rows.anchor, PART = rows.part, POS = rows.pos!, base = part * 2 ** 32;
      let w = rows.n;
      for (let j = 0; j < n; j++) {
        const r = at[j], g = num[ses[r]];
        if (g < 0) continue;
        let l = lab[j];
        if (byPage) l = byPage[l] >= 0 ? byPage[l] : (byPage[l] = labelOf(pages[l] ?? ""));
        T[w] = t[r];
        DT[w] = dt[r];
        SEQ[w] = seq[r];
        SES[w] = g;
        VIS[w] = vis[r];
        LAB[w] = l;
        ANC[w] = anc[j];
        PART[w] = part;
        POS[w++] = base + row[r];
      }
      rows.n = w;
    }
  };

  const end = labelOf(END), tally = new PathTally(depth, end);
  const index = new SessionIndex(); // the sessions in other parts too anchored so far
  // their rows (grown as needed: most sessions are in one part alone and keep no rows)
  let most = tailSecs.reduce((n, sec) => n + sec.n, 0);
  entries.forEach((e) => sectionsOf(e).forEach((name) => (most += e!.secs[name][3])));
  const rows = new Rows(Math.min(1 << 16, most), most, true);
  const gone = new Gone(); // (part, session) pairs let go of
  // parts kept for their sessions not anchored yet that may go on (pending: 1 per such session)
  const held: {
    part: number;
    picked: Picked[];
    vis: Uint32Array;
    pending: Uint8Array;
    first: number;
    bytes: number;
  }[] = [];
  const keepBytes = tune.keepBytes ?? Math.max(KEEP_BYTES, scans.source.partCapacity / 8);
  let heldBytes = 0;
  const order = tail.length ? [parts.length, ...parts.keys()] : [...parts.keys()];
  // one part: the sessions anchored in it found first, then the rows of anchored sessions taken; the part is
  // held when some other session may go on in the parts to come (`bound`: the newest time they hold plus
  // the idle time), else those are let go of (noted unless no part is to come)
  const use = (secs: StepSection[], part: number, bound: number, last: boolean) => {
    const { picked, vis, here, first, count } = pick(secs);
    // a part not held: its sections and what was picked from them freed once its rows are taken
    const done = () => (letGo(part, secs, picked), letGoArrays([vis, here, first, count]));
    if (!picked.length) return done();
    const { h1, h2 } = picked[0].sec, many = shared[part];
    walkAlone(picked, here, many, vis, count);
    // per session in other parts too: its number when anchored, -1 let go of, -3 pending (sessions are
    // numbered visitor by visitor: the index is looked up in visitor order)
    const num = new Int32Array(h1.length).fill(-1), pending = new Uint8Array(h1.length);
    let firstPending = Infinity;
    for (let x = 0; x < h1.length; x++) {
      if (first[x] === Infinity || !many[x]) continue;
      let g = index.get(vis[x], h1[x], h2[x]);
      if (g < 0 && here[x]) g = index.add(vis[x], h1[x], h2[x]);
      if (g >= 0) num[x] = g;
      else if (!last && first[x] <= bound) {
        num[x] = -3;
        pending[x] = 1;
        if (first[x] < firstPending) firstPending = first[x];
      } else if (!last) gone.push(part, vis[x], h1[x], h2[x]);
    }
    take(picked, num, part);
    if (firstPending === Infinity) return done();
    letGoArrays([here, first, count, num]);
    const bytes = secs.reduce((n, sec) => n + sectionBytes(sec), 0) +
      picked.reduce((n, p) => n + 9 * p.sec.n, 0) + 4 * h1.length;
    held.push({ part, picked, vis, pending, first: firstPending, bytes });
    heldBytes += bytes;
  };
  // the anchored sessions of a part that are in it alone: their paths noted at once from its rows (a
  // session's rows in order: a section lists them so, several sections are merged)
  const walkAlone = (
    picked: Picked[],
    here: Uint8Array,
    many: Uint8Array,
    vis: Uint32Array,
    count: Int32Array,
  ) => {
    const sessions = here.length, start = count;
    for (let x = 0; x < sessions; x++) start[x + 1] = start[x] + (here[x] && !many[x] ? start[x + 1] : 0);
    const total = start[sessions];
    if (!total) return;
    // per row taken, in session order: its section (in picked) and its place there
    const fill = start.slice(0, sessions), refP = new Uint16Array(total), refJ = new Int32Array(total);
    picked.forEach(({ sec: { ses }, n, at }, pi) => {
      for (let j = 0; j < n; j++) {
        const x = ses[at[j]];
        if (!here[x] || many[x]) continue;
        const k = fill[x]++;
        refP[k] = pi;
        refJ[k] = j;
      }
    });
    const labelAt = (k: number) => {
      const p = picked[refP[k]], l = p.lab[refJ[k]], byPage = p.byPage;
      if (!byPage) return l;
      return byPage[l] >= 0 ? byPage[l] : (byPage[l] = labelOf(p.sec.pages[l] ?? ""));
    };
    const several = picked.length > 1, step = o.direction === "after" ? 1 : -1;
    const path = new Int32Array(depth + 1);
    for (let x = 0; x < sessions; x++) {
      const a = start[x], z = start[x + 1];
      if (a === z) continue;
      if (several) inSectionOrder(picked, refP, refJ, a, z);
      let at = a;
      while (at < z && !picked[refP[at]].anc[refJ[at]]) at++;
      tally.add(vis[x], path, pathFrom(path, labelAt, at, a, z, step, end));
    }
  };
  // a held part let go of: the rows of its pending sessions anchored since, the others noted as let go of
  const release = (at: number, last: boolean) => {
    const [{ part, picked, vis, pending, bytes }] = held.splice(at, 1);
    heldBytes -= bytes;
    const { h1, h2 } = picked[0].sec, num = new Int32Array(h1.length).fill(-1);
    for (let x = 0; x < h1.length; x++) {
      if (!pending[x]) continue;
      num[x] = index.get(vis[x], h1[x], h2[x]);
      if (num[x] < 0 && !last) gone.push(part, vis[x], h1[x], h2[x]);
    }
    take(picked, num, part);
    letGo(part, picked.map((p) => p.sec), picked);
    letGoArrays([vis, pending, num]);
  };
  // a part's sections and picked rows, once taken, freed at once (not at V8's next full collection); the raw
  // tail's are left (built once a question, read again when its sessions are)
  const letGo = (part: number, secs: StepSection[], picked: Picked[]) => {
    if (part === parts.length) return;
    letGoSections(secs);
    for (const p of picked) letGoArrays([p.at, p.lab, p.anc, p.byPage]);
  };

  const reading = readStepSessionsMany(kv, parts.map((p, k) => ({ id: p.id, entry: entries[k]! })));
  const ahead: ReturnType<typeof read>[] = [];
  for (let i = 0; i < Math.min(READ_AHEAD, order.length); i++) ahead.push(read(order[i]));
  const got = await reading;
  if (got.some((t) => t === undefined)) {
    await Promise.allSettled(ahead);
    return null;
  }
  tables = got as SessionTable[];
  if (tailSecs.length) tables.push({ h1: tailSecs[0].h1, h2: tailSecs[0].h2 });
  shared = sharedSessions(tables, tune.alone === false);
  for (let i = 0; i < order.length; i++) {
    const secs = await ahead.shift()!;
    if (i + READ_AHEAD < order.length) ahead.push(read(order[i + READ_AHEAD]));
    if (!secs) {
      await Promise.allSettled(ahead);
      return null; // the part went meanwhile (merged): the caller's streamed read is consistent
    }
    // the newest time the parts still to come can hold, plus the time a session may stay idle
    const last = i + 1 === order.length, bound = last ? -Infinity : parts[order[i + 1]].max_t + openMs;
    use(withTable(secs, order[i]), order[i], bound, last);
    // held parts none of whose sessions can go on any more, then the oldest held while over the bytes
    for (let h = held.length - 1; h >= 0; h--) if (held[h].first > bound) release(h, last);
    while (heldBytes > keepBytes) release(0, last);
  }

  // sessions anchored after some of their rows were let go of: those rows again, from just those parts
  const again = new Map<number, Set<number>>();
  gone.forEach((part, vis, h1, h2) => {
    const g = index.get(vis, h1, h2);
    if (g < 0) return;
    let set = again.get(part);
    if (!set) again.set(part, set = new Set());
    set.add(g);
  });
  for (const [part, want] of again) {
    const secs = await read(part);
    if (!secs) return null;
    const { picked, vis, first } = pick(withTable(secs, part));
    if (!picked.length) {
      letGo(part, secs, picked);
      continue;
    }
    const { h1, h2 } = picked[0].sec;
    const num = new Int32Array(h1.length).fill(-1);
    for (let x = 0; x < h1.length; x++) {
      if (first[x] === Infinity) continue;
      const g = index.get(vis[x], h1[x], h2[x]);
      if (want.has(g)) num[x] = g;
    }
    take(picked, num, part);
    letGo(part, secs, picked);
    letGoArrays([vis, first, num]);
  }
  walkRows(rows, o.direction, tally);
  const answer = tally.result(names, o);
  scans.source.keep(
    keptKey,
    { tail, answer: structuredClone(answer) },
    1024 + JSON.stringify(answer).length * 2,
  );
  return answer;
}

/**
 * A section's rows that are steps or anchors, in scope: row, label (-1: no step; with `byPage`, the row's
 * page code, its label byPage[code] once looked up, -2 before), anchor (1).
 */
interface Picked {
  sec: StepSection;
  n: number;
  at: Int32Array;
  lab: Int32Array;
  anc: Uint8Array;
  byPage: Int32Array | null;
}

const GONE_BLOCK = 1 << 14;

/**
 * List of sessions let go of: the part and the session's visitor number and id hashes, in blocks (a list
 * that doubles copies itself each time: at 10M events it held 1.2M sessions).
 */
class Gone {
  private blocks: { part: Int32Array; vis: Uint32Array; h1: Uint32Array; h2: Uint32Array }[] = [];
  private k = GONE_BLOCK;
  push(part: number, vis: number, h1: number, h2: number) {
    if (this.k === GONE_BLOCK) {
      this.blocks.push({
        part: new Int32Array(GONE_BLOCK),
        vis: new Uint32Array(GONE_BLOCK),
        h1: new Uint32Array(GONE_BLOCK),
        h2: new Uint32Array(GONE_BLOCK),
      });
      this.k = 0;
    }
    const b = this.blocks[this.blocks.length - 1], k = this.k++;
    b.part[k] = part;
    b.vis[k] = vis;
    b.h1[k] = h1;
    b.h2[k] = h2;
  }
  forEach(f: (part: number, vis: number, h1: number, h2: number) => void) {
    this.blocks.forEach((b, i) => {
      const n = i === this.blocks.length - 1 ? this.k : GONE_BLOCK;
      for (let k = 0; k < n; k++) f(b.part[k], b.vis[k], b.h1[k], b.h2[k]);
    });
  }
}

/**
 * Sessions by visitor number and id hashes, numbered as added (exact: all three compared). A byte per visitor
 * number says whether it has a session here at all, so most sessions of a part (asked visitor by visitor,
 * the bytes read in order) need no more; the others are found in an open-addressing table holding the three
 * numbers and the session's number side by side (one place read per probe; the table it replaced read its
 * slots, then the keys elsewhere: ~40% of a cold question's time at 10M events). A chain per visitor was
 * tried: a bench visitor with 2,296 anchored sessions made its lookups walk thousands.
 */
class SessionIndex {
  private has = new Uint8Array(1024); // per visitor number: 1 when it has a session here
  private slots = new Uint32Array(4 << 12); // per slot: visitor, h1, h2, number + 1 (0: empty)
  private count = 0;
  private start(vis: number, h1: number, h2: number, mask: number): number {
    return ((Math.imul(h1 ^ Math.imul(vis, 0x9e3779b1), 0x85ebca6b) ^ h2) & mask) << 2;
  }
  /** The session's number, or -1. */
  get(vis: number, h1: number, h2: number): number {
    if (vis >= this.has.length || !this.has[vis]) return -1;
    const slots = this.slots, end = slots.length;
    for (let at = this.start(vis, h1, h2, (end >> 2) - 1);; at = at + 4 === end ? 0 : at + 4) {
      const id = slots[at + 3];
      if (id === 0) return -1;
      if (slots[at + 1] === h1 && slots[at + 2] === h2 && slots[at] === vis) return id - 1;
    }
  }
  add(vis: number, h1: number, h2: number): number {
    const found = this.get(vis, h1, h2);
    if (found >= 0) return found;
    if (vis >= this.has.length) {
      let size = this.has.length * 2;
      while (size <= vis) size *= 2;
      const has = new Uint8Array(size);
      has.set(this.has);
      this.has = has;
    }
    this.has[vis] = 1;
    const id = this.count++;
    if (this.count * 2 > this.slots.length >> 2) {
      const old = this.slots;
      this.slots = new Uint32Array(old.length * 2);
      for (let at = 0; at < old.length; at += 4) {
        if (old[at + 3]) this.place(old[at], old[at + 1], old[at + 2], old[at + 3]);
      }
    }
    this.place(vis, h1, h2, id + 1);
    return id;
  }
  private place(vis: number, h1: number, h2: number, idPlus: number) {
    const slots = this.slots, end = slots.length;
    let at = this.start(vis, h1, h2, (end >> 2) - 1);
    while (slots[at + 3] !== 0) at = at + 4 === end ? 0 : at + 4;
    slots[at] = vis;
    slots[at + 1] = h1;
    slots[at + 2] = h2;
    slots[at + 3] = idPlus;
  }
}

type SessionTable = { h1: Uint32Array; h2: Uint32Array };

/**
 * Per part (each table), per session: 1 when another part's table (or the same one's, another visitor) may
 * hold its id hashes, so it may go on in another part; 0 when it is certainly in its part alone. Two bits per
 * slot of a hash of the id hashes (none, seen once, seen again), 8-16 slots per session, so the table stays
 * small (2-4 bytes a session) and one read tells both: a session whose slot no other session hit is alone;
 * some alone ones (~1 in 10) are taken as shared (hash collisions), which costs only time. `all`: every
 * session taken as shared.
 */
export function sharedSessions(tables: SessionTable[], all = false): Uint8Array[] {
  if (all) return tables.map((t) => new Uint8Array(t.h1.length).fill(1));
  const total = tables.reduce((n, t) => n + t.h1.length, 0);
  let slots = 1 << 16;
  while (slots < total * 8 && slots < 1 << 30) slots *= 2;
  const mask = slots - 1, seen = new Uint8Array(slots >> 2);
  const slot = (h1: number, h2: number) =>
    (Math.imul(h1 ^ Math.imul(h2, 0x9e3779b1), 0x85ebca6b) ^ h2) & mask;
  for (const { h1, h2 } of tables) {
    for (let x = 0; x < h1.length; x++) {
      const b = slot(h1[x], h2[x]), at = b >> 2, shift = (b & 3) << 1;
      seen[at] |= (seen[at] >> shift) & 3 ? 2 << shift : 1 << shift;
    }
  }
  return tables.map(({ h1, h2 }) => {
    const out = new Uint8Array(h1.length);
    for (let x = 0; x < h1.length; x++) {
      const b = slot(h1[x], h2[x]);
      out[x] = (seen[b >> 2] >> (((b & 3) << 1) + 1)) & 1;
    }
    return out;
  });
}

/** Rows a..z of a session (references into picked sections) sorted by order times, then batch place. */
function inSectionOrder(picked: Picked[], refP: Uint16Array, refJ: Int32Array, a: number, z: number) {
  const before = (p1: number, j1: number, p2: number, j2: number) => {
    const s1 = picked[p1].sec, r1 = picked[p1].at[j1], s2 = picked[p2].sec, r2 = picked[p2].at[j2];
    return (s1.t[r1] - s2.t[r2] || s1.dt[r1] - s2.dt[r2] || s1.seq[r1] - s2.seq[r2] ||
      s1.row[r1] - s2.row[r2]) < 0;
  };
  for (let i = a + 1; i < z; i++) {
    const p = refP[i], j = refJ[i];
    let k = i - 1;
    while (k >= a && before(p, j, refP[k], refJ[k])) {
      refP[k + 1] = refP[k];
      refJ[k + 1] = refJ[k];
      k--;
    }
    refP[k + 1] = p;
    refJ[k + 1] = j;
  }
}
