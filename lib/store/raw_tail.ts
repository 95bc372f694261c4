/**
 * The raw tail of one environment (records not compacted yet) read whole, with what identifies this read:
 * each record's id and the versionstamp of the commit that wrote it, in key order. Two reads with the same
 * identity hold the same records, so what was built from the first (a question's batch) serves the second
 * without building it again. Unreadable records are quarantined as every raw listing does (readable.ts).
 *
 * Read again with the previous read (`known`), a record whose key and versionstamp are unchanged is taken
 * from it as decoded then: only new or rewritten records are decoded, and the answer holds the very same
 * objects, so a read that finds nothing changed costs KV's listing alone (issue 32: decoding 40,000 raw
 * events again took about as long as listing them).
 */
import { keys } from "./keys.ts";
import { listReadable, rawEvents, rawHits, type RawWhere } from "./readable.ts";
import type { StoredEvent, StoredHit } from "./records.ts";

export interface RawTail<R> {
  records: R[];
  /** per record, in key order: the versionstamp of the commit that wrote it (a rewrite changes it) */
  stamps: string[];
}

/** What a raw record is known by besides its versionstamp: its id, the last part of its key. */
type Identified = { id: string };

/** Entries a listing hands over between two turns of the event loop (KV deserializes a batch at once). */
const LIST_BATCH = 250;

/** Runs of new records decoded by reading their time ranges again; past this, the whole tail is decoded. */
const MAX_RUNS = 32;

/**
 * A tail shorter than this is read whole: reusing decoded records lists the tail twice (once as stored, then
 * the new records' ranges), which for a small tail that changes between questions (a site taking events)
 * cost more than decoding it: the blast-radius bench's reads took 19 ms at the median before reuse, 63 ms
 * with it, 16 ms with small tails read whole.
 */
export const REUSE_FROM = 2_000;

type Decoding<R> = (kv: Deno.Kv, w: RawWhere, from?: number, to?: number) => AsyncIterable<{
  key: Deno.KvKey;
  value: R;
  versionstamp: string;
}>;

const idOf = (key: Deno.KvKey) => String(key[key.length - 1]);

/**
 * The known records by versionstamp and id, made when first needed: a listing that matches the known one
 * entry by entry (nothing changed) is checked in place and needs no lookup.
 */
function lookup<R extends Identified>(known: RawTail<R>) {
  let map: Map<string, R> | undefined;
  return (versionstamp: string, id: string) => {
    if (!map) {
      map = new Map();
      for (let i = 0; i < known.records.length; i++) {
        map.set(known.stamps[i] + known.records[i].id, known.records[i]);
      }
    }
    return map.get(versionstamp + id);
  };
}

async function readTail<R extends Identified>(
  kv: Deno.Kv,
  w: RawWhere,
  prefix: Deno.KvKey,
  decoding: Decoding<R>,
  known: RawTail<R> | undefined,
  reuseFrom: number,
): Promise<RawTail<R>> {
  const whole = async () => {
    const records: R[] = [], stamps: string[] = [];
    for await (const e of decoding(kv, w)) {
      records.push(e.value);
      stamps.push(e.versionstamp);
    }
    return { records, stamps };
  };
  if (!known?.records.length || known.records.length < reuseFrom) return await whole();
  const find = lookup(known);
  // the listing with values left as KV gives them: a known record is not decoded again
  const records: (R | undefined)[] = [], stamps: string[] = [], keysOf: Deno.KvKey[] = [];
  const runs: { from: number; to: number }[] = [];
  let inRun = false;
  for await (
    const e of listReadable<unknown>(kv, { prefix }, {
      org: w.org,
      decode: (v) => v,
      log: w.log,
      now: w.now,
      batchSize: LIST_BATCH,
    })
  ) {
    const i = records.length, id = idOf(e.key);
    const same = known.stamps[i] === e.versionstamp && known.records[i]?.id === id;
    const record = same ? known.records[i] : find(e.versionstamp, id);
    records.push(record);
    stamps.push(e.versionstamp);
    if (record !== undefined) {
      inRun = false;
      continue;
    }
    keysOf[i] = e.key;
    const t = Number(e.key[e.key.length - 2]);
    if (inRun) runs[runs.length - 1].to = t + 1;
    else runs.push({ from: t, to: t + 1 });
    inRun = true;
  }
  if (!runs.length) return { records: records as R[], stamps };
  if (runs.length > MAX_RUNS) return await whole();
  // new or rewritten records: their time ranges read again through the decoding (and quarantining) listing
  const fresh = new Map<string, { value: R; versionstamp: string }>();
  for (const run of runs) {
    for await (const e of decoding(kv, w, run.from, run.to)) {
      fresh.set(idOf(e.key), { value: e.value, versionstamp: e.versionstamp });
    }
  }
  const out: RawTail<R> = { records: [], stamps: [] };
  for (let i = 0; i < records.length; i++) {
    const r = records[i];
    if (r !== undefined) {
      out.records.push(r);
      out.stamps.push(stamps[i]);
      continue;
    }
    // gone since it was listed (compacted or quarantined) when the second read lacks it
    const f = fresh.get(idOf(keysOf[i]));
    if (!f) continue;
    out.records.push(f.value);
    out.stamps.push(f.versionstamp);
  }
  return out;
}

/**
 * The raw web events of an environment; `known`: the previous read, whose unchanged records are reused when
 * it holds at least `reuseFrom` records.
 */
export function readEventTail(
  kv: Deno.Kv,
  w: RawWhere,
  known?: RawTail<StoredEvent>,
  reuseFrom = REUSE_FROM,
): Promise<RawTail<StoredEvent>> {
  return readTail(kv, w, keys.rawEvents(w.org, w.env), rawEvents, known, reuseFrom);
}

/** The raw crawler hits of an environment; `known` as for readEventTail. */
export function readHitTail(
  kv: Deno.Kv,
  w: RawWhere,
  known?: RawTail<StoredHit>,
  reuseFrom = REUSE_FROM,
): Promise<RawTail<StoredHit>> {
  return readTail(kv, w, keys.rawHits(w.org, w.env), rawHits, known, reuseFrom);
}

/** True when both reads hold the same records. */
export function sameRecords<R extends Identified>(a: RawTail<R>, b: RawTail<R>): boolean {
  if (a.stamps.length !== b.stamps.length) return false;
  for (let i = 0; i < a.stamps.length; i++) {
    if (a.stamps[i] !== b.stamps[i] || a.records[i].id !== b.records[i].id) return false;
  }
  return true;
}
