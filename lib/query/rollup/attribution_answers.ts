/**
 * Answers by attribution, the two kinds the rollup source (source.ts) asks here: sources (sessions, visitors
 * and conversions by first-touch fields and entry page: sources_answers.ts) and explain-a-change's first
 * events (explain_answers.ts).
 */
import type { RollupReader } from "./reader.ts";
import type { AggregateOptions, AggregateResult, Scope } from "../types.ts";
import type { AttributionOptions, AttributionResult } from "../sequence_types.ts";
import { SourcesAnswers } from "./sources_answers.ts";
import { type Ask, ExplainAnswers } from "./explain_answers.ts";

export class AttributionAnswers {
  private sources: SourcesAnswers;
  private explaining: ExplainAnswers;
  constructor(r: RollupReader, ask: Ask) {
    this.sources = new SourcesAnswers(r);
    this.explaining = new ExplainAnswers(r, ask);
  }

  /** Sources questions (sources_answers.ts); null answers: the scan answers. */
  answer(s: Scope, os: AggregateOptions[]): Promise<(AggregateResult | null)[]> {
    return this.sources.answer(s, os);
  }

  /** Explain-a-change's attribution (explain_answers.ts), or null when the scan must answer. */
  explain(s: Scope, o: AttributionOptions): Promise<AttributionResult | null> {
    return this.explaining.explain(s, o);
  }

  /** The most explain-a-change questions answered at once (one: explain_answers.ts oneAtATime). */
  get mostExplaining(): number {
    return this.explaining.mostExplaining;
  }
}
