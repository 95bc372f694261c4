/**
 * Funnels from the parts' step columns (step_column/): each part's sections of the steps' event types are
 * read (not the part), its rows matching a step kept as funnel_stream.ts keeps them, the raw tail's column
 * built at question time; then the same walk. Taken when every part of the period has a column and the
 * steps' conditions are on fields the column holds (page, touchpoint, traffic, event type), without a split
 * or a cohort; else null (the caller streams the parts).
 */
import type { Deps } from "../../deps.ts";
import { buildEventBatch } from "../../parts/event_batch.ts";
import { visitorNumbersForReading } from "../../parts/visitor_numbers.ts";
import type { ScanContexts } from "../scan/contexts.ts";
import { matches } from "../scan/filters.ts";
import { batchVisitors, rowVisitors } from "../rollup/build.ts";
import type { FunnelOptions, FunnelResult, StepDef } from "../sequence_types.ts";
import type { Scope } from "../types.ts";
import { buildStepColumn, type StepSection } from "../step_column/build.ts";
import { readStepEntries, readStepSection, readStepSessions, secName } from "../step_column/store.ts";
import { StepRows, walkStepRows } from "./step_rows.ts";

/** Step condition fields the column can decide. */
export const STEP_FIELDS = new Set(["page", "touchpoint", "traffic", "event_type"]);

/** Parts whose sections are read while the one before is matched. */
const READ_AHEAD = 4;

/** Whether the column can answer: conditions it holds, no split, no cohort. */
export function columnCanAnswer(s: Scope, o: FunnelOptions): boolean {
  return !s.cohort && !o.split && o.steps.length <= 8 &&
    o.steps.every((st) => (st.filters ?? []).every((f) => STEP_FIELDS.has(f.field)));
}

/** A section's step bits per row: which steps of its event type each row matches by its codes. */
export function sectionSteps(sec: StepSection, steps: StepDef[]): ((k: number) => number) | null {
  const mine = steps.map((st, k) => ({ st, k })).filter(({ st }) =>
    sec.et !== null && st.event_type === sec.et
  );
  if (!mine.length) return null;
  const dictOf = { page: sec.pages, touchpoint: sec.tps, traffic: sec.trs } as const;
  const tests = mine.map(({ st, k }) => {
    const masks: [Uint8Array, ArrayLike<number>][] = [];
    let never = false;
    for (const f of st.filters ?? []) {
      if (f.field === "event_type") {
        if (!matches(sec.et, f)) never = true;
        continue;
      }
      const field = f.field as keyof typeof dictOf;
      const dict = dictOf[field];
      const codes = field === "page" ? sec.page : field === "touchpoint" ? sec.tp : sec.tr;
      masks.push([Uint8Array.from(dict, (v) => (matches(v, f) ? 1 : 0)), codes]);
    }
    return { bit: 1 << k, masks, never };
  }).filter((x) => !x.never);
  return (r) => {
    let bits = 0;
    for (const { bit, masks } of tests) if (masks.every(([m, c]) => m[c[r]] === 1)) bits |= bit;
    return bits;
  };
}

/** The funnel from step columns, or null when a part has none (or went meanwhile). */
export async function columnFunnel(
  scans: ScanContexts,
  s: Scope,
  o: FunnelOptions,
  kv: Deno.Kv,
): Promise<FunnelResult | null> {
  if (!columnCanAnswer(s, o)) return null;
  const source = scans.source;
  const { parts, tail } = await source.partsAndTail(s.org, s.env, s.from, s.to);
  const entries = await readStepEntries(kv, parts.map((p) => p.id));
  if (entries.some((e) => e === null)) return null;
  const names = [...new Set(o.steps.map((st) => secName(st.event_type)))];
  const byVisitor = o.by !== "session";
  const traffic = new Set<string | null>(s.traffic ?? ["human"]);
  const rows = new StepRows();
  const sessionIds = new Map<string, number>();
  const add = (sec: StepSection, partAt: number) => {
    const stepOf = sectionSteps(sec, o.steps);
    if (!stepOf) return;
    const tpOk = Uint8Array.from(sec.tps, (v) => (!s.touchpoint || v === s.touchpoint ? 1 : 0));
    const trOk = Uint8Array.from(sec.trs, (v) => (traffic.has(v) && (!byVisitor || v === "human") ? 1 : 0));
    const { t, dt, seq, vis, tp, tr, ses, row } = sec;
    for (let r = 0; r < sec.n; r++) {
      if (!(t[r] >= s.from && t[r] < s.to && tpOk[tp[r]] && trOk[tr[r]])) continue;
      const bits = stepOf(r);
      if (!bits) continue;
      let unit = vis[r];
      if (!byVisitor) {
        const key = `${vis[r]}|${sec.h1[ses[r]]}|${sec.h2[ses[r]]}`;
        let u = sessionIds.get(key);
        if (u === undefined) sessionIds.set(key, u = sessionIds.size);
        unit = u;
      }
      rows.push(t[r], dt[r], seq[r], unit, bits, 0, partAt * 2 ** 32 + row[r]);
    }
  };
  // sections of the steps' types, with the part's session table attached when units are sessions
  const read = async (k: number) => {
    const [secs, table] = await Promise.all([
      Promise.all(names.map((name) => readStepSection(kv, parts[k].id, entries[k]!, name))),
      byVisitor ? null : readStepSessions(kv, parts[k].id, entries[k]!),
    ]);
    if (table === undefined) return [undefined];
    if (table) { for (const g of secs) if (g) Object.assign(g.section, table); }
    return secs;
  };
  const ahead: ReturnType<typeof read>[] = [];
  for (let k = 0; k < Math.min(READ_AHEAD, parts.length); k++) ahead.push(read(k));
  for (let k = 0; k < parts.length; k++) {
    const got = await ahead.shift()!;
    if (k + READ_AHEAD < parts.length) ahead.push(read(k + READ_AHEAD));
    if (got.some((g) => g === undefined)) {
      await Promise.allSettled(ahead);
      return null; // the part went meanwhile (merged): the caller's streamed read is consistent
    }
    for (const g of got) if (g) add(g.section, k);
  }
  if (tail.length) {
    // the raw tail's column, its visitors by their numbers (new ones numbered past every given one)
    const batch = await buildEventBatch(Object.isFrozen(tail) ? tail : [...tail]);
    const { numbers } = await visitorNumbersForReading(kv, s.org, s.env, batchVisitors(batch));
    const vis = rowVisitors(batch, numbers);
    for (const sec of buildStepColumn(batch, (i) => vis[i])) add(sec, parts.length);
  }
  return walkStepRows(rows, o, []);
}

/** The KV store behind a source (until the engine passes it to sequence questions). */
export const kvOf = (scans: ScanContexts): Deno.Kv => (scans.source as unknown as { deps: Deps }).deps.kv;
