/**
 * Rollups for event parts written before rollups existed (or of an older rollup version): each compaction
 * run of an environment's events adds them to a few such parts after its own work, under its lease (so no
 * merge removes a part while its rollup is written), until every part has one. Resumable by nature: what
 * is done is what has a rollup entry. Until then aggregate questions over those parts scan, as before.
 */
import type { Deps } from "../deps.ts";
import { decodeBatch } from "../parts/codec.ts";
import type { Batch } from "../parts/columns.ts";
import { listParts, partColumns, PartGoneError, readBlob } from "../parts/store.ts";
import {
  addAttr,
  addEnds,
  addEntryBlocks,
  addFirsts,
  addKeyedSpans,
  addRawSizes,
  addReporters,
  addRuns,
  addShortKeys,
  ATTR_RUNS_SEC,
  ATTR_SEC,
  ENDS_SEC,
  FIRST_SEC,
  hasBlockEnds,
  hasKeyedSpans,
  hasRawSizes,
  hasRollup,
  hasShortKeys,
  partRollup,
  readEntry,
  readV8,
  writeRollup,
} from "../query/rollup/store.ts";
import type { EnvName } from "../store/records.ts";
import { keys } from "../store/keys.ts";

export interface BackfillOptions {
  /** parts given a rollup per call at most (default 8: a compaction run stays short) */
  maxParts?: number;
  /** stop starting new parts after this long (ms; default 20 s) */
  budgetMs?: number;
}

/** Adds rollups to parts of one environment that have none; answers how many, and whether some remain. */
export async function backfillRollups(
  deps: Deps,
  org: string,
  env: EnvName,
  o: BackfillOptions = {},
): Promise<{ parts: number; remaining: number }> {
  const { kv } = deps;
  const t0 = performance.now();
  const missing = [];
  for (const p of await listParts(kv, org, env, "ev")) if (!(await hasRollup(kv, p.meta.id))) missing.push(p);
  let done = 0;
  for (const { meta } of missing) {
    if (done >= (o.maxParts ?? 8) || performance.now() - t0 > (o.budgetMs ?? 20_000)) break;
    let decoded: Promise<Batch> | null = null;
    const batch = () =>
      decoded ??= (async () => {
        const columns = await partColumns(kv, meta);
        return decodeBatch({ n: meta.rows, columns }, await readBlob(kv, meta));
      })();
    const current = () => readEntry(kv, meta.id);
    // a section a rollup lacks, from the part (its sections as written first: attributions came with
    // version 8, first events with 9); a part merged away meanwhile: its rollup goes below
    const adding = async (sec: number, add: typeof addAttr) => {
      const e = await current();
      if (!e || e.secs[sec]) return;
      try {
        await add(kv, org, env, meta.id, e, await batch());
      } catch (err) {
        if (!(err instanceof PartGoneError)) throw err;
      }
    };
    // the runs, from the rollup's own sections (the part is not read; without attributions or entries, a
    // part gone before they were added, there are none to make)
    const runs = async () => {
      const e = await current();
      if (e && !e.secs[ATTR_RUNS_SEC] && e.secs[ATTR_SEC] && e.secs[ENDS_SEC]) await addRuns(kv, meta.id, e);
      // each block's entries, from the ends and the runs' rows per block (the part is not read)
      const now = await current();
      if (now && now.secs[ATTR_RUNS_SEC] && !hasBlockEnds(now)) await addEntryBlocks(kv, meta.id, now);
      // the short keys a period's session totals read, from the keys (the part is not read),
      const last = await current();
      if (last && !hasShortKeys(last)) await addShortKeys(kv, meta.id, last);
      // and the spans keyed by them, from the spans and keys
      const keyed = await current();
      if (keyed && !hasKeyedSpans(keyed)) await addKeyedSpans(kv, meta.id, keyed);
      // and every section's inflated size, read where the entry lacks it (the part is not read); a section
      // that cannot be read (its chunks lost) would leave the part unfinished every run: its rollup is made
      // again from the part (a part merged away meanwhile: its rollup goes below)
      const sized = await current();
      if (sized && !hasRawSizes(sized) && !(await addRawSizes(kv, meta.id, sized))) {
        try {
          await writeRollup(kv, meta.id, await partRollup(kv, org, env, await batch()));
        } catch (err) {
          if (!(err instanceof PartGoneError)) throw err;
        }
      }
    };
    if (!(await current())) {
      const older = await readV8(kv, meta.id);
      if (older) {
        // a version-8 to -10 rollup lacks the first events (version 9), the runs (10) and the page and totals
        // rows' reporters (11): those rows are made again from the part (which makes the entry current), the
        // rest is added below
        try {
          await addReporters(kv, org, env, meta.id, older, await batch());
        } catch (err) {
          if (!(err instanceof PartGoneError)) throw err;
        }
      } else {
        // older still, or none: the whole rollup from the part (a version-3 to -7 one lacks the reporters,
        // which only the part gives)
        await writeRollup(kv, meta.id, await partRollup(kv, org, env, await batch()));
      }
    }
    // sections written before entries and exits, attributions, first events or runs: only theirs are added
    await adding(ENDS_SEC, addEnds);
    await adding(ATTR_SEC, addAttr);
    await adding(FIRST_SEC, addFirsts);
    await runs();
    // a part merged away meanwhile (only outside a compaction run): its rollup goes with it
    if (!(await kv.get(keys.part(org, env, "ev", meta.id))).value) {
      await kv.delete(keys.rollup(meta.id));
    }
    done++;
  }
  return { parts: done, remaining: missing.length - done };
}
