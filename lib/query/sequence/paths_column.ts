/**
 * Paths from the parts' step columns (step_column/): a first read of each part's anchor section finds the
 * anchored sessions (by visitor number and id hashes, so a session in several parts is one); a second reads
 * the sections whose rows are steps (pageviews for `page`, every type for `event`, pageviews and custom
 * events for `page_or_event`) and keeps the rows of anchored sessions only, then the same walk as the
 * streamed parts (paths_stream.ts). The raw tail's column is built at question time. Taken when every part
 * of the period has a column and the anchor's conditions are on fields the column holds, without a cohort;
 * else null (the caller streams the parts).
 */
import { buildEventBatch } from "../../parts/event_batch.ts";
import { visitorNumbersForReading } from "../../parts/visitor_numbers.ts";
import { batchVisitors, rowVisitors } from "../rollup/build.ts";
import type { ScanContexts } from "../scan/contexts.ts";
import type { PathsOptions, PathsResult } from "../sequence_types.ts";
import type { Scope } from "../types.ts";
import { buildStepColumn, type StepSection } from "../step_column/build.ts";
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

/** Paths from step columns, or null when a part has none (or went meanwhile). */
export async function columnPaths(
  scans: ScanContexts,
  s: Scope,
  o: PathsOptions,
  kv: Deno.Kv,
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
  // per section code, 1 where its touchpoint / traffic kind is in scope
  const scopeOf = (sec: StepSection) => ({
    tp: Uint8Array.from(sec.tps, (v) => (tpOk(v) ? 1 : 0)),
    tr: Uint8Array.from(sec.trs, (v) => (trOk(v) ? 1 : 0)),
  });

  // every section of every part the question reads, in part order (tail last), `names` of each
  const eachPart = async (
    names: (e: StepColumnEntry | null) => string[],
    use: (sec: StepSection, part: number) => void,
  ): Promise<boolean> => {
    // the sections, the part's session table attached
    const read = async (k: number) => {
      const [secs, table] = await Promise.all([
        Promise.all(names(entries[k]).map((name) => readStepSection(kv, parts[k].id, entries[k]!, name))),
        readStepSessions(kv, parts[k].id, entries[k]!),
      ]);
      if (table === undefined) return [undefined];
      for (const g of secs) if (g) Object.assign(g.section, table);
      return secs;
    };
    const ahead: ReturnType<typeof read>[] = [];
    for (let k = 0; k < Math.min(READ_AHEAD, parts.length); k++) ahead.push(read(k));
    for (let k = 0; k < parts.length; k++) {
      const got = await ahead.shift()!;
      if (k + READ_AHEAD < parts.length) ahead.push(read(k + READ_AHEAD));
      if (got.some((g) => g === undefined)) {
        await Promise.allSettled(ahead);
        return false;
      }
      for (const g of got) if (g) use(g.section, k);
    }
    const tailNames = new Set(names(null));
    for (const sec of tailSecs) if (tailNames.has(secName(sec.et))) use(sec, parts.length);
    return true;
  };

  // first read: the anchored sessions
  const anchored = new SessionIndex();
  const first = await eachPart(() => [anchorName], (sec) => {
    const tables = sectionSteps(sec, [o.anchor], tpOk, trOk);
    if (!tables) return;
    const { page: P, tp: T, tr: R } = tables, { t, page, tp, tr, vis, ses, h1, h2 } = sec;
    for (let r = 0; r < sec.n; r++) {
      if (!(P[page[r]] & T[tp[r]] & R[tr[r]]) || !(t[r] >= s.from && t[r] < s.to)) continue;
      anchored.add(vis[r], h1[ses[r]], h2[ses[r]]);
    }
  });
  if (!first) return null;

  // second read: the anchored sessions' step and anchor rows
  const rows = new Rows(), labels = new Map<string, number>(), names: string[] = [];
  const labelOf = (v: string) => {
    let id = labels.get(v);
    if (id === undefined) {
      labels.set(v, id = names.length);
      names.push(v);
    }
    return id;
  };
  const sectionsOf = (e: StepColumnEntry | null) => {
    const all = e ? Object.keys(e.secs) : tailSecs.map((x) => secName(x.et));
    const steps = stepSections(mode, all);
    return all.includes(anchorName) && !steps.includes(anchorName) ? [...steps, anchorName] : steps;
  };
  // per part's session table (shared by its sections): each session's number when anchored, -1 when not,
  // -2 not looked up yet
  let numOf: { table: Uint32Array; num: Int32Array } | null = null;
  const second = await eachPart(sectionsOf, (sec, part) => {
    const name = secName(sec.et);
    const isStep = stepSections(mode, [name]).length > 0;
    const anchorTables = name === anchorName ? sectionSteps(sec, [o.anchor], tpOk, trOk) : null;
    if (!isStep && !anchorTables) return;
    if (numOf?.table !== sec.h1) numOf = { table: sec.h1, num: new Int32Array(sec.h1.length).fill(-2) };
    const num = numOf.num;
    const inScope = scopeOf(sec);
    const label = mode === "event" || sec.et !== "$pageview" ? (isStep ? labelOf(sec.et!) : -1) : -3;
    const byPage = label === -3 ? Int32Array.from(sec.pages, (v) => labelOf(v ?? "")) : null;
    const { t, dt, seq, page, tp, tr, vis, ses, h1, h2, row } = sec;
    for (let r = 0; r < sec.n; r++) {
      if (!(t[r] >= s.from && t[r] < s.to) || !inScope.tp[tp[r]] || !inScope.tr[tr[r]]) continue;
      const x = ses[r];
      if (num[x] === -2) num[x] = anchored.get(vis[r], h1[x], h2[x]);
      if (num[x] < 0) continue;
      const a = anchorTables && anchorTables.page[page[r]] & anchorTables.tp[tp[r]] & anchorTables.tr[tr[r]]
        ? 1
        : 0;
      const l = byPage ? byPage[page[r]] : label;
      if (l < 0 && !a) continue;
      rows.push(t[r], dt[r], seq[r], num[x], vis[r], l, a, part, part * 2 ** 32 + row[r]);
    }
  });
  if (!second) return null;
  const answer = walk(rows, names, o, depth);
  scans.source.keep(
    keptKey,
    { tail, answer: structuredClone(answer) },
    1024 + JSON.stringify(answer).length * 2,
  );
  return answer;
}

/** Sessions by visitor number and id hashes, numbered as added (exact: all three compared). */
class SessionIndex {
  private at = new Map<number, number>(); // h1 -> first entry with it
  private vis: number[] = [];
  private h2: number[] = [];
  private next: number[] = []; // the next entry with the same h1, or -1
  add(vis: number, h1: number, h2: number): number {
    const found = this.get(vis, h1, h2);
    if (found >= 0) return found;
    const id = this.vis.length;
    this.vis.push(vis);
    this.h2.push(h2);
    this.next.push(this.at.get(h1) ?? -1);
    this.at.set(h1, id);
    return id;
  }
  /** The session's number, or -1. */
  get(vis: number, h1: number, h2: number): number {
    for (let id = this.at.get(h1) ?? -1; id >= 0; id = this.next[id]) {
      if (this.vis[id] === vis && this.h2[id] === h2) return id;
    }
    return -1;
  }
}
