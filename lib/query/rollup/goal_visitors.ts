/**
 * Each goal's visitors in scope, for the questions by attribution that count conversions (sources_answers.ts,
 * sources_from_runs.ts, explain_answers.ts): the parts' members kept per period, marked by visitor number with
 * the raw tail's.
 */
import { inBatches } from "../../batches.ts";
import { Gone, type RollupReader, rowsInScope } from "./reader.ts";
import type { Scope } from "../types.ts";
import { ROLLUP_FIELDS } from "./build.ts";
import type { RollupParts } from "./pieces.ts";
import { forEachMember } from "../../parts/visitor_set.ts";

/**
 * The visitor numbers with an event of this type in the parts' hours in scope (sorted), from the event
 * type's rows and sets (read for this only: the members are what is kept, per period).
 */
export async function goalMembers(
  r: RollupReader,
  parts: { id: string }[],
  partInside: Set<number>[],
  period: string,
  s: Scope,
  traffic: Set<string>,
  type: string,
): Promise<Uint32Array> {
  const ev = ROLLUP_FIELDS.indexOf("event_type");
  const gkey = `${period}|goal|${type}`;
  let members = r.cache.get(gkey) as Uint32Array | undefined;
  r.lastAsked.set(gkey, r.asked);
  if (members) return members;
  const want = { fields: [ev], sets: [ev], facts: false, ends: false };
  const got = await inBatches(parts, 4, (p) => r.part(p.id, want, false));
  if (got.some((p) => p === null)) throw new Gone();
  const seen = new Set<number>();
  (got as RollupParts[]).forEach((p, pi) => {
    const r = p.field(ev);
    for (const i of rowsInScope(p, r, ev, partInside[pi], s, traffic)) {
      if (r.values[r.value[i]] === type) forEachMember(r.sets, r.visAt[i], r.viewAt[i], (v) => seen.add(v));
    }
  });
  members = Uint32Array.from(seen).sort();
  r.setKept(gkey, members, members.byteLength + 64, false);
  return members;
}

/** Each goal's visitors in scope: the parts' (`kept`) and the raw tail's, marked by visitor number. */
export function goalMarks(
  goals: string[],
  kept: Map<string, Uint32Array>,
  space: number,
  tailPart: RollupParts | null,
  tailInside: Set<number> | null,
  s: Scope,
  traffic: Set<string>,
): Map<string, Uint8Array> {
  const ev = ROLLUP_FIELDS.indexOf("event_type");
  const marks = new Map<string, Uint8Array>();
  for (const type of goals) {
    const mark = new Uint8Array(space + 1);
    for (const v of kept.get(type)!) if (v < mark.length) mark[v] = 1;
    if (tailPart) {
      const r = tailPart.field(ev);
      for (const i of rowsInScope(tailPart, r, ev, tailInside!, s, traffic)) {
        if (r.values[r.value[i]] !== type) continue;
        forEachMember(r.sets, r.visAt[i], r.viewAt[i], (v) => (v < mark.length ? mark[v] = 1 : 0));
      }
    }
    marks.set(type, mark);
  }
  return marks;
}
