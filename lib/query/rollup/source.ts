/**
 * The rollup side of the engine: the questions rollups answer (null: the scan answers), each kind in its own
 * file, all reading through one RollupReader (reader.ts: pieces read and decoded once and kept in the one
 * budget, the period's parts and raw tail): plain aggregates (plain_answers.ts), aggregates by attribution
 * (sources: sources_answers.ts), explain-a-change's first events (explain_answers.ts), and retention (here:
 * the totals rows' sets).
 */
import { inBatches } from "../../batches.ts";
import type { Deps } from "../../deps.ts";
import { turns } from "../../turns.ts";
import type { Turn } from "../../turns.ts";
import type { Source } from "../columns/source.ts";
import type { AggregateOptions, AggregateResult, Scope } from "../types.ts";
import type {
  AttributionOptions,
  AttributionResult,
  RetentionOptions,
  RetentionResult,
} from "../sequence_types.ts";
import { retentionBlocker, retentionFromRollups } from "./retention.ts";
import { attributionAsked, hoursInside } from "./answer.ts";
import { TOTAL } from "./build.ts";
import type { RollupParts } from "./pieces.ts";
import { RollupReader } from "./reader.ts";
import { PlainAnswers } from "./plain_answers.ts";
import { SourcesAnswers } from "./sources_answers.ts";
import { ExplainAnswers } from "./explain_answers.ts";

/**
 * Decoded rollups and the side tables (hit rollups, Web Vitals, property rollups) kept: a third of the one
 * budget (PART_CACHE_MB, 96 of the default 288 MB); the engine gives parts the rest (192 MB, what a month of
 * 1M events needs to be scanned warm). With a quarter of 256 MB, less the side tables' shares, the rollups
 * kept ~30 MB and the 10M overview's warm ask re-read sections (489 ms against 197 ms with a third).
 */
export const rollupCacheBytes = (budget: number): number => Math.floor(budget / 3);

export class RollupSource {
  private r: RollupReader;
  private plain: PlainAnswers;
  private sources: SourcesAnswers;
  private explaining: ExplainAnswers;
  constructor(
    deps: Deps,
    source: Source,
    bytes = rollupCacheBytes(deps.config.partCacheBytes),
    /** what a raw tail's build awaits every 2,048 rows (tests count them) */
    turn: () => Turn = turns,
  ) {
    this.r = new RollupReader(deps, source, bytes, turn);
    this.plain = new PlainAnswers(this.r);
    this.sources = new SourcesAnswers(this.r);
    this.explaining = new ExplainAnswers(this.r, (s, questions) => this.answer(s, questions));
  }

  /** KV bytes read for pieces (the bench reports a cold question's). */
  get bytesRead(): number {
    return this.r.bytesRead;
  }
  /** Questions whose rows came from a kept list (kept_lists.ts) without reading their field's rows. */
  get listsFromKept(): number {
    return this.r.listsFromKept;
  }
  /** Kept lists built after an answer (plain_answers.ts): in the background, and by a later question. */
  get listBuilds(): { background: number; inAnswer: number } {
    return this.plain.listBuilds;
  }
  /** Whether kept lists under way are built while idle (tests turn it off: an isolate frozen after its response). */
  set backgroundLists(on: boolean) {
    this.plain.background = on;
  }
  /** Resolves once no kept list is under way, or none is built in the background (tests). */
  listsSettled(): Promise<void> {
    return this.plain.settled();
  }
  /** The most explain-a-change questions answered at once (one: explain_answers.ts oneAtATime). */
  get mostExplaining(): number {
    return this.explaining.mostExplaining;
  }
  /** Raw tail rollups built (each question over an unchanged tail reuses the kept one). */
  get tailBuilds(): number {
    return this.r.tailBuilds;
  }

  /** Each question's answer from rollups, or null for those the scan must answer. */
  async answer(s: Scope, questions: AggregateOptions[]): Promise<(AggregateResult | null)[]> {
    const byAttr = questions.map((o) => attributionAsked(s, o));
    if (!byAttr.some(Boolean)) return await this.plain.answer(s, questions);
    const attr = await this.sources.answer(s, questions.filter((_, i) => byAttr[i]));
    const rest = questions.filter((_, i) => !byAttr[i]);
    const plain = rest.length ? await this.plain.answer(s, rest) : [];
    let a = 0, p = 0;
    return questions.map((_, i) => (byAttr[i] ? attr[a++] : plain[p++]));
  }

  /** Explain-a-change's attribution from the parts' first events (explain_answers.ts), or null. */
  attribution(s: Scope, o: AttributionOptions): Promise<AttributionResult | null> {
    return this.explaining.explain(s, o);
  }

  /** Retention from the totals rows' visitor sets (retention.ts), or null when the scan must answer. */
  async retention(s: Scope, o: RetentionOptions): Promise<RetentionResult | null> {
    if (retentionBlocker(s, o) !== null) return null;
    const r = this.r;
    const { parts, tail, all, cut } = await r.inPeriod(s);
    r.asked++;
    let loaded: RollupParts[];
    try {
      const got = await inBatches(
        parts,
        4,
        (p) => r.part(p.id, { fields: [TOTAL], sets: [TOTAL], facts: false, ends: false }),
      );
      if (got.some((p) => p === null)) return null;
      loaded = got as RollupParts[];
    } catch (e) {
      if (r.gone(e)) return null;
      throw e;
    }
    const space = await r.addTail(loaded, tail, all, s, cut);
    const inside = hoursInside(loaded, s, cut !== "");
    return inside ? retentionFromRollups(loaded, inside, s, o, space) : null;
  }
}
