import type { IncomingReview } from "../types.ts";

/** One page of a store's reviews, newest first, and the cursor of the next page (null: none). */
export interface Page {
  reviews: IncomingReview[];
  next: string | null;
}
