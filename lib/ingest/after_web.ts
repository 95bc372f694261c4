/** Work that follows a stored web batch: automated agents seen through the SDK are verified like crawler hits. */
import type { AppContext } from "../context.ts";
import { enqueueVerification } from "../jobs/verify.ts";
import type { Arrival, IngestResult } from "./web.ts";

export async function afterWebIngest(ctx: AppContext, result: IngestResult, arrival: Arrival): Promise<void> {
  for (const ev of result.automated) {
    await enqueueVerification(ctx.deps, {
      org: ev.org,
      eventId: ev.id,
      token: ev.crawler ?? "unknown",
      receivedAt: ev.received_at,
      hasIp: arrival.ip !== null,
    });
  }
}
