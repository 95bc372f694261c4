/**
 * A cohort's question over a period whose parts do not fit the scan's budget: only the rows of the cohort's
 * visitors are kept. The members are evaluated part by part (cache.ts `streamed`), then each part of the
 * period is read once more, alone, cut to its members' rows (a visitor's every row: sessions stay whole)
 * and let go at once (its buffers freed, not left to the collector). The cut batches are kept in the one
 * budget under the membership's number, so warm questions read neither. A scan over them counts exactly
 * what it counted over whole parts: the cohort's mask (scan/ctx.ts) keeps only members' rows anyway.
 *
 * Before (1M events, a cohort of ~8% of visitors): each cohort question held its month decoded (~130 MB in
 * the scan's budget), and the bench's next engine decoded its own beside the last one's, not yet collected.
 */
import type { Batch, Column, StrCol } from "../../parts/columns.ts";
import { defineLazyDict } from "../../parts/codec.ts";
import { releaseDecoded } from "../../parts/packed_arrays.ts";
import { type EvBatch, heldBytes, prepareEvents } from "../columns/batch.ts";
import type { EventLoad, Source } from "../columns/source.ts";
import type { Interner } from "../columns/intern.ts";
import type { Membership } from "../scan/ctx.ts";
import type { Scope } from "../types.ts";

/** Whether visitor number `v` is a member. */
const isMember = (m: Membership, v: number) => (v < m.bits.length ? m.bits[v] : m.dflt) === 1;

/** A string column of some rows: codes taken, the dictionary copied (the whole batch's buffers are freed). */
function strRows(c: StrCol, rows: Uint32Array): StrCol {
  const codes = new (c.codes.constructor as new (n: number) => StrCol["codes"])(rows.length);
  for (let k = 0; k < rows.length; k++) codes[k] = c.codes[rows[k]];
  const packed = c.packed && { offsets: c.packed.offsets.slice(), bytes: c.packed.bytes.slice() };
  const dictJson = c.dictJson?.slice();
  const col = { kind: "str", codes, dictBytes: c.dictBytes, packed, dictJson } as StrCol;
  defineLazyDict(col, packed || dictJson ? undefined : c.dict.slice());
  return col;
}

/**
 * The member rows of a part's columns as a batch of their own (n 0: none), numbered as the part's would be.
 * Members are told by visitor id (each of the part's visitors numbered once), so the part's rows are never
 * numbered or its sessions interned: only the cut's are (interning was ~1.1 s of a cold overview's ~2.6 s
 * of CPU under a cohort at 1M events when the part was prepared first).
 */
export function memberRows(b: Batch, m: Membership, interner: Interner): EvBatch {
  const anon = b.cols.anon as StrCol, codes = anon.codes;
  const size = anon.packed ? anon.packed.offsets.length : anon.dict.length + 1;
  const member = new Uint8Array(size);
  for (let a = 1; a < size; a++) {
    const v = anon.packed
      ? interner.visBytes(anon.packed.bytes, anon.packed.offsets[a - 1], anon.packed.offsets[a])
      : interner.vis(anon.dict[a - 1]);
    member[a] = isMember(m, v) ? 1 : 0;
  }
  let count = 0;
  for (let i = 0; i < b.n; i++) count += member[codes[i]];
  const rows = new Uint32Array(count);
  for (let i = 0, k = 0; i < b.n; i++) if (member[codes[i]]) rows[k++] = i;
  const cols: Batch["cols"] = {};
  for (const [name, c] of Object.entries(b.cols) as [string, Column][]) {
    if (c.kind === "num") {
      const values = new Float64Array(count);
      for (let k = 0; k < count; k++) values[k] = c.values[rows[k]];
      cols[name] = { kind: "num", values };
    } else cols[name] = strRows(c, rows);
  }
  freeColumns(b);
  return prepareEvents({ n: count, cols }, interner);
}

/** Frees every buffer a part's read columns view (its stored range, inflated columns) at once. */
function freeColumns(b: Batch): void {
  for (const name of Object.keys(b.cols)) {
    const d = Object.getOwnPropertyDescriptor(b.cols, name)!;
    if (!("value" in d)) continue; // never read: its stored bytes are a view on a range freed with another
    const c = d.value as Column;
    if (c.kind === "num") releaseDecoded(c.values);
    else {
      releaseDecoded(c.codes);
      releaseDecoded(c.packed?.bytes);
      releaseDecoded(c.packed?.offsets);
      releaseDecoded(c.dictJson);
    }
  }
}

/**
 * Frees a batch read for one stream alone (`Source.stream` `own`) at once: every buffer its columns and
 * arrays view (a part's stored range, inflated columns). Nothing else may hold any of them.
 */
export function freeBatch(e: EvBatch): void {
  freeColumns(e.b);
  for (const a of [e.vis, e.ses, e.runStart, e.runSes, e.runVis, e.runPv, e.runHuman, e.bits]) {
    releaseDecoded(a);
  }
  for (const a of e.made) releaseDecoded(a);
  for (const a of e.ids.values()) releaseDecoded(a);
  for (const a of e.scopeMasks.values()) releaseDecoded(a);
}

/**
 * The period's batches for a question under `m`: each part cut to its members' rows (kept in the budget),
 * then the raw tail whole (the scan's mask selects its members). As `Source.events` gives them.
 */
export async function memberLoad(source: Source, s: Scope, m: Membership): Promise<EventLoad> {
  const interner = source.interner(s.org, s.env);
  const keyOf = (id: string) => `members|${s.org}|${s.env}|${id}|${interner.generation}|${m.id}`;
  // the cut of each part, null when it has no member's row; held here while the load is assembled
  const cuts = new Map<string, { batch: EvBatch | null }>();
  let tail: EvBatch | null = null;
  const read = await source.stream(s.org, s.env, s.from, s.to, {
    own: true,
    // each part cut as it is read: the read-ahead holds cut parts
    prepare: (b, interner) => memberRows(b, m, interner),
    pick: (p) => {
      const kept = source.kept<{ batch: EvBatch | null }>(keyOf(p.id));
      if (kept) cuts.set(p.id, kept);
      return !cuts.has(p.id);
    },
    begin: () => {
      tail = null;
    },
    visit: (e, isTail, part) => {
      if (isTail) {
        tail = e;
        return;
      }
      cuts.set(part!.id, { batch: e.n ? e : null });
    },
  });
  const batches: EvBatch[] = [];
  for (const id of read.partIds) {
    const cut = cuts.get(id);
    if (!cut) throw new Error(`part ${id} was not read`);
    source.keep(keyOf(id), cut, cut.batch ? heldBytes(cut.batch) : 64);
    if (cut.batch) batches.push(cut.batch);
  }
  const parts = batches.length;
  if (tail) batches.push(tail);
  return {
    batches,
    parts,
    rawRows: read.rawRows,
    partIds: read.partIds,
    partSpan: read.partSpan,
    tailIds: read.tailIds,
  };
}
