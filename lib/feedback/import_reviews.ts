/** Import of a file of reviews into one app: parse (lines named when bad), then store idempotently. */
import type { FeedbackApp } from "./types.ts";
import { decodeImport, type ImportLineError, looksLikeCsv, parseImport } from "./sources/import.ts";
import { storeReviews } from "./store.ts";

export interface ImportResult {
  imported: number;
  updated: number;
  duplicates: number;
  rejected: ImportLineError[];
  rejected_total: number;
}

export async function importReviews(
  kv: Deno.Kv,
  app: FeedbackApp,
  bytes: Uint8Array,
  contentType: string | null,
): Promise<ImportResult> {
  const text = decodeImport(bytes);
  const parsed = parseImport(text, looksLikeCsv(text, contentType));
  const r = await storeReviews(kv, app, "import", parsed.reviews.map((x) => x.review));
  return {
    imported: r.stored,
    updated: r.updated,
    duplicates: r.unchanged + (parsed.reviews.length - new Set(parsed.reviews.map((x) => x.review.id)).size),
    rejected: parsed.rejected.slice(0, 100),
    rejected_total: parsed.rejected.length,
  };
}
