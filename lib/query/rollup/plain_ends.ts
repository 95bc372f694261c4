/**
 * A period's entries and exits per page (its sessions' first and last pageviews in scope) part by part,
 * instead of one join of every session of the period at once: a session whose key no other part of the
 * period holds has all its rows in scope in its part, so its part's own join decides its ends; the rows of
 * the few sessions some other part also holds (spans.ts `sharedKeys`: at 10M events 4,626 keys of 1.73M) are
 * taken out and joined together at the end. The same join and the same comparison of ends (sessions.ts) as the
 * whole period's join, so the same counts; what it holds at once is a window of parts' facts and ends and one
 * part's join, not 1.76M joined rows (~75 bytes each) beside every part's facts and ends.
 */
import { inBatches } from "../../batches.ts";
import type { Scope } from "../types.ts";
import { Gone, type RollupReader, unitOf } from "./reader.ts";
import { addEnds, entriesAndExits, type EntriesExits, type FactsUnit, joinSessions } from "./sessions.ts";
import { ENDS_LAYOUT, FACT_LAYOUT, type FactEnds, type SessionFacts } from "./session_facts.ts";
import { sharedHas, type SharedSet, sharedSize } from "./spans.ts";

/** Parts read and joined at once (their facts and ends decoded: ~120 bytes a fact row). */
const WINDOW = 8;

/**
 * Entries and exits of the parts' sessions in scope (`inside[i]`: part i's hours in the period; `shared[i]`:
 * part i's session keys that another part of the period may hold too, spans.ts `SharedSet`).
 */
export async function endsByParts(
  r: RollupReader,
  parts: { id: string }[],
  inside: Set<number>[],
  shared: SharedSet[],
  s: Scope,
  traffic: Set<string>,
  space: number,
): Promise<EntriesExits> {
  const out: EntriesExits = { entries: new Map(), exits: new Map() };
  const sharedUnits: FactsUnit[] = [], sharedEnds: FactEnds[] = [], sharedHours: Set<number>[] = [];
  const asked = { fields: [], sets: [], facts: true, ends: true };
  for (let w = 0; w < parts.length; w += WINDOW) {
    const idx = parts.slice(w, w + WINDOW).map((_, x) => w + x);
    // facts and ends read for this count only (not kept: the counts are)
    const got = await inBatches(idx, 4, (i) => r.part(parts[i].id, asked, false));
    got.forEach((p, x) => {
      if (!p || !p.facts || !p.ends) throw new Gone();
      const i = idx[x], f = p.facts, set = shared[i];
      const alone = new Uint8Array(f.n).fill(1), picked: number[] = [];
      if (sharedSize(set)) {
        for (let k = 0; k < f.n; k++) {
          if (sharedHas(set, f.vis[k], f.h1[k])) {
            alone[k] = 0;
            picked.push(k);
          }
        }
      }
      const unit = unitOf(p);
      addEnds(
        out,
        entriesAndExits(
          joinSessions([unit], [inside[i]], s.touchpoint, traffic, space, null, [alone]),
          [p.ends],
        ),
      );
      if (picked.length) {
        const rows = Uint32Array.from(picked);
        sharedUnits.push({ ...unit, facts: pickFacts(f, rows) });
        sharedEnds.push(pickEnds(p.ends, rows));
        sharedHours.push(inside[i]);
      }
    });
  }
  if (sharedUnits.length) {
    addEnds(
      out,
      entriesAndExits(joinSessions(sharedUnits, sharedHours, s.touchpoint, traffic, space), sharedEnds),
    );
  }
  return out;
}

/** Some fact rows of a part, in order (without their device-time lists: only their join and ends are asked). */
export function pickFacts(f: SessionFacts, rows: Uint32Array): SessionFacts {
  const out = { n: rows.length } as Record<string, unknown>;
  for (const [name, T] of FACT_LAYOUT) out[name] = pick(f[name] as ArrayLike<number>, rows, T);
  out.listAt = new Uint32Array(rows.length + 1);
  out.listDt = new Float64Array(0);
  out.listSeq = new Float64Array(0);
  out.ends = null;
  return out as unknown as SessionFacts;
}

/** The ends of the same rows. */
export function pickEnds(e: FactEnds, rows: Uint32Array): FactEnds {
  const out = { pages: e.pages } as Record<string, unknown>;
  for (const [name, T] of ENDS_LAYOUT) out[name] = pick(e[name], rows, T);
  return out as unknown as FactEnds;
}

function pick(from: ArrayLike<number>, rows: Uint32Array, T: new (n: number) => ArrayLike<number>) {
  const to = new T(rows.length) as unknown as number[];
  for (let x = 0; x < rows.length; x++) to[x] = from[rows[x]];
  return to;
}
