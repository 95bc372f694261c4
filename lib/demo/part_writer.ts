/**
 * Writes generated records straight into published parts, as compaction would leave them, skipping the raw
 * keys: a big site (10M events) loads in minutes instead of hours. Records are held per UTC day of placement
 * time (events: receive time; hits: corrected timestamp), the key compaction groups by, and a day's records
 * become a part whenever `rowsPerPart` of them wait (as compaction merges: 50,000 rows, a closed day's events
 * `config.dayPartRows`). `close` publishes what waits; a writer can be filled and closed again. Each record
 * still gets its dedupe key as ingest writes it, so a later import of the same ids is counted as duplicates;
 * the keys are held and written by `close`, sorted (random ids written as they come cost KV a B-tree page
 * each: at 1M events that was half of the generator's CPU), unless the caller writes them (site.ts writes a
 * whole site's keys in one sorted pass: lib/demo/dedupe_keys.ts).
 * A day's rows may be split over parts differently than compaction splits them; the rows per day are the
 * same (tests/lib/demo/part_writer_test.ts).
 */
import type { Deps } from "../deps.ts";
import { dayNumber, keys } from "../store/keys.ts";
import type { EnvName, StoredHit } from "../store/records.ts";
import { type AnyRecord, buildPart, builtOfBatch, type BuiltPart, builtPartMeta } from "../parts/build.ts";
import type { Batch } from "../parts/columns.ts";
import { newPartId, type PartKind, touchIndex, writeChunks, writeDir } from "../parts/store.ts";
import { WEB_DEDUPE_MS } from "../ingest/web.ts";
import { HIT_DEDUPE_MS } from "../ingest/hits.ts";
import { writePartTables } from "../query/part_tables.ts";
import { type KnownNumbers, visitorCount } from "../parts/visitor_numbers.ts";
import { DedupeKeys } from "./dedupe_keys.ts";
import { type Turn, turns } from "../turns.ts";

export const DIRECT_ROWS_PER_PART = 50_000;

/**
 * How long a part's build holds the event loop before KV's replies get a turn (turns.ts): the previous
 * part's tables are written meanwhile, and a turn (a setTimeout, ~1-2.5 ms) is rare enough to cost little.
 */
const TURN_MS = 25;

/** How a writer reads what it holds: records themselves, or drafts made into records when their part is built. */
export interface Holding<T> {
  id(x: T): string;
  receivedAt(x: T): number;
  /** the time its day is placed by (events: receive time; hits: corrected timestamp) */
  placedAt(x: T): number;
  record(x: T): AnyRecord;
  /**
   * the part's rows as columns, made straight from what is held (the generator's drafts: draft_batch.ts; a
   * new site's hits, with no verification outcome to read)
   */
  batch?(held: T[], turn: Turn): Promise<Batch>;
}

/** Records held as they are. */
export const recordsOf = (kind: PartKind): Holding<AnyRecord> => ({
  id: (r) => r.id,
  receivedAt: (r) => r.received_at,
  placedAt: (r) => (kind === "ev" ? r.received_at : (r as StoredHit).timestamp),
  record: (r) => r,
});

export class PartWriter<T = AnyRecord> {
  private days = new Map<number, T[]>();
  private dedupe: DedupeKeys;
  private writing: Promise<unknown> = Promise.resolve();
  /** the last part's writes (its chunks, tables and index entry), going on while the next part is built */
  private landing: Promise<void> = Promise.resolve();
  private added = false;
  /** visitor numbers given or read so far: each visitor is numbered or read once, not once a part */
  private known: KnownNumbers | null = null;
  parts = 0;
  rows = 0;

  constructor(
    private deps: Deps,
    private org: string,
    private env: EnvName,
    private kind: PartKind,
    /** rows a part holds at most: a number, or one per UTC day number (closed days take more) */
    private rowsPerPart: number | ((day: number) => number) = DIRECT_ROWS_PER_PART,
    /**
     * dedupe keys written: every record's ("all"), only the first record's ("first": a rerun still finds the
     * site; benches, where KV writes dominate), or none (the caller writes them)
     */
    private dedupeKeys: "all" | "first" | "none" = "all",
    /**
     * what is held until its day's part is built: the generator holds its drafts, smaller than records (a 10M
     * site holds up to 30 days × 50,000 of them, and the collector marks every object held)
     */
    private holding: Holding<T> = recordsOf(kind) as unknown as Holding<T>,
  ) {
    this.dedupe = new DedupeKeys(org);
  }

  async add(x: T): Promise<void> {
    const h = this.holding;
    const day = dayNumber(h.placedAt(x));
    let list = this.days.get(day);
    if (!list) this.days.set(day, list = []);
    list.push(x);
    if (this.dedupeKeys === "all" || (this.dedupeKeys === "first" && !this.added)) {
      this.dedupe.add(h.id(x), h.receivedAt(x), this.kind === "ev" ? WEB_DEDUPE_MS : HIT_DEDUPE_MS);
    }
    this.added = true;
    const max = typeof this.rowsPerPart === "number" ? this.rowsPerPart : this.rowsPerPart(day);
    if (list.length >= max) {
      this.days.delete(day);
      await this.publish(list);
    }
  }

  /**
   * Publishes what waits, then writes the held dedupe keys; with `later`, those writes go on while the
   * caller goes on (KV writes them while the next parts are built) until `settled`.
   */
  async close(later = false): Promise<void> {
    for (const [day, list] of [...this.days].sort((a, b) => a[0] - b[0])) {
      this.days.delete(day);
      await this.publish(list);
    }
    await this.landed();
    const writes = this.dedupe.write(this.deps.kv);
    writes.catch(() => {}); // a failure is thrown by `settled`
    this.writing = Promise.all([this.writing, writes]);
    if (!later) await this.settled();
  }

  /** Waits for the dedupe writes `close` left going. */
  async settled(): Promise<void> {
    const writing = this.writing;
    this.writing = Promise.resolve();
    await writing;
  }

  /**
   * Builds a part of `held`, then starts writing it once the last part is written: parts land (and their
   * visitors are numbered) one after another in the order they were built, while the next is built.
   */
  private async publish(held: T[]): Promise<void> {
    const { kv } = this.deps;
    const h = this.holding;
    const turn = turns(TURN_MS);
    const built = h.batch
      ? await builtOfBatch(await h.batch(held, turn), this.kind, 0, turn)
      : await buildPart(kv, this.org, this.kind, held.map(h.record), turn);
    await this.landed();
    this.landing = this.write(built, turn);
    this.landing.catch(() => {}); // thrown by `landed`
  }

  private async landed(): Promise<void> {
    const landing = this.landing;
    this.landing = Promise.resolve();
    await landing;
  }

  private async write(built: BuiltPart, turn: Turn): Promise<void> {
    const { kv, clock } = this.deps;
    const id = newPartId(clock.now());
    const chunks = await writeChunks(kv, id, built.encoded.blob);
    await writeDir(kv, id, built.encoded.columns);
    // an environment without numbers yet (a new site) has none this writer does not know
    this.known ??= { numbers: new Map(), complete: (await visitorCount(kv, this.org, this.env)) === 0 };
    await writePartTables(kv, id, this.org, this.env, this.kind, built.batch, turn, this.known);
    const meta = builtPartMeta(built, id, this.kind, chunks, false, clock.now());
    await touchIndex(kv.atomic(), this.org, this.env, this.kind).set(
      keys.part(this.org, this.env, this.kind, id),
      meta,
    )
      .commit();
    this.parts++;
    this.rows += built.rows;
  }
}

/** Whether a record with this id was stored already (a rerun of the same site): then the raw path is taken. */
export async function storedBefore(kv: Deno.Kv, org: string, id: string): Promise<boolean> {
  return (await kv.get(keys.dedupe(org, id))).value !== null;
}
