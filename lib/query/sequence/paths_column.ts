/**
 * Paths from the parts' step columns (step_column/), in one read of each part's sections whose rows are
 * steps (pageviews for `page`, every type for `event`, pageviews and custom events for `page_or_event`) and
 * of its anchor section. A part's sections are read together, so the sessions anchored in it are known
 * before its rows are taken: their rows (and those of sessions anchored in a part read before) are kept at
 * once. A part with sessions not anchored (yet) that may go on in the parts still to come (parts are read
 * newest first; a session may go on while it has a row up to an hour past the newest time those parts hold)
 * keeps its decoded sections until none can, and then gives the rows of those anchored meanwhile. A session
 * let go of that is anchored later (a late part, a long session) has its rows read again from just the
 * parts it was let go in, so the answer is exact. Sessions are told apart by visitor number and id hashes,
 * so a session in several parts is one. Then the same walk as the streamed parts (paths_stream.ts). The raw
 * tail's column is built at question time and read first (it is the newest). Taken when every part of the
 * period has a column and the anchor's conditions are on fields the column holds, without a cohort; else
 * null (the caller streams the parts).
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
  readStepEntries,
  readStepSection,
  readStepSessions,
  secName,
  type StepColumnEntry,
} from "../step_column/store.ts";
import { sectionSteps, STEP_FIELDS } from "./funnel_column.ts";
import { Rows, walk } from "./paths_rows.ts";

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
 * anchored later are read again); `keepBytes`, the decoded sections held for such sessions (0: none).
 */
export async function columnPaths(
  scans: ScanContexts,
  s: Scope,
  o: PathsOptions,
  kv: Deno.Kv,
  tune: { openMs?: number; keepBytes?: number } = {},
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
  // a part's sections (k: its place newest first; parts.length: the raw tail), the session table attached;
  // undefined when its chunks are gone
  const read = async (k: number): Promise<StepSection[] | undefined> => {
    if (k === parts.length) {
      const names = new Set(sectionsOf(null));
      return tailSecs.filter((sec) => names.has(secName(sec.et)));
    }
    const [secs, table] = await Promise.all([
      Promise.all(sectionsOf(entries[k]).map((name) => readStepSection(kv, parts[k].id, entries[k]!, name))),
      readStepSessions(kv, parts[k].id, entries[k]!),
    ]);
    if (table === undefined || secs.some((g) => g === undefined)) return undefined;
    const out = secs.filter((g) => g !== null).map((g) => g!.section);
    for (const sec of out) Object.assign(sec, table);
    return out;
  };
  // per section of a part, its rows in scope that are steps or anchors: each one's label (-1: not a step)
  // and whether it is an anchor
  const pick = (secs: StepSection[]): Picked[] => {
    const out: Picked[] = [];
    for (const sec of secs) {
      const name = secName(sec.et);
      const isStep = stepSections(mode, [name]).length > 0;
      const anchorTables = name === anchorName ? sectionSteps(sec, [o.anchor], tpOk, trOk) : null;
      if (!isStep && !anchorTables) continue;
      const inTp = Uint8Array.from(sec.tps, (v) => (tpOk(v) ? 1 : 0));
      const inTr = Uint8Array.from(sec.trs, (v) => (trOk(v) ? 1 : 0));
      const label = mode === "event" || sec.et !== "$pageview" ? (isStep ? labelOf(sec.et!) : -1) : -3;
      const byPage = label === -3 ? Int32Array.from(sec.pages, (v) => labelOf(v ?? "")) : null;
      const { t, page, tp, tr } = sec;
      const at = new Int32Array(sec.n), lab = new Int32Array(sec.n), anc = new Uint8Array(sec.n);
      let n = 0;
      for (let r = 0; r < sec.n; r++) {
        if (!(t[r] >= s.from && t[r] < s.to) || !inTp[tp[r]] || !inTr[tr[r]]) continue;
        const a = anchorTables && anchorTables.page[page[r]] & anchorTables.tp[tp[r]] & anchorTables.tr[tr[r]]
          ? 1
          : 0;
        const l = byPage ? byPage[page[r]] : label;
        if (l < 0 && !a) continue;
        at[n] = r;
        lab[n] = l;
        anc[n++] = a;
      }
      out.push({ sec, n, at, lab, anc });
    }
    return out;
  };
  const push = (p: Picked, j: number, g: number, part: number) => {
    const r = p.at[j], sec = p.sec;
    rows.push(
      sec.t[r],
      sec.dt[r],
      sec.seq[r],
      g,
      sec.vis[r],
      p.lab[j],
      p.anc[j],
      part,
      part * 2 ** 32 + sec.row[r],
    );
  };

  const index = new SessionIndex(); // the sessions anchored so far
  // their rows: at most every row of the sections read (a quarter of that room first: see Rows)
  let most = tailSecs.reduce((n, sec) => n + sec.n, 0);
  entries.forEach((e) => sectionsOf(e).forEach((name) => (most += e!.secs[name][3])));
  const rows = new Rows(Math.ceil(most / 4), most);
  const gone = new Gone(); // (part, session) pairs let go of
  // parts kept for their sessions not anchored yet that may go on (pending: 1 per such session)
  const held: { part: number; picked: Picked[]; pending: Uint8Array; first: number; bytes: number }[] = [];
  const keepBytes = tune.keepBytes ?? Math.max(KEEP_BYTES, scans.source.partCapacity / 8);
  let heldBytes = 0;
  const order = tail.length ? [parts.length, ...parts.keys()] : [...parts.keys()];
  // one part: the sessions anchored in it found first, then the rows of anchored sessions taken; the part is
  // held when some other session may go on in the parts to come (`bound`: the newest time they hold plus
  // the idle time), else those are let go of (noted unless no part is to come)
  const use = (secs: StepSection[], part: number, bound: number, last: boolean) => {
    if (!secs.length) return;
    const picked = pick(secs), { h1, h2 } = secs[0];
    const here = new Uint8Array(h1.length), first = new Float64Array(h1.length).fill(Infinity);
    for (const { sec: { ses, t }, n, at, anc } of picked) {
      for (let j = 0; j < n; j++) {
        const r = at[j], x = ses[r];
        if (anc[j]) here[x] = 1;
        if (t[r] < first[x]) first[x] = t[r];
      }
    }
    // per session of the part: its number when anchored, -1 let go of, -3 pending, -2 not looked up yet
    const num = new Int32Array(h1.length).fill(-2), pending = new Uint8Array(h1.length);
    let firstPending = Infinity;
    for (const p of picked) {
      const { ses, vis } = p.sec, at = p.at;
      for (let j = 0; j < p.n; j++) {
        const r = at[j], x = ses[r];
        if (num[x] === -2) {
          let g = index.get(vis[r], h1[x], h2[x]);
          if (g < 0 && here[x]) g = index.add(vis[r], h1[x], h2[x]);
          if (g >= 0) num[x] = g;
          else if (!last && first[x] <= bound) {
            num[x] = -3;
            pending[x] = 1;
            if (first[x] < firstPending) firstPending = first[x];
          } else {
            num[x] = -1;
            if (!last) gone.push(part, vis[r], h1[x], h2[x]);
          }
        }
        if (num[x] >= 0) push(p, j, num[x], part);
      }
    }
    if (firstPending === Infinity) return;
    const bytes = secs.reduce((n, sec) => n + sectionBytes(sec), 0) +
      picked.reduce((n, p) => n + 9 * p.sec.n, 0);
    held.push({ part, picked, pending, first: firstPending, bytes });
    heldBytes += bytes;
  };
  // a held part let go of: the rows of its pending sessions anchored since, the others noted as let go of
  const release = (at: number, last: boolean) => {
    const [{ part, picked, pending, bytes }] = held.splice(at, 1);
    heldBytes -= bytes;
    taken(picked, part, (x, vis, h1, h2) => {
      if (!pending[x]) return -1;
      const g = index.get(vis, h1, h2);
      if (g < 0 && !last) gone.push(part, vis, h1, h2);
      return g;
    });
  };
  // the rows of a part's sessions that `of` numbers (asked once a session: its number, or -1 not taken)
  const taken = (
    picked: Picked[],
    part: number,
    of: (x: number, vis: number, h1: number, h2: number) => number,
  ) => {
    if (!picked.length) return;
    const { h1, h2 } = picked[0].sec, num = new Int32Array(h1.length).fill(-2);
    for (const p of picked) {
      const { ses, vis } = p.sec, at = p.at;
      for (let j = 0; j < p.n; j++) {
        const r = at[j], x = ses[r];
        if (num[x] === -2) num[x] = of(x, vis[r], h1[x], h2[x]);
        if (num[x] >= 0) push(p, j, num[x], part);
      }
    }
  };

  const ahead: ReturnType<typeof read>[] = [];
  for (let i = 0; i < Math.min(READ_AHEAD, order.length); i++) ahead.push(read(order[i]));
  for (let i = 0; i < order.length; i++) {
    const secs = await ahead.shift()!;
    if (i + READ_AHEAD < order.length) ahead.push(read(order[i + READ_AHEAD]));
    if (!secs) {
      await Promise.allSettled(ahead);
      return null; // the part went meanwhile (merged): the caller's streamed read is consistent
    }
    // the newest time the parts still to come can hold, plus the time a session may stay idle
    const last = i + 1 === order.length, bound = last ? -Infinity : parts[order[i + 1]].max_t + openMs;
    use(secs, order[i], bound, last);
    // held parts none of whose sessions can go on any more, then the oldest held while over the bytes
    for (let h = held.length - 1; h >= 0; h--) if (held[h].first > bound) release(h, last);
    while (heldBytes > keepBytes) release(0, last);
  }

  // sessions anchored after some of their rows were let go of: those rows again, from just those parts
  const again = new Map<number, Set<number>>();
  for (let j = 0; j < gone.n; j++) {
    const g = index.get(gone.vis[j], gone.h1[j], gone.h2[j]);
    if (g < 0) continue;
    let set = again.get(gone.part[j]);
    if (!set) again.set(gone.part[j], set = new Set());
    set.add(g);
  }
  for (const [part, want] of again) {
    const secs = await read(part);
    if (!secs) return null;
    taken(pick(secs), part, (_x, vis, h1, h2) => {
      const g = index.get(vis, h1, h2);
      return want.has(g) ? g : -1;
    });
  }
  const answer = walk(rows, names, o, depth);
  scans.source.keep(
    keptKey,
    { tail, answer: structuredClone(answer) },
    1024 + JSON.stringify(answer).length * 2,
  );
  return answer;
}

/** A section's rows that are steps or anchors, in scope: row, label (-1: no step), anchor (1). */
interface Picked {
  sec: StepSection;
  n: number;
  at: Int32Array;
  lab: Int32Array;
  anc: Uint8Array;
}

/** Growable list of sessions let go of: the part and the session's visitor number and id hashes. */
class Gone {
  n = 0;
  part = new Int32Array(1024);
  vis = new Uint32Array(1024);
  h1 = new Uint32Array(1024);
  h2 = new Uint32Array(1024);
  push(part: number, vis: number, h1: number, h2: number) {
    if (this.n === this.part.length) {
      const more = <T extends Int32Array | Uint32Array>(a: T): T => {
        const x = new (a.constructor as { new (n: number): T })(this.n * 2);
        x.set(a);
        return x;
      };
      this.part = more(this.part);
      this.vis = more(this.vis);
      this.h1 = more(this.h1);
      this.h2 = more(this.h2);
    }
    const k = this.n++;
    this.part[k] = part;
    this.vis[k] = vis;
    this.h1[k] = h1;
    this.h2[k] = h2;
  }
}

/**
 * Sessions by visitor number and id hashes, numbered as added (exact: all three compared), in an
 * open-addressing table of typed arrays (a Map keyed by 32-bit hashes costs far more at 400k sessions).
 */
class SessionIndex {
  private slots = new Int32Array(1 << 12).fill(-1); // an entry's number, -1 empty
  private vis = new Uint32Array(1024);
  private h1 = new Uint32Array(1024);
  private h2 = new Uint32Array(1024);
  private count = 0;
  private start(vis: number, h1: number, h2: number): number {
    return (Math.imul(h1 ^ Math.imul(vis, 0x9e3779b1), 0x85ebca6b) ^ h2) & (this.slots.length - 1);
  }
  add(vis: number, h1: number, h2: number): number {
    const found = this.get(vis, h1, h2);
    if (found >= 0) return found;
    if (this.count === this.vis.length) this.grow();
    const id = this.count++;
    this.vis[id] = vis;
    this.h1[id] = h1;
    this.h2[id] = h2;
    if (this.count * 2 > this.slots.length) this.rehash();
    else this.place(id);
    return id;
  }
  /** The session's number, or -1. */
  get(vis: number, h1: number, h2: number): number {
    const mask = this.slots.length - 1;
    for (let at = this.start(vis, h1, h2);; at = (at + 1) & mask) {
      const id = this.slots[at];
      if (id === -1) return -1;
      if (this.h1[id] === h1 && this.h2[id] === h2 && this.vis[id] === vis) return id;
    }
  }
  private place(id: number) {
    const mask = this.slots.length - 1;
    let at = this.start(this.vis[id], this.h1[id], this.h2[id]);
    while (this.slots[at] !== -1) at = (at + 1) & mask;
    this.slots[at] = id;
  }
  private grow() {
    const more = (a: Uint32Array) => {
      const x = new Uint32Array(a.length * 2);
      x.set(a);
      return x;
    };
    this.vis = more(this.vis);
    this.h1 = more(this.h1);
    this.h2 = more(this.h2);
  }
  private rehash() {
    this.slots = new Int32Array(this.slots.length * 2).fill(-1);
    for (let id = 0; id < this.count; id++) this.place(id);
  }
}
