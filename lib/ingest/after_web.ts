/** Work that follows a stored web batch: automated agents seen through the SDK are verified like crawler hits. */
import type { AppContext } from "../context.ts";
import type { Arrival, IngestResult } from "./web.ts";

export async function afterWebIngest(
  _ctx: AppContext,
  _result: IngestResult,
  _arrival: Arrival,
): Promise<void> {
  // Wired to the crawler verification queue when lib/jobs/verify.ts lands (issue 3).
}
