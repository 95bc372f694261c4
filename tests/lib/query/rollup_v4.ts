/** Version-4 rollups as deployments wrote them (facts, lists and ends each one section), for the backfill's test. */
import type { Rollup } from "../../../lib/query/rollup/build.ts";
import { FACT_LAYOUT } from "../../../lib/query/rollup/session_facts.ts";
import {
  clearRollup,
  encodeEnds,
  encodeFacts,
  encodeLists,
  encodeSections,
  ENDS_SEC,
  FACTS_SEC,
  LISTS_SEC,
} from "../../../lib/query/rollup/store.ts";
import { CHUNK_BYTES } from "../../../lib/parts/store.ts";
import { keys } from "../../../lib/store/keys.ts";

/** Replaces a part's rollup by its version-4 form: the fields' sections as now, the facts whole, no spans. */
export async function writeV4(kv: Deno.Kv, partId: string, r: Rollup): Promise<void> {
  await clearRollup(kv, partId);
  const { head, secs } = encodeSections(r);
  const v4 = new Map([...secs].filter(([sec]) => sec < 64));
  v4.set(FACTS_SEC, encodeFacts(r.facts));
  v4.set(LISTS_SEC, encodeLists(r.facts));
  if (r.facts.ends) v4.set(ENDS_SEC, encodeEnds(r.facts.n, r.facts.ends));
  const sizes: Record<string, [number, number]> = {};
  for (const [sec, bytes] of v4) {
    const chunks = Math.max(1, Math.ceil(bytes.length / CHUNK_BYTES));
    sizes[sec] = [bytes.length, chunks];
    for (let j = 0; j < chunks; j++) {
      await kv.set(
        keys.rollupChunk(partId, sec * 10_000 + j),
        bytes.slice(j * CHUNK_BYTES, (j + 1) * CHUNK_BYTES),
      );
    }
  }
  await kv.set(keys.rollup(partId), { v: 4, head, secs: sizes });
}

/**
 * A rollup with its facts as a sorted list of rows (each with its lists and ends), for comparing rollups whose
 * facts are stored in another order (older versions kept no cut visitors: their blocks come out otherwise).
 */
export function factsAsRows(r: Rollup): unknown {
  const f = r.facts, e = f.ends;
  const rows: string[] = [];
  for (let k = 0; k < f.n; k++) {
    const row: unknown[] = FACT_LAYOUT.map(([name]) => (f[name] as unknown as ArrayLike<number>)[k]);
    row.push([...f.listDt.subarray(f.listAt[k], f.listAt[k + 1])], [
      ...f.listSeq.subarray(f.listAt[k], f.listAt[k + 1]),
    ]);
    if (e) {
      row.push(e.entT[k], e.entDt[k], e.entSeq[k], e.entPage[k] ? e.pages[e.entPage[k] - 1] : "-");
      row.push(e.extT[k], e.extDt[k], e.extSeq[k], e.extPage[k] ? e.pages[e.extPage[k] - 1] : "-");
    }
    rows.push(JSON.stringify(row));
  }
  const { facts: _, ...rest } = r;
  return { ...rest, facts: rows.sort() };
}
