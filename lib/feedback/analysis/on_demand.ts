/**
 * The review analysis, loaded on first need: its models, lexicons and tinyld take ~55 MB once evaluated,
 * which a process answering behavior questions alone should not hold. Writers and the re-analysis await
 * `loadAnalysis()` once, then analyse synchronously.
 */
import type { ReviewAnalysis } from "../types.ts";
import type { AnalysisInput } from "./analyze.ts";

let analyze: ((input: AnalysisInput) => ReviewAnalysis) | null = null;

export async function loadAnalysis(): Promise<void> {
  if (analyze) return;
  analyze = (await import("./analyze.ts")).analyzeReview;
}

/** analyzeReview, once `loadAnalysis()` has been awaited. */
export function analyzeLoaded(input: AnalysisInput): ReviewAnalysis {
  if (!analyze) throw new Error("review analysis: await loadAnalysis() first (it is loaded on demand)");
  return analyze(input);
}
