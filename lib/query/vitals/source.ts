/**
 * Web Vitals questions answered from the parts' vitals tables: each table read from KV and decoded once per
 * part (parts are immutable, so the part id is the key) into a bounded cache, the hours the period takes
 * chosen by the rollups' rule (answer.ts), and what has no table counted exactly: the raw tail's rows of the
 * period and the few parts the backfill has not reached yet, their people numbered as the parts' are (ids
 * not numbered yet get numbers past all given ones, for this question only).
 */
import { inBatches } from "../../batches.ts";
import type { Deps } from "../../deps.ts";
import { Lru, remember } from "../../lru.ts";
import type { Batch, NumCol } from "../../parts/columns.ts";
import { decodeBatch } from "../../parts/codec.ts";
import { buildEventBatch } from "../../parts/event_batch.ts";
import { partColumns, PartGoneError, type PartMeta, readBlob } from "../../parts/store.ts";
import { visitorCount, visitorNumbersForReading } from "../../parts/visitor_numbers.ts";
import type { StoredEvent } from "../../store/records.ts";
import { turns } from "../../turns.ts";
import type { Source } from "../columns/source.ts";
import type { Scope, ValueSeriesOptions } from "../types.ts";
import {
  answerOf,
  hoursTaken,
  type Merged,
  mergeTables,
  type TableTaken,
  vitalsBlocker,
  type VitalsResult,
} from "./answer.ts";
import { buildVitals, vitalsBytes, type VitalsTable } from "./build.ts";
import { answeredVitalsEntry, readVitals, VITALS_VERSION, vitalsIds, vitalsVisitors } from "./store.ts";

/**
 * The decoded tables' share of the engine's memory budget (`PART_CACHE_MB`): a thirty-second, 9 MB of the
 * default 288, out of the rollups' third (engine.ts).
 */
export const vitalsCacheBytes = (partCacheBytes: number): number => Math.floor(partCacheBytes / 32);

/** Rows of parts without a table a question reads itself at most; past it the scan answers (it caches parts). */
const MISSING_ROWS = 100_000;

export class VitalsSource {
  /**
   * decoded tables by part id and version, and the hours of each table of the current version (small: kept
   * longer; an older version's are read again each question, so the backfill's rebuild is seen at once)
   */
  readonly cache: Lru<VitalsTable>;
  private heads = new Map<string, VitalsTable["hours"]>();
  /** the parts' tables merged per question and period (answer.ts `Merged`), three quarters of the share */
  private merges: Lru<Merged>;
  private loading = new Map<string, Promise<VitalsTable | null>>();
  /** stored bytes read from KV (benches) */
  bytesRead = 0;

  constructor(private deps: Deps, private source: Source, capacity: number) {
    // a period's kept merge is what warm questions need (3.7 MB for the 10M site's 30 days); the decoded
    // tables only matter to the next merge
    this.merges = new Lru(Math.floor((capacity * 3) / 4));
    this.cache = new Lru(capacity - Math.floor((capacity * 3) / 4));
  }

  /**
   * A part's hourly or whole-part table of version `v` (or a newer one the backfill wrote meanwhile), or null
   * when it has none (yet: the backfill may write one later, so null is not kept).
   */
  get(partId: string, whole = false, v = VITALS_VERSION): Promise<VitalsTable | null> {
    const keyOf = (version: number) => `${partId}|${version}${whole ? "|whole" : ""}`;
    const key = keyOf(v);
    const kept = this.cache.get(key);
    if (kept) return Promise.resolve(kept);
    let loading = this.loading.get(key);
    if (!loading) {
      loading = readVitals(this.deps.kv, partId, whole).then((got) => {
        if (!got) return null;
        this.bytesRead += got.stored;
        this.cache.set(keyOf(got.v), got.table, vitalsBytes(got.table));
        return got.table;
      }).finally(() => this.loading.delete(key));
      this.loading.set(key, loading);
    }
    return loading;
  }

  /** The last raw tail's table: the tail's records (the same array while unchanged) and the visitor count. */
  private tail: { all: StoredEvent[]; count: number; table: Promise<VitalsTable> } | null = null;

  /** The whole raw tail's exact table, kept while its records and the numbering stay the same. */
  private async tailTable(s: Scope, all: StoredEvent[]): Promise<VitalsTable> {
    const count = await visitorCount(this.deps.kv, s.org, s.env);
    const kept = this.tail;
    if (kept && kept.all === all && kept.count === count) return kept.table;
    const table = (async () => {
      const [t] = await exactTables(this.deps.kv, s, [await buildEventBatch([...all], turns())], () => true);
      return t;
    })();
    this.tail = { all, count, table };
    table.catch(() => this.tail?.table === table && (this.tail = null));
    return table;
  }

  /** The answer, or null when the scan must give it (vitalsBlocker, an hour the period cuts, parts gone). */
  async answer(s: Scope, o: ValueSeriesOptions): Promise<VitalsResult | null> {
    if (vitalsBlocker(s, o) !== null) return null;
    const { kv } = this.deps;
    const { parts, tail, all } = await this.source.partsAndTail(s.org, s.env, s.from, s.to);
    // the hours each part's table has (kept apart from the tables: a kept merge is found without them)
    const heads = await inBatches(parts, 16, (p) => this.head(p.id));
    const taken: (Uint8Array | null)[] = [];
    const missing: PartMeta[] = [];
    for (let i = 0; i < parts.length; i++) {
      const head = heads[i];
      if (!head) {
        missing.push(parts[i]);
        taken.push(null);
        continue;
      }
      const take = hoursTaken(head.hours, s);
      if (!take) return null;
      taken.push(take);
    }
    if (missing.reduce((n, p) => n + p.rows, 0) > MISSING_ROWS) return null;
    if (!missing.length) {
      // the parts' tables merged for this question and its period's hours: kept, the raw tail added apart
      // (and the tables' versions: a version-3 table's merge is not the one after its backfill)
      const key = JSON.stringify([s.org, s.env, s.touchpoint, s.traffic, s.filters, o.by]) + "|" +
        parts.map((p, i) => `${p.id}@${heads[i]!.v}:${taken[i]!.join("")}`).join(",");
      let merged = this.merges.get(key);
      if (!merged) {
        const tables = await this.tables(parts, taken as Uint8Array[], heads.map((h) => h?.v ?? 0));
        if (!tables) return null;
        merged = mergeTables(tables, s, o);
        this.merges.set(key, merged, merged.bytes);
      }
      if (!tail.length) return answerOf(merged, null, o);
      // the raw tail's table is kept while its records and the visitor numbering are the same (its ids not
      // numbered yet get numbers past all given ones: they must not meet another batch's such ids)
      const kept = await this.tailTable(s, all);
      const take = hoursTaken(kept.hours, s);
      const tailTables = take
        ? [{ t: kept, take }]
        : (await exactTables(kv, s, [await buildEventBatch(tail, turns())], (t) => t >= s.from && t < s.to))
          .map((t) => ({ t, take: new Uint8Array(t.hours.length).fill(1) }));
      return answerOf(merged, mergeTables(tailTables, s, o), o);
    }
    // parts without a table (the backfill has not reached them): their rows and the tail's, exact
    const list = await this.tables(
      parts.filter((_, i) => taken[i]),
      taken.filter((t) => t !== null) as Uint8Array[],
      heads.filter((h) => h !== null).map((h) => h!.v),
    );
    if (!list) return null;
    const batches: Batch[] = [];
    try {
      for (const meta of missing) {
        const columns = await partColumns(kv, meta);
        batches.push(await decodeBatch({ n: meta.rows, columns }, await readBlob(kv, meta)));
      }
    } catch (e) {
      if (e instanceof PartGoneError) return null; // merged meanwhile: the scan reads consistently
      throw e;
    }
    if (tail.length) batches.push(await buildEventBatch(tail, turns()));
    const exact = await exactTables(kv, s, batches, (t) => t >= s.from && t < s.to);
    for (const t of exact) list.push({ t, take: new Uint8Array(t.hours.length).fill(1) });
    return answerOf(mergeTables(list, s, o), null, o);
  }

  /**
   * The hours and version of a part's tables (null: it has none a question reads yet), from its entry: kept
   * for the current version (parts are immutable), read again for an older one (the backfill rebuilds it).
   */
  private async head(partId: string): Promise<{ hours: VitalsTable["hours"]; v: number } | null> {
    const known = this.heads.get(partId);
    if (known) return { hours: known, v: VITALS_VERSION };
    const entry = await answeredVitalsEntry(this.deps.kv, partId);
    if (entry?.v === VITALS_VERSION) remember(this.heads, partId, entry.hours, 100_000);
    return entry ? { hours: entry.hours, v: entry.v } : null;
  }

  /**
   * The tables a question reads: none for a part whose hours it takes none of, the whole-part table for one
   * whose hours it takes all of, else the hourly one; null when one went meanwhile (a merge: the scan answers).
   */
  private async tables(
    parts: PartMeta[],
    takes: Uint8Array[],
    versions: number[],
  ): Promise<TableTaken[] | null> {
    const plan = parts.map((p, i) => {
      const take = takes[i];
      const n = take.reduce((a, b) => a + b, 0);
      const mode = n === 0 ? "none" : n === take.length ? "whole" : "hourly";
      return { id: p.id, take, mode, v: versions[i] };
    }).filter((x) => x.mode !== "none");
    const got = await inBatches(plan, 16, (x) => this.get(x.id, x.mode === "whole", x.v));
    if (got.some((t) => t === null)) return null;
    return plan.map((x, i) => ({ t: got[i]!, take: x.mode === "whole" ? Uint8Array.of(1) : x.take }));
  }
}

/** Exact tables of batches (rows whose receive time `keep` takes), their people numbered together. */
async function exactTables(
  kv: Deno.Kv,
  s: Scope,
  batches: Batch[],
  keep: (t: number) => boolean,
): Promise<VitalsTable[]> {
  const ids = new Set<string>();
  for (const b of batches) for (const id of vitalsIds(b).used.values()) ids.add(id);
  const { numbers } = await visitorNumbersForReading(kv, s.org, s.env, ids);
  const byId = (list: string[]) => Promise.resolve(new Map(list.map((id) => [id, numbers.get(id) ?? 0])));
  const out: VitalsTable[] = [];
  for (const b of batches) {
    const rows = await vitalsVisitors(b, byId);
    const t = b.n ? (b.cols.t as NumCol).values : new Float64Array(0);
    out.push(buildVitals(b, rows, { exact: true, keep: (i) => keep(t[i]) }));
  }
  return out;
}
