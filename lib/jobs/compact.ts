/**
 * Compaction: folds closed windows of raw events and hits into immutable columnar parts, then merges
 * small parts of one day. Every step is safe to crash after and rerun:
 *  1. the part's chunks are written under a "building" mark (a rerun deletes chunks of an unpublished part);
 *  2. the index entry is published `pending` in the same atomic commit that clears the mark;
 *     readers skip raw keys of pending parts, so nothing counts twice;
 *  3. the raw keys of its rows are deleted (a rerun deletes them again from the part's own id column);
 *  4. the entry is marked not pending.
 * Merges swap index entries atomically (checked against concurrent change) and leave the old chunks as
 * garbage named in the mark, deleted afterwards. Addresses are never in records, so never in parts.
 */
import type { Deps } from "../deps.ts";
import { dayNumber, keys } from "../store/keys.ts";
import { ENV_NAMES, type EnvName, type Org } from "../store/records.ts";
import {
  type AnyRecord,
  buildPart,
  builtOfBatch,
  type BuiltPart,
  builtPartMeta,
  partBatch,
  partRawKeys,
  partRecords,
} from "../parts/build.ts";
import { mergeable, mergeEventBatches } from "../parts/merge_events.ts";
import {
  deleteChunks,
  listParts,
  newPartId,
  type PartKind,
  type PartMeta,
  touchIndex,
  writeChunks,
  writeDir,
} from "../parts/store.ts";
import { rawEvents, rawHits } from "../store/readable.ts";
import { type Turn, turns } from "../turns.ts";
import { CompactLease, LeaseLostError } from "./compact_lease.ts";
import { writePartTables } from "../query/part_tables.ts";
import { backfillRollups } from "./rollup_backfill.ts";
import { backfillHitRollups } from "./hit_rollup_backfill.ts";
import { backfillVitals } from "./vitals_backfill.ts";
import { backfillPropRollups } from "./prop_rollup_backfill.ts";
import { backfillFeatureTables } from "./feature_rollup_backfill.ts";
import { backfillStepColumns } from "./step_column_backfill.ts";

export interface CompactOptions {
  /** raw keys younger than this stay raw (in-flight ingest); default 2 minutes */
  graceMs?: number;
  /**
   * raw rows folded per round, default 20,000: it bounds memory (a 200k-row backlog peaked at 313 MB
   * resident; 568 MB at 50,000)
   */
  maxRows?: number;
  /** rows a closed day's event parts merge into, default `config.dayPartRows` */
  dayRows?: number;
  /** tests: throw at a named step to simulate a crash */
  failAt?: (step: CompactStep) => void;
}

export type CompactStep =
  | "chunks_written"
  | "published"
  | "raw_partly_deleted"
  | "raw_deleted"
  | "merge_chunks_written"
  | "merge_swapped";

interface Mark {
  building: string | null;
  garbage: string[];
  lease_until: number;
}

/** Raw keys younger than this stay raw by default (in-flight ingest). */
export const COMPACT_GRACE_MS = 120_000;

/** A merge through records holds them all at once (~1.5 kB a row): this bounds its memory. */
const MERGE_MAX_ROWS = 50_000;
const MERGE_MAX_SOURCES = 16;
/**
 * A closed day's event parts merge column by column (lib/parts/merge_events.ts, a few hundred bytes a row) into
 * parts of up to `config.dayPartRows` rows: a month of 10M events reads ~30 parts instead of ~200 (every
 * question's cold cost grows with parts: sections, sessions two parts share). Tables are built from the whole
 * merged batch, so that also bounds a merge's memory.
 */
/** A closed day's largest part is merged again only with at least a quarter of its rows new (late rows wait). */
const REWRITE_SHARE = 4;

export interface CompactReport {
  parts: number;
  rows: number;
  merged: number;
  /** parts written before rollups that got theirs (lib/jobs/rollup_backfill.ts, hit_rollup_backfill.ts) */
  rollups?: number;
  /** event parts written before Web Vitals tables that got theirs (lib/jobs/vitals_backfill.ts) */
  vitals?: number;
  /** event parts written before property rollups that got theirs (lib/jobs/prop_rollup_backfill.ts) */
  prop_rollups?: number;
  /** event parts written before feature tables that got theirs (lib/jobs/feature_rollup_backfill.ts) */
  feature_tables?: number;
  /** event parts written before step columns that got theirs (lib/jobs/step_column_backfill.ts) */
  step_columns?: number;
  /** organizations whose compaction failed this pass (compactAll only) */
  failed?: number;
}

/**
 * Compacts every organization's environments; the cron entry point. One organization failing is logged
 * with its id and skipped: the pass goes on with the others, and the next pass tries it again.
 */
export async function compactAll(deps: Deps, opts: CompactOptions = {}): Promise<CompactReport> {
  const total: CompactReport = { parts: 0, rows: 0, merged: 0, failed: 0 };
  for await (const o of deps.kv.list<Org>({ prefix: keys.orgs() })) {
    try {
      add(total, await compactOrg(deps, o.value.id, opts));
    } catch (err) {
      total.failed!++;
      deps.log.error("compaction of an organization failed; going on with the others", {
        org: o.value.id,
        error: String((err as Error)?.stack ?? err).slice(0, 500),
      });
    }
  }
  return total;
}

/**
 * Compacts one organization's environments, events and hits (also on demand: the admin API). One of them
 * failing does not stop the others (a day production's events could not compact kept its crawler hits and
 * its staging and development raw for good): all are tried, then the first failure is thrown.
 */
export async function compactOrg(deps: Deps, org: string, opts: CompactOptions = {}): Promise<CompactReport> {
  const total: CompactReport = { parts: 0, rows: 0, merged: 0 };
  let failure: { err: unknown } | null = null;
  for (const env of ENV_NAMES) {
    for (const kind of ["ev", "hit"] as const) {
      try {
        add(total, await compact(deps, org, env, kind, opts));
      } catch (err) {
        failure ??= { err };
      }
    }
  }
  if (failure) throw failure.err;
  return total;
}

function add(total: CompactReport, r: CompactReport) {
  total.parts += r.parts;
  total.rows += r.rows;
  total.merged += r.merged;
}

/** Where a run writes its mark, and the lease those writes are checked against. */
interface Writer {
  kv: Deno.Kv;
  markKey: Deno.KvKey;
  lease: CompactLease;
}

/** Writes the mark while the lease is this run's (a run that lost it stops here). */
async function setMark(w: Writer, mark: Mark) {
  const res = await w.lease.guarded((check) => w.kv.atomic().check(check).set(w.markKey, mark).commit());
  if (!res.ok) throw new LeaseLostError("compaction lease lost");
}

export async function compact(
  deps: Deps,
  org: string,
  env: EnvName,
  kind: PartKind,
  opts: CompactOptions = {},
): Promise<CompactReport> {
  const { kv, clock } = deps;
  const report: CompactReport = { parts: 0, rows: 0, merged: 0 };
  const markKey = keys.compactMark(org, env, kind);
  const now = clock.now();
  // a run of the version before leased through the mark (10 minutes, never renewed)
  const before = await kv.get<Mark>(markKey);
  if (before.value && before.value.lease_until > now) return report;
  const lease = await CompactLease.claim(kv, keys.compactLease(org, env, kind), clock);
  if (!lease) return report; // another run holds it
  try {
    const cur = await kv.get<Mark>(markKey); // as the last run left it, now that no other run writes it
    const mark: Mark = {
      building: cur.value?.building ?? null,
      garbage: cur.value?.garbage ?? [],
      lease_until: 0,
    };
    const w: Writer = { kv, markKey, lease };
    await recover(deps, org, env, kind, mark, w, opts);
    const cutoff = now - (opts.graceMs ?? COMPACT_GRACE_MS);
    for (let round = 0; round < 1000; round++) {
      const raw = await closedRaw(deps, org, env, kind, cutoff, opts.maxRows ?? 20_000);
      if (raw.length === 0) break;
      // a long backlog keeps the lease: no second run starts on the same raw keys meanwhile
      await lease.renew();
      for (const group of byDay(raw, kind)) {
        await publish(deps, org, env, kind, group, mark, w, opts);
        report.parts++;
        report.rows += group.length;
      }
    }
    report.merged = await mergeSmall(deps, org, env, kind, cutoff, mark, w, opts);
    // parts from before rollups get theirs a few at a time, under this run's lease (no merge meanwhile)
    if (kind === "ev" && !lease.lost) report.rollups = (await backfillRollups(deps, org, env)).parts;
    if (kind === "ev" && !lease.lost) report.vitals = (await backfillVitals(deps, org, env)).parts;
    if (kind === "ev" && !lease.lost) report.prop_rollups = (await backfillPropRollups(deps, org, env)).parts;
    if (kind === "ev" && !lease.lost) {
      report.feature_tables = (await backfillFeatureTables(deps, org, env)).parts;
    }
    if (kind === "ev" && !lease.lost) report.step_columns = (await backfillStepColumns(deps, org, env)).parts;
    if (kind === "hit" && !lease.lost) report.rollups = (await backfillHitRollups(deps, org, env)).parts;
  } finally {
    await lease.release();
  }
  return report;
}

/** Finishes what a crashed run left: unpublished chunks, garbage chunks, pending parts. */
async function recover(
  deps: Deps,
  org: string,
  env: EnvName,
  kind: PartKind,
  mark: Mark,
  w: Writer,
  opts: CompactOptions,
) {
  const { kv } = deps;
  if (mark.building) {
    const published = await kv.get(keys.part(org, env, kind, mark.building));
    if (!published.value) await deleteChunks(kv, mark.building);
    mark.building = null;
  }
  for (const id of mark.garbage) await deleteChunks(kv, id);
  mark.garbage = [];
  await setMark(w, mark);
  for (const { meta } of await listParts(kv, org, env, kind)) {
    if (meta.pending) await deleteRaw(deps, org, env, meta, opts);
  }
}

async function closedRaw(
  deps: Deps,
  org: string,
  env: EnvName,
  kind: PartKind,
  cutoff: number,
  max: number,
) {
  // a record that cannot be read or decoded is moved aside (lib/store/readable.ts), never a stuck compaction
  const where = { org, env, log: deps.log, now: deps.clock.now() };
  const list = kind === "ev"
    ? rawEvents(deps.kv, where, undefined, cutoff, max)
    : rawHits(deps.kv, where, undefined, cutoff, max);
  const out: AnyRecord[] = [];
  for await (const e of list) out.push(e.value);
  return out;
}

/** One part per UTC day of placement time, so parts have tight time ranges. */
function byDay(rows: AnyRecord[], kind: PartKind): AnyRecord[][] {
  const days = new Map<number, AnyRecord[]>();
  for (const r of rows) {
    const d = dayNumber(kind === "ev" ? r.received_at : (r as { timestamp: number }).timestamp);
    let g = days.get(d);
    if (!g) days.set(d, g = []);
    g.push(r);
  }
  return [...days.values()];
}

async function publish(
  deps: Deps,
  org: string,
  env: EnvName,
  kind: PartKind,
  rows: AnyRecord[] | BuiltPart,
  mark: Mark,
  w: Writer,
  opts: CompactOptions,
  replaces: { meta: PartMeta; versionstamp: string }[] = [],
): Promise<PartMeta | null> {
  const { kv, clock } = deps;
  const built = Array.isArray(rows) ? await buildPart(kv, org, kind, rows, turns()) : rows;
  const id = newPartId(clock.now());
  mark.building = id;
  await setMark(w, mark);
  const chunks = await writeChunks(kv, id, built.encoded.blob);
  await writeDir(kv, id, built.encoded.columns);
  // the part's rollups and tables, under the same building mark (a crash deletes them with the chunks)
  await writePartTables(kv, id, org, env, kind, built.batch, turns());
  opts.failAt?.(replaces.length ? "merge_chunks_written" : "chunks_written");
  const meta = builtPartMeta(built, id, kind, chunks, replaces.length === 0, clock.now());
  const next: Mark = { ...mark, building: null, garbage: replaces.map((r) => r.meta.id) };
  const res = await w.lease.guarded((check) => {
    const op = touchIndex(kv.atomic(), org, env, kind).check(check).set(keys.part(org, env, kind, id), meta)
      .set(w.markKey, next);
    for (const r of replaces) {
      op.check({ key: keys.part(org, env, kind, r.meta.id), versionstamp: r.versionstamp }).delete(
        keys.part(org, env, kind, r.meta.id),
      );
    }
    return op.commit();
  });
  if (!res.ok) {
    await deleteChunks(kv, id); // a source part changed under a merge: drop the merged copy
    mark.building = null;
    await setMark(w, mark);
    return null;
  }
  Object.assign(mark, next);
  if (replaces.length) {
    opts.failAt?.("merge_swapped");
    for (const g of mark.garbage) await deleteChunks(kv, g);
    mark.garbage = [];
    await setMark(w, mark);
    return meta;
  }
  opts.failAt?.("published");
  await deleteRaw(deps, org, env, meta, opts);
  return meta;
}

/** Deletes the raw keys a pending part holds, then marks it complete. */
async function deleteRaw(deps: Deps, org: string, env: EnvName, meta: PartMeta, opts: CompactOptions) {
  const { kv } = deps;
  const rawKeys = await partRawKeys(kv, org, env, meta);
  const inFlight: Promise<unknown>[] = [];
  for (let i = 0; i < rawKeys.length; i += 200) {
    const op = kv.atomic();
    for (const k of rawKeys.slice(i, i + 200)) op.delete(k);
    inFlight.push(op.commit());
    if (inFlight.length >= 8) await Promise.all(inFlight.splice(0));
    if (i === 0 && rawKeys.length > 200) {
      await Promise.all(inFlight.splice(0));
      opts.failAt?.("raw_partly_deleted");
    }
  }
  await Promise.all(inFlight);
  opts.failAt?.("raw_deleted");
  const key = keys.part(org, env, meta.kind, meta.id);
  const entry = await kv.get<PartMeta>(key);
  if (entry.value) {
    await touchIndex(kv.atomic(), org, env, meta.kind).check(entry).set(key, {
      ...entry.value,
      pending: false,
    })
      .commit();
  }
}

/** Merges the parts of a day when the day is closed and has several, or when it has many small ones. */
async function mergeSmall(
  deps: Deps,
  org: string,
  env: EnvName,
  kind: PartKind,
  cutoff: number,
  mark: Mark,
  w: Writer,
  opts: CompactOptions,
) {
  const { kv } = deps;
  const days = new Map<number, { meta: PartMeta; versionstamp: string }[]>();
  for (const p of await listParts(kv, org, env, kind)) {
    if (p.meta.pending) continue;
    let d = days.get(p.meta.day);
    if (!d) days.set(p.meta.day, d = []);
    d.push(p);
  }
  let merged = 0;
  for (const [day, list] of days) {
    const closed = (day + 1) * 86_400_000 <= cutoff;
    if (list.length < 2 || (!closed && list.length < 6)) continue;
    // events of a closed day merge by columns into large parts; an open day's and hits by records
    const byColumns = kind === "ev" && closed;
    const max = byColumns ? opts.dayRows ?? deps.config.dayPartRows : MERGE_MAX_ROWS;
    list.sort((a, b) => a.meta.rows - b.meta.rows);
    const take: typeof list = [];
    let rows = 0;
    for (const p of list) {
      if (take.length >= MERGE_MAX_SOURCES || rows + p.meta.rows > max) break;
      take.push(p);
      rows += p.meta.rows;
    }
    // a large part is not rewritten for a few late rows: they merge among themselves until they are a share of it
    while (
      byColumns && take.length > 1 && take.at(-1)!.meta.rows > REWRITE_SHARE * (rows - take.at(-1)!.meta.rows)
    ) {
      rows -= take.pop()!.meta.rows;
    }
    if (take.length < 2) continue;
    const turn = turns();
    const built = byColumns ? await mergedByColumns(kv, take.map((p) => p.meta), turn) : null;
    if (!built && rows > MERGE_MAX_ROWS) continue; // parts too old to merge by columns: never this many rows
    const source = built ?? await recordsOf(kv, org, env, take.map((p) => p.meta), turn);
    if (await publish(deps, org, env, kind, source, mark, w, opts, take)) merged += take.length;
  }
  return merged;
}

async function recordsOf(kv: Deno.Kv, org: string, env: EnvName, parts: PartMeta[], turn: Turn) {
  const records: AnyRecord[] = [];
  for (const p of parts) records.push(...await partRecords(kv, org, env, p, turn));
  return records;
}

/** The merged part of event parts, made from their columns; null when one lacks a column records need. */
async function mergedByColumns(kv: Deno.Kv, parts: PartMeta[], turn: Turn): Promise<BuiltPart | null> {
  const batches = [];
  for (const p of parts) batches.push(await partBatch(kv, p));
  if (!mergeable(batches)) return null;
  const m = await mergeEventBatches(batches, turn, true);
  return await builtOfBatch(m, "ev", 0, turn);
}
