/**
 * Where rollup answers read from: the rollups of the parts covering a period (decoded once, cached by part
 * id: parts are immutable) and a rollup of the raw tail built per question, its visitors numbered as the
 * parts' are (ids not numbered yet get numbers past all given ones, for this question only).
 */
import type { Deps } from "../../deps.ts";
import { Lru } from "../../lru.ts";
import { buildEventBatch } from "../../parts/event_batch.ts";
import { turns } from "../../turns.ts";
import { visitorCount, visitorNumbersForReading } from "../../parts/visitor_numbers.ts";
import type { Source } from "../columns/source.ts";
import type { AggregateOptions, AggregateResult, Scope } from "../types.ts";
import { answerFromRollups, rollupBlocker } from "./answer.ts";
import { batchVisitors, buildRollup, type Rollup, rowVisitors } from "./build.ts";
import { readRollup } from "./store.ts";

/** Decoded rollups kept: a quarter of the one budget (PART_CACHE_MB); the engine gives parts the rest. */
export const rollupCacheBytes = (budget: number): number => Math.floor(budget / 4);

export class RollupSource {
  private cache: Lru<Rollup>;
  constructor(
    private deps: Deps,
    private source: Source,
    bytes = rollupCacheBytes(deps.config.partCacheBytes),
  ) {
    this.cache = new Lru(bytes);
  }

  /** Questions asked, and the last question that read each kept rollup. */
  private asked = 0;
  private lastAsked = new Map<string, number>();

  /**
   * Keeps a decoded rollup while it fits. A period's rollups are read in the same order every question, so
   * evicting the least recently used to make room would miss each of them next time (the whole period read
   * again from KV each question); instead what is kept stays, and only rollups no question read in the last
   * 16 (parts merged away, periods no longer asked) make room.
   */
  private keep(id: string, r: Rollup) {
    const w = weight(r);
    if (this.cache.used + w > this.cache.capacity) {
      for (const [old, at] of this.lastAsked) {
        if (this.cache.used + w <= this.cache.capacity) break;
        if (at < this.asked - 16) {
          this.cache.delete(old);
          this.lastAsked.delete(old);
        }
      }
    }
    if (this.cache.used + w <= this.cache.capacity) this.cache.set(id, r, w);
    else this.lastAsked.delete(id);
  }

  /** Each question's answer from rollups, or null for those the scan must answer. */
  async answer(s: Scope, questions: AggregateOptions[]): Promise<(AggregateResult | null)[]> {
    const served = questions.map((o) => rollupBlocker(s, o) === null);
    const none = questions.map(() => null);
    if (!served.some(Boolean)) return none;
    const { kv } = this.deps;
    const { parts, tail } = await this.source.partsAndTail(s.org, s.env, s.from, s.to);
    this.asked++;
    const rollups: Rollup[] = [];
    for (const p of parts) {
      let r = this.cache.get(p.id);
      this.lastAsked.set(p.id, this.asked);
      if (!r) {
        const read = await readRollup(kv, p.id);
        if (!read) return none; // a part without a rollup yet (the backfill adds it): the scan answers
        r = read;
        this.keep(p.id, read);
      }
      rollups.push(r);
    }
    let space: number;
    if (tail.length) {
      const b = await buildEventBatch(tail, turns()); // a large tail yields to the event loop while built
      const { numbers, size } = await visitorNumbersForReading(kv, s.org, s.env, batchVisitors(b));
      const rows = rowVisitors(b, numbers);
      rollups.push(buildRollup(b, (i) => rows[i]));
      space = size;
    } else space = await visitorCount(kv, s.org, s.env);
    return questions.map((o, i) => (served[i] ? answerFromRollups(rollups, s, o, space) : null));
  }
}

/** A decoded rollup's bytes: its arrays, sets, session facts with their rows' lists, and its strings. */
const weight = (r: Rollup) =>
  r.sets.length + r.n * 56 + r.values.length * 40 + r.facts.n * 72 + r.facts.listDt.length * 16;
